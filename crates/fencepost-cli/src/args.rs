//! The command line: every command, option and help text, declared once for clap, which parses
//! it, prints `--help` and `--version`, suggests a near name for a typo and refuses bad arguments
//! with exit status 2.

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Simulate fencing stories, explore faults, check real write histories.
#[derive(Debug, Parser)]
#[command(
    name = "fencepost",
    version,
    subcommand_required = true,
    args_override_self = true,
    after_help = "Exit status: 0 every invariant held, 1 an invariant was violated, 2 bad input \
                  (check: 1 a violation was found, 2 no violation but malformed lines were skipped)."
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// List the built-in stories (presets) by name
    Presets,
    /// Run one scenario and print its timeline and verdict
    ///
    /// The scenario is a preset, a scenario file, or the one a template derives from a seed.
    /// Exit status 0 when every invariant held, 1 when one was violated.
    Sim(SimArgs),
    /// Sweep seeds, or search every fault placement within a small scope, for a violation
    ///
    /// Without --exhaustive, or with --seeds, runs a seed sweep (1000 seeds by default), each run
    /// with fencing on and off. With --exhaustive, searches a small scope of pauses, held writes
    /// and clock jumps around the lease's length for the shortest counterexample. Exit status 1
    /// when the checked configuration broke an invariant.
    Explore(ExploreArgs),
    /// Check a write history (JSON lines) for token regressions and stale-owner writes
    ///
    /// A write log's line is one write a resource saw: {"t", "resource", "writer", "token",
    /// "result"}; it is checked for token regressions and stale-owner writes. A campaign's
    /// history adds lines with a "kind" (grant, belief, write, final, fault), checked for stale
    /// writes accepted, grant order, acknowledged writes lost and belief overlaps, with a table
    /// per nemesis and a verdict line. Exit status 1 when a figure that must be 0 is not, 2 when
    /// none is but malformed lines were skipped.
    Check(CheckArgs),
    /// Read and validate a scenario file without running it
    CheckScenario {
        /// The scenario file
        #[arg(value_name = "FILE")]
        file: String,
    },
    /// Print a shell completion script for fencepost
    ///
    /// For example: `fencepost completions bash > /etc/bash_completion.d/fencepost`.
    Completions {
        /// The shell to complete for
        shell: clap_complete::Shell,
    },
}

/// How results are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// Lines for a person to read
    Text,
    /// JSON, for programs
    Json,
}

#[derive(Debug, Args)]
pub(crate) struct SimArgs {
    /// A preset's name (see `fencepost presets`) or a scenario file
    #[arg(
        value_name = "PRESET|FILE",
        required_unless_present = "template",
        conflicts_with = "template"
    )]
    pub(crate) scenario: Option<String>,
    /// Run the scenario this template (a built-in one's name or a file) derives from --seed
    #[arg(long, value_name = "TEMPLATE", requires = "seed")]
    pub(crate) template: Option<String>,
    /// Run with fencing on, whatever the scenario says
    #[arg(long, overrides_with = "no_fencing")]
    pub(crate) fencing: bool,
    /// Run with fencing off, whatever the scenario says
    #[arg(long, overrides_with = "fencing")]
    pub(crate) no_fencing: bool,
    /// The seed of the run's random draws; with --template, the seed that picks the scenario
    #[arg(long, value_name = "N")]
    pub(crate) seed: Option<u64>,
    /// How to write the results
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub(crate) format: Format,
}

impl SimArgs {
    /// Fencing as the flags ask for it; None leaves the scenario's own setting.
    pub(crate) fn fencing(&self) -> Option<bool> {
        match (self.fencing, self.no_fencing) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct ExploreArgs {
    /// A preset, a template (built-in name or file) or a scenario file
    #[arg(value_name = "PRESET|TEMPLATE|FILE")]
    pub(crate) target: String,
    /// How many seeds to sweep [default: 1000 without --exhaustive]
    #[arg(long, value_name = "N")]
    pub(crate) seeds: Option<u64>,
    /// The first seed of the sweep, and the seed a template derives the searched world from
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub(crate) first_seed: u64,
    /// Search every placement of faults within a small scope for the shortest counterexample
    #[arg(long)]
    pub(crate) exhaustive: bool,
    /// The most faults the exhaustive search places in one run
    #[arg(long, value_name = "K", default_value_t = 2)]
    pub(crate) max_faults: u32,
    /// Judge fencing off instead of on: the exit status follows the sweep's runs without
    /// fencing, and the exhaustive search runs without it
    #[arg(long)]
    pub(crate) no_fencing: bool,
    /// How to write the results
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub(crate) format: Format,
}

#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// The history file, one JSON write per line, or - for standard input
    #[arg(value_name = "HISTORY.jsonl|-")]
    pub(crate) history: String,
    /// How to write the results
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub(crate) format: Format,
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    #[test]
    fn the_command_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}

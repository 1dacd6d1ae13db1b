//! Reading a fuzz target's committed seeds, for the tests that pin what each seed gives.

use std::path::Path;

/// Every seed of `target` (a folder of fuzz/corpus) with what `check` gives for it, by name.
pub fn verdicts(target: &str, check: fn(&[u8]) -> usize) -> Vec<(String, usize)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let mut seen: Vec<(String, usize)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let path = e.expect("readable entry").path();
            let data = std::fs::read(&path).expect("readable seed");
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .expect("seed names are UTF-8")
                .to_string();
            (name, check(&data))
        })
        .collect();
    seen.sort();
    seen
}

/// A list of seed names and verdicts, in the form `verdicts` answers, sorted by name.
pub fn expected(list: &[(&str, usize)]) -> Vec<(String, usize)> {
    let mut want: Vec<(String, usize)> = list.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    want.sort();
    want
}

// The history checker: HistoryChecker, checkHistory.

import { NONE, checkOptions, freed, text } from "../common.js";
import { MAX_HISTORY } from "./limits.js";
import { G, R, ready, W } from "./instance.js";
import { hold, release, room } from "./memory.js";
import { count, LONE_SURROGATE, UNPAIRED, wellFormed } from "./checks.js";
import { failure, KIND_MEMORY, NO_MEMORY } from "./errors.js";
import { out } from "./json.js";
import { pieces, REPORT_PIECE } from "./runs.js";

const checkers =
  typeof FinalizationRegistry === "function"
    ? new FinalizationRegistry((i) => {
        W.history_drop(i);
        release(`h${i}`);
      })
    : null;

/**
 * Runs `check` (which reads `text`, `lines` lines, with checker `i`) once the memory it may take
 * is known to be left, then counts what the checker holds; returns what `check` returns.
 */
function checking(argName, i, text, lines, check) {
  // The text is copied in as UTF-8 (up to 3 bytes a character), then read line by line.
  const bytes = 3 * text.length;
  const what = `checking ${lines === 1 ? "a line" : `${lines} lines`} of ${text.length} characters`;
  room(argName, what, bytes + W.history_need(i, bytes, lines), null);
  const result = check();
  release(`h${i}`);
  hold(`h${i}`, W.history_held(i), false);
  return result;
}

/** A new checker's index (`who` names the caller in the error when none can be made). */
function newChecker(who) {
  const i = W.history_new() >>> 0;
  if (i !== NONE) return i;
  if (R.error_kind() === KIND_MEMORY) throw new RangeError(NO_MEMORY);
  throw new RangeError(`${who}: the module holds too many checkers`);
}

/** Lines per piece of a whole history checked at once (and at most HISTORY_PIECE characters). */
const HISTORY_LINES = 4096;
const HISTORY_PIECE = 1 << 20;

/**
 * Checks a real storage's write log, one JSON object per line
 * (`{"t", "resource", "writer", "token", "result": "ok" | "rejected"}`), in the order the storage
 * applied the writes, for accepted stale tokens and stale owners.
 */
export class HistoryChecker {
  #i = -1;

  constructor() {
    ready();
    const i = newChecker("HistoryChecker");
    this.#i = i;
    checkers?.register(this, i, this);
  }

  #live() {
    if (this.#i < 0) throw freed("HistoryChecker");
    return this.#i;
  }

  /** Checks the next line (without its line ending): `{ malformed, findings }`. */
  check(line) {
    const i = this.#live();
    // A line over 1 MiB of UTF-8 is malformed (the module's checker says so, as for a log), so
    // the argument is held only to the length of a whole history.
    text("line", line, MAX_HISTORY);
    if (line.includes("\n")) throw new RangeError("line must be one line, without a newline");
    if (!wellFormed(line)) throw new RangeError(`line ${UNPAIRED}`);
    return checking("line", i, line, 1, () => {
      if (!W.room_for(3 * line.length)) throw new RangeError(NO_MEMORY);
      return out(G.history_line(i, line));
    });
  }

  /** Totals so far: lines, accepted, rejected, malformed, token regressions, stale owners. */
  get summary() {
    return out(G.history_summary(this.#live()));
  }

  free() {
    if (this.#i >= 0) {
      W.history_drop(this.#i);
      release(`h${this.#i}`);
      checkers?.unregister(this);
      this.#i = -1;
    }
  }
}

const HISTORY_KEYS = ["keep"];

/**
 * Checks a whole write log at once: JSON Lines text, or an array of lines. Keeps the first `keep`
 * findings and malformed lines (default 100).
 */
export function checkHistory(lines, options) {
  ready();
  let history;
  if (Array.isArray(lines)) {
    // Each element is read once: what is checked is what is joined (a getter answers once).
    const copy = Array.from(lines);
    let length = 0;
    copy.forEach((l, k) => {
      text(`lines[${k}]`, l, MAX_HISTORY);
      if (l.includes("\n")) throw new RangeError(`lines[${k}] must be one line, without a newline`);
      if (!wellFormed(l)) throw new RangeError(`lines[${k}] ${UNPAIRED}`);
      length += l.length + 1;
    });
    // The same limit as for the text they make, checked before they are joined.
    if (length > MAX_HISTORY) {
      throw new RangeError(`lines must be at most ${MAX_HISTORY} characters joined by newlines, got ${length}`);
    }
    history = copy.length === 0 ? "" : `${copy.join("\n")}\n`;
  } else {
    history = text("lines", lines, MAX_HISTORY);
    const bad = wellFormed(history) ? null : LONE_SURROGATE.exec(history);
    if (bad !== null) {
      let line = 1;
      for (let nl = history.indexOf("\n"); nl >= 0 && nl < bad.index; nl = history.indexOf("\n", nl + 1)) line++;
      throw new RangeError(`lines: line ${line} ${UNPAIRED}`);
    }
  }
  const o = checkOptions("options", options, HISTORY_KEYS);
  const keep = o.keep === undefined ? 100 : count("options.keep", o.keep, 0, 1_000_000);
  const i = newChecker("checkHistory");
  try {
    // In pieces of whole lines: only a piece is copied into the module at a time, and the memory
    // a piece may take is checked before it is read.
    for (let at = 0; at < history.length; ) {
      let end = at;
      let lines = 0;
      while (end < history.length && lines < HISTORY_LINES && end - at < HISTORY_PIECE) {
        const nl = history.indexOf("\n", end);
        end = nl < 0 ? history.length : nl + 1;
        lines++;
      }
      const piece = history.slice(at, end);
      checking("lines", i, piece, lines, () => {
        if (!W.room_for(3 * piece.length)) throw new RangeError(NO_MEMORY);
        if (!R.history_feed(i, piece, keep)) throw failure();
      });
      at = end;
    }
    // What only the end of a history shows (overlaps still open, acknowledged writes with no
    // final row); a write log has none.
    if (!R.history_finish(i, keep)) throw failure();
    return {
      summary: out(G.history_summary(i)),
      findings: pieces((from) => G.history_more(i, 0, from, REPORT_PIECE)),
      malformed: pieces((from) => G.history_more(i, 1, from, REPORT_PIECE)),
    };
  } finally {
    W.history_drop(i);
    release(`h${i}`);
  }
}

// `using` support where the runtime has Symbol.dispose (Node 20 may not).

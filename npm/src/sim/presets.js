// The named presets and templates, and scenarios given by name.

import { describe, text } from "../common.js";
import { G, ready } from "./instance.js";
import { plainCopy } from "./checks.js";
import { bigReviver, out } from "./json.js";

let presetList = null;
let templateList = null;

export function presetTable() {
  ready();
  presetList ??= out(G.presets());
  return presetList;
}

export function templateTable() {
  ready();
  templateList ??= out(G.templates());
  return templateList;
}

/**
 * Every preset, the paused-worker story first: its name, title, story, scenario, and the
 * invariants it breaks with fencing forced on (`with_fencing`) and off (`without_fencing`).
 * Each call returns fresh objects.
 */
export function presets() {
  return presetTable().map((p) => ({
    name: p.name,
    title: p.title,
    story: p.story,
    scenario: JSON.parse(p.json, bigReviver),
    with_fencing: [...p.with_fencing],
    without_fencing: [...p.without_fencing],
  }));
}

/** The built-in templates (families of scenarios for seed sweeps), with their names. */
export function templates() {
  return templateTable().map((t) => ({ name: t.name, template: JSON.parse(t.json, bigReviver) }));
}

export function presetEntry(argName, name) {
  const p = presetTable().find((x) => x.name === name);
  if (p === undefined) {
    throw new RangeError(
      `${argName}: no preset is named ${describe(name)}; presets: ${presetTable()
        .map((x) => x.name)
        .join(", ")}`,
    );
  }
  return p;
}

/** Plain copies of preset and template files, by their entry in the module's table. */
const fileCopies = new Map();

/** A preset's or template's file as the plain copy the module reads, made once. */
export function fileCopy(argName, entry) {
  let copy = fileCopies.get(entry);
  if (copy === undefined) {
    copy = plainCopy(argName, JSON.parse(entry.json, bigReviver));
    fileCopies.set(entry, copy);
  }
  return copy;
}

/**
 * A scenario argument, a preset's name or a scenario object, as the plain copy the module reads
 * (`plainCopy`'s `{ value, values, chars }`).
 */
export function scenarioArg(argName, v) {
  if (typeof v === "string") return fileCopy(argName, presetEntry(argName, text(argName, v, 256)));
  return plainCopy(argName, v);
}

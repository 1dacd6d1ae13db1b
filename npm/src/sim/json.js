// Values out of the module: numbers, bigints and the CLI's JSON.

import { failure } from "./errors.js";

/** Keys whose integers are seeds, tokens or a history's times (any u64 a storage logged):
 * bigints everywhere the module hands them out. */
export const BIG = new Set(["seed", "first_seed", "first_token", "token", "previous", "highest", "next_token", "newer_token", "earlier_token", "final_token", "holds", "t"]);

/**
 * A value the module handed out (objects it made through serde-wasm-bindgen, every 64-bit integer
 * a bigint), as the package documents it: seeds, tokens and history times (the values of `BIG`
 * keys) bigints, every other number a number. `undefined` means the call failed: its error is
 * thrown.
 */
export function out(v) {
  if (v === undefined) throw failure();
  return numbers(v);
}

/** `v` with the integers of BIG keys bigints and every other integer a number, in place. Only
 * own properties of the module's fresh objects are read and written: no setter runs. */
function numbers(v) {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (typeof x === "object") {
        if (x !== null) numbers(x);
      } else if (typeof x === "bigint") v[i] = Number(x);
    }
    return v;
  }
  for (const key of Object.keys(v)) {
    const x = v[key];
    if (typeof x === "object") {
      if (x !== null) numbers(x);
    } else if (typeof x === "bigint") {
      if (!BIG.has(key)) v[key] = Number(x);
    } else if (typeof x === "number" && BIG.has(key)) v[key] = BigInt(x);
  }
  return v;
}

export function bigReviver(key, v) {
  return typeof v === "number" && BIG.has(key) ? BigInt(v) : v;
}

/**
 * JSON text of a scenario, template, trace or report exactly as the simulator writes it (compact,
 * keys in order, bigints as plain integers): `toJson(run(...).trace)` is byte for byte what
 * `fencepost sim --format json` prints.
 */
export function toJson(value) {
  return value === undefined ? undefined : jsonOf(value);
}

function jsonOf(v) {
  if (typeof v === "bigint") return v.toString();
  // Strings, numbers, booleans and null as JSON.stringify writes them (undefined, a function or
  // a symbol in an array becomes null, as there).
  if (v === null || typeof v !== "object") return JSON.stringify(v) ?? "null";
  if (typeof v.toJSON === "function") return jsonOf(v.toJSON());
  if (Array.isArray(v)) return `[${v.map(jsonOf).join(",")}]`;
  const fields = [];
  for (const key of Object.keys(v)) {
    const x = v[key];
    if (x !== undefined && typeof x !== "function" && typeof x !== "symbol") {
      fields.push(`${JSON.stringify(key)}:${jsonOf(x)}`);
    }
  }
  return `{${fields.join(",")}}`;
}

// Checking arguments and copying them into plain data.

import { U64_MAX, describe } from "../common.js";
import { MAX_DEPTH, MAX_STRING, MAX_VALUES } from "./limits.js";
import { BIG } from "./json.js";

/** A whole number in `min..=max` (both safe integers). */
export function count(argName, v, min, max, why = "") {
  if (typeof v !== "number") throw new TypeError(`${argName} must be a number, got ${describe(v)}`);
  if (!Number.isSafeInteger(v) || v < min || v > max) {
    throw new RangeError(`${argName} must be a whole number from ${min} to ${max}${why}, got ${describe(v)}`);
  }
  return v;
}

/** Why the largest sweep and search limits are what they are. */
export const MEMORY_BOUND = " (the most the simulator's memory can hold)";

/** A seed: a number or bigint from 0 to 2^64 - 1, as a bigint. */
export function seed(argName, v) {
  if (typeof v === "number") {
    if (!Number.isSafeInteger(v) || v < 0) {
      throw new RangeError(`${argName} must be a whole number from 0 to 2^53 - 1 or a bigint, got ${describe(v)}`);
    }
    return BigInt(v);
  }
  if (typeof v !== "bigint") throw new TypeError(`${argName} must be a number or a bigint, got ${describe(v)}`);
  if (BigInt.asUintN(64, v) !== v) throw new RangeError(`${argName} must be between 0n and ${U64_MAX}n, got ${describe(v)}`);
  return v;
}

export function flag(argName, v) {
  if (typeof v !== "boolean") throw new TypeError(`${argName} must be a boolean, got ${describe(v)}`);
  return v;
}

function isPlainObject(v) {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** A UTF-16 surrogate without its other half: no JSON reader takes it. */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** Why a history line with one is refused: it would reach the module as U+FFFD, so that two
 * different names could be read as one. */
export const UNPAIRED = "must be well-formed Unicode, but has a lone surrogate";

/** Whether `s` has no lone surrogate (String#isWellFormed where the runtime has it: faster). */
export function wellFormed(s) {
  return typeof String.prototype.isWellFormed === "function" ? s.isWellFormed() : !LONE_SURROGATE.test(s);
}

/**
 * A copy of `value` that holds only plain data (objects without a prototype, dense arrays,
 * strings, finite numbers, bigints, booleans and null), with keys whose value is undefined left
 * out as JSON does: no getter, proxy, cycle or exotic object of the caller's reaches the module,
 * and reading it there runs no JavaScript. Each property is read once; an exception a getter or
 * proxy throws becomes a TypeError naming the field. Returns `{ value, values, chars }`: the copy,
 * how many values it holds and how many characters its keys and strings have (the module makes
 * room for reading it from those).
 */
export function plainCopy(argName, value) {
  let values = 0;
  let chars = 0;
  /** `f()`, with an exception of the caller's code turned into a TypeError about `path`. */
  const reading = (path, f) => {
    try {
      return f();
    } catch (e) {
      throw new TypeError(`${path} could not be read: ${e instanceof Error ? e.message : describe(e)}`);
    }
  };
  const copy = (v, path, depth, key) => {
    if (++values > MAX_VALUES) throw new RangeError(`${argName} holds more than ${MAX_VALUES} values`);
    switch (typeof v) {
      case "string":
        if (v.length > MAX_STRING) throw new RangeError(`${path} must be at most ${MAX_STRING} characters long`);
        if (LONE_SURROGATE.test(v)) throw new RangeError(`${path} must be well-formed Unicode, but has a lone surrogate`);
        chars += v.length;
        return v;
      case "number":
        if (!Number.isFinite(v)) throw new RangeError(`${path} must be a finite number, got ${v}`);
        return v;
      case "bigint":
        if (BIG.has(key) ? BigInt.asUintN(64, v) !== v : v < -(2n ** 63n) || v > U64_MAX) {
          const least = BIG.has(key) ? "0n" : "-2n ** 63n";
          throw new RangeError(`${path} must be between ${least} and ${U64_MAX}n, got ${describe(v)}`);
        }
        return v;
      case "boolean":
        return v;
      case "object":
        if (v === null) return null;
        if (depth >= MAX_DEPTH) throw new RangeError(`${path} is nested deeper than ${MAX_DEPTH} levels`);
        if (reading(path, () => Array.isArray(v))) {
          const n = reading(path, () => v.length);
          const out = new Array(n);
          for (let i = 0; i < n; i++) {
            const x = reading(`${path}[${i}]`, () => v[i]);
            if (x === undefined) throw new TypeError(`${path}[${i}] must not be undefined`);
            out[i] = copy(x, `${path}[${i}]`, depth + 1, key);
          }
          return out;
        }
        if (!reading(path, () => isPlainObject(v))) throw new TypeError(`${path} must be a plain object, got ${describe(v)}`);
        {
          const out = Object.create(null);
          for (const key of reading(path, () => Object.keys(v))) {
            const x = reading(`${path}.${key}`, () => v[key]);
            if (x !== undefined) {
              chars += key.length;
              out[key] = copy(x, `${path}.${key}`, depth + 1, key);
            }
          }
          return out;
        }
      default:
        throw new TypeError(`${path} must be plain data, got ${describe(v)}`);
    }
  };
  if (!reading(argName, () => isPlainObject(value))) throw new TypeError(`${argName} must be an object, got ${describe(value)}`);
  const copied = copy(value, argName, 0, "");
  return { value: copied, values, chars };
}

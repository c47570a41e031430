/** Parses JSON text; returns `undefined` instead of throwing. The project's JSON entry point for untrusted text. */
export function tryParseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * True when `text` starts (after JSON whitespace) like a JSON object or array: the cheap check a relayed
 * answer passes before it is sent on as `application/json` (an HTML page or a truncated nothing does not).
 */
export function startsLikeJson(text: string | Uint8Array): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = typeof text === 'string' ? text.charCodeAt(i) : text[i]!;
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    return c === 0x7b || c === 0x5b;
  }
  return false;
}

/** True for a plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON with object keys sorted at every level: equal values give equal strings (cache keys, config hashes). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = value[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

/** The text of `bytes[start, end)`: a Buffer decodes the range itself, without a view of it (measured: ~100 against ~170 ns for a usage block). */
function utf8Of(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.isBuffer(bytes)
    ? bytes.toString('utf8', start, end)
    : Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('utf8');
}

/** What `topLevelMember` answers when it cannot tell (not an object, malformed, escaped key): parse it whole instead. */
export const UNKNOWN_MEMBER: unique symbol = Symbol('unknown member');

/**
 * The value of the top-level member `name` of a JSON object held as UTF-8 bytes, without parsing the
 * rest (a usage block at the end of a passthrough answer): only the member's own text is parsed, or read by
 * `readValue` when that knows its form (it answers undefined otherwise, and the text is parsed).
 * `undefined` when the object has no such member; the last one wins, as with JSON.parse. Answers
 * `UNKNOWN_MEMBER` when the text is not a plain object it can walk.
 */
export function topLevelMember(
  bytes: Uint8Array,
  name: string,
  readValue?: (bytes: Uint8Array, start: number, end: number) => unknown,
): unknown {
  const at = lastMemberBounds(bytes, name);
  if (at) {
    const known = readValue?.(bytes, at[1], at[2]);
    if (known !== undefined) return known;
    try {
      return JSON.parse(utf8Of(bytes, at[1], at[2]));
    } catch {
      // Not a value after all: walk the whole object.
    }
  }
  ONE[0] = name;
  const found = topLevelMembers(bytes, ONE);
  return found === UNKNOWN_MEMBER ? found : found[0];
}

/** `"name"` as bytes, and its skip table for `lastIndexBefore`, per member name asked for (names come from the code: a handful). */
const QUOTED_NAMES = new Map<string, { bytes: Buffer; skip: Uint8Array }>();

function quotedName(name: string): { bytes: Buffer; skip: Uint8Array } {
  let found = QUOTED_NAMES.get(name);
  if (!found) {
    const bytes = Buffer.from(`"${name}"`);
    // How far the window may move back when its first byte is `c`: to the nearest later place of `c` in the needle.
    const skip = new Uint8Array(256).fill(Math.min(bytes.length, 255));
    for (let j = Math.min(bytes.length, 255) - 1; j >= 1; j--) skip[bytes[j]!] = j;
    QUOTED_NAMES.set(name, (found = { bytes, skip }));
  }
  return found;
}

/**
 * The index of the last occurrence of `needle` ending before `end`, or -1: Horspool's search run backwards
 * (a window moves back by the skip of its first byte). Written here because `Buffer#lastIndexOf` costs a
 * native call and searches from the end of the buffer: ~2× slower for the few hundred bytes of a usage block.
 */
function lastIndexBefore(b: Uint8Array, needle: { bytes: Buffer; skip: Uint8Array }, end: number): number {
  const n = needle.bytes;
  const m = n.length;
  const first = n[0];
  for (let s = end - m; s >= 0; s -= needle.skip[b[s]!]!) {
    if (b[s] !== first) continue;
    let k = 1;
    while (k < m && b[s + k] === n[k]) k++;
    if (k === m) return s;
  }
  return -1;
}

/**
 * Where the member `name` lies (`[key, start, end)`: its key's opening quote, then its value) when it is
 * the object's last member of that name and only scalar members follow it (OpenAI's `usage`, followed by
 * `service_tier` and `system_fingerprint`), found from the end without walking what comes before it: a walk
 * back from the closing brace over the scalar members after it, then, for a value ending in a bracket, a
 * search back from that bracket for `"name"`. Undefined when it cannot tell (no such text, a nested value
 * or an escaped key after it, anything unexpected): the caller walks the whole object then. A value ending
 * in a bracket is taken to run from after the colon to that bracket; the caller's `JSON.parse` of that
 * text proves it one value, hence the member's own (a nested `"name"` key would leave its enclosing brackets
 * in that text). The text before the member is not checked.
 */
export function lastMemberBounds(b: Uint8Array, name: string): [number, number, number] | undefined {
  const needle = quotedName(name);
  let p = skipWsBack(b, b.length - 1);
  if (b[p] !== 0x7d) return undefined;
  p = skipWsBack(b, p - 1);
  for (;;) {
    // `p` is the last byte of a member's value.
    if (p <= 0) return undefined;
    const c = b[p]!;
    if (c === 0x7d || c === 0x5d) {
      const key = lastIndexBefore(b, needle, p);
      if (key <= 0 || b[key - 1] === 0x5c) return undefined;
      const colon = skipWs(b, key + needle.bytes.length);
      if (b[colon] !== 0x3a) return undefined;
      const start = skipWs(b, colon + 1);
      return start <= p ? [key, start, p + 1] : undefined;
    }
    let valueStart: number;
    if (c === 0x22) {
      valueStart = openingQuote(b, p);
      if (valueStart < 0) return undefined;
    } else {
      valueStart = p;
      while (valueStart > 0 && isScalarByte(b[valueStart - 1]!)) valueStart--;
    }
    // Before the value: a colon, then a key without escapes (the one asked for, or a comma before it).
    let i = skipWsBack(b, valueStart - 1);
    if (b[i] !== 0x3a) return undefined;
    i = skipWsBack(b, i - 1);
    if (b[i] !== 0x22) return undefined;
    const keyStart = openingQuote(b, i);
    if (keyStart <= 0) return undefined;
    for (let k = keyStart + 1; k < i; k++) if (b[k] === 0x5c) return undefined;
    if (i - keyStart - 1 === name.length && sameAscii(b, keyStart + 1, name)) return [keyStart, valueStart, p + 1];
    i = skipWsBack(b, keyStart - 1);
    if (b[i] !== 0x2c) return undefined;
    p = skipWsBack(b, i - 1);
  }
}

/** The index of the quote opening the string whose closing quote is at `end`, or -1. */
function openingQuote(b: Uint8Array, end: number): number {
  for (let q = end - 1; q >= 0; q--) {
    if (b[q] !== 0x22) continue;
    let slashes = 0;
    while (q - 1 - slashes >= 0 && b[q - 1 - slashes] === 0x5c) slashes++;
    if (slashes % 2 === 0) return q;
  }
  return -1;
}

/** Bytes of a number, `true`, `false` or `null`. */
function isScalarByte(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x45;
}

/** The index of the last byte at or before `i` that is not JSON whitespace (-1 when there is none). */
export function skipWsBack(b: Uint8Array, i: number): number {
  while (i >= 0 && (b[i] === 0x20 || b[i] === 0x0a || b[i] === 0x0d || b[i] === 0x09)) i--;
  return i;
}

/** The names array of `topLevelMember` (reused: it is read only during the synchronous walk). */
const ONE: string[] = [''];

/**
 * The values of several top-level members in one walk over the bytes (`topLevelMember` for each name, in
 * the order of `names`; undefined for an absent one), or `UNKNOWN_MEMBER` when the text cannot be walked.
 */
export function topLevelMembers(bytes: Uint8Array, names: readonly string[]): unknown[] | typeof UNKNOWN_MEMBER {
  const found = topLevelBounds(bytes, names);
  if (found === UNKNOWN_MEMBER) return found;
  const values: unknown[] = new Array(names.length);
  for (let j = 0; j < names.length; j++) {
    const at = found[j];
    if (!at) continue;
    try {
      values[j] = JSON.parse(utf8Of(bytes, at[0], at[1]));
    } catch {
      return UNKNOWN_MEMBER;
    }
  }
  return values;
}

/**
 * Where the values of top-level members lie in the bytes of a JSON object (`[start, end)` per name, in the
 * order of `names`; undefined for an absent one; the last of duplicates), found in one walk without
 * parsing any value, or `UNKNOWN_MEMBER` when the text cannot be walked (as `topLevelMembers`). The walk
 * checks the object's structure (keys, colons, commas, balanced brackets, closed strings), not that every
 * value is valid JSON.
 */
export function topLevelBounds(bytes: Uint8Array, names: readonly string[]): Array<[number, number] | undefined> | typeof UNKNOWN_MEMBER {
  const n = bytes.length;
  let i = skipWs(bytes, 0);
  if (bytes[i] !== 0x7b) return UNKNOWN_MEMBER;
  i = skipWs(bytes, i + 1);
  const found: Array<[number, number] | undefined> = new Array(names.length);
  if (bytes[i] !== 0x7d) {
    for (;;) {
      if (bytes[i] !== 0x22) return UNKNOWN_MEMBER;
      const keyStart = i + 1;
      let k = keyStart;
      while (k < n && bytes[k] !== 0x22) {
        if (bytes[k] === 0x5c) return UNKNOWN_MEMBER; // an escaped key: let JSON.parse decide
        k++;
      }
      if (k >= n) return UNKNOWN_MEMBER;
      let which = -1;
      for (let j = 0; j < names.length; j++) {
        if (k - keyStart === names[j]!.length && sameAscii(bytes, keyStart, names[j]!)) {
          which = j;
          break;
        }
      }
      i = skipWs(bytes, k + 1);
      if (bytes[i] !== 0x3a) return UNKNOWN_MEMBER;
      const valueStart = skipWs(bytes, i + 1);
      const valueEnd = skipValue(bytes, valueStart);
      if (valueEnd < 0) return UNKNOWN_MEMBER;
      if (which >= 0) found[which] = [valueStart, valueEnd];
      i = skipWs(bytes, valueEnd);
      if (bytes[i] === 0x2c) {
        i = skipWs(bytes, i + 1);
        continue;
      }
      if (bytes[i] !== 0x7d) return UNKNOWN_MEMBER;
      break;
    }
  }
  return found;
}

/** Whether the bytes at `at` are `name`'s characters (compared code by code: no string is built per key). */
function sameAscii(b: Uint8Array, at: number, name: string): boolean {
  for (let j = 0; j < name.length; j++) if (b[at + j] !== name.charCodeAt(j)) return false;
  return true;
}

/** The index of the first byte at or after `i` that is not JSON whitespace (space, tab, CR, LF). */
export function skipWs(b: Uint8Array, i: number): number {
  while (i < b.length && (b[i] === 0x20 || b[i] === 0x0a || b[i] === 0x0d || b[i] === 0x09)) i++;
  return i;
}

/**
 * The index of the quote closing a string whose text starts at `i`, or -1. Quotes are found with
 * `indexOf` (native, not a loop over every byte of the text); a quote preceded by an odd number of
 * backslashes is escaped and skipped.
 */
function stringEnd(b: Uint8Array, i: number): number {
  for (;;) {
    const q = b.indexOf(0x22, i);
    if (q < 0) return -1;
    let slashes = 0;
    while (q - 1 - slashes >= i && b[q - 1 - slashes] === 0x5c) slashes++;
    if (slashes % 2 === 0) return q;
    i = q + 1;
  }
}

/** End (exclusive) of the JSON value starting at `i`, or -1: strings skipped with their escapes, brackets counted. */
function skipValue(b: Uint8Array, i: number): number {
  const n = b.length;
  let depth = 0;
  while (i < n) {
    const c = b[i]!;
    if (c === 0x22) {
      i = stringEnd(b, i + 1);
      if (i < 0) return -1;
      i++;
      if (depth === 0) return i;
      continue;
    }
    if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (depth === 0) return i; // the enclosing object's end: a scalar value just ended
      depth--;
      if (depth === 0) return i + 1;
    } else if (depth === 0 && (c === 0x2c || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) return i;
    i++;
  }
  return depth === 0 ? i : -1;
}

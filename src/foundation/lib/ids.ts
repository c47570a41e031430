import { randomBytes } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

const POOL_SIZE = 8192;
let pool = randomBytes(POOL_SIZE);
let offset = 0;

/** Where `n` unused secure random bytes begin in `pool` (refilled when used up); at most `POOL_SIZE`. */
function takeRandom(n: number): number {
  if (offset + n > POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  const at = offset;
  offset += n;
  return at;
}

/** The text of the id being written by `randomId`, `prefixedId` or `timeOrderedId` (grown for longer ones). */
let ID_TEXT = Buffer.alloc(64);
/** The character code of each alphabet letter. */
const ALPHABET_CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
/** The character codes of the base-36 digits, `0-9a-z`. */
const BASE36_CODES = Uint8Array.from('0123456789abcdefghijklmnopqrstuvwxyz', (c) => c.charCodeAt(0));

/** Room for an id of `n` characters in `ID_TEXT`. */
function idText(n: number): Buffer {
  if (ID_TEXT.length < n) ID_TEXT = Buffer.alloc(2 * n);
  return ID_TEXT;
}

/**
 * Writes the ASCII `prefix` into `text` from 0 and returns its length, or -1 when a character is past ASCII
 * (the caller then concatenates).
 */
function writePrefix(text: Buffer, prefix: string): number {
  for (let i = 0; i < prefix.length; i++) {
    const c = prefix.charCodeAt(i);
    if (c > 0x7f) return -1;
    text[i] = c;
  }
  return prefix.length;
}

/** `length` alphanumerics from the pooled secure random bytes, written into `text` from `at`. */
function writeRandom(text: Buffer, at: number, length: number): void {
  const from = takeRandom(length);
  for (let i = 0; i < length; i++) text[at + i] = ALPHABET_CODES[pool[from + i]! % ALPHABET.length]!;
}

/**
 * A random id of `length` alphanumerics, drawn from a pooled buffer of secure random bytes (at most
 * `POOL_SIZE`). Written into a buffer and read back as one flat string, as `uuid`: built by `+=`, a character
 * at a time, it cost a string per character and a flattening wherever it was read.
 */
export function randomId(length = 24): string {
  const text = idText(length);
  writeRandom(text, 0, length);
  return text.toString('latin1', 0, length);
}

/** A prefixed id such as `chatcmpl-…`, `file-…`, `batch_…` (decisions.md, "Identifiers"), as one flat string. */
export function prefixedId(prefix: string, length = 24): string {
  const text = idText(prefix.length + length);
  const at = writePrefix(text, prefix);
  if (at < 0) return prefix + randomId(length);
  writeRandom(text, at, length);
  return text.toString('latin1', 0, at + length);
}

/** 36^4: a time-ordered id's last four clock digits are the clock modulo this. */
const LOW_DIGITS_SPAN = 36 ** 4;

/**
 * A prefixed id whose text sorts by creation time: 9 base-36 digits of the millisecond clock (more after
 * the year 5138), then 15 random alphanumerics (24 characters after the prefix, like `prefixedId`). Rows
 * keyed by such ids are appended at the end of the primary-key index instead of at random places in it
 * (request log inserts on SQLite: about 18 µs per row with random ids, 5 µs with these). One flat string,
 * written into a buffer (as `randomId`). A clock past 2^53 ms (after the year 287,000) is written as 2^53 - 1.
 */
export function timeOrderedId(prefix: string, nowMs = Date.now()): string {
  const t = Math.min(Math.max(0, Math.floor(nowMs)), Number.MAX_SAFE_INTEGER);
  let digits = 9;
  for (let rest = Math.floor(t / 36 ** 9); rest > 0; rest = Math.floor(rest / 36)) digits++;
  const text = idText(prefix.length + digits + 15);
  const at = writePrefix(text, prefix);
  if (at < 0) return prefix + timeOrderedId('', nowMs);
  // The clock is a double past 2^31: split into its last four digits and the rest, its digits are cut from integers
  // V8 divides as such (a double's `%` and division by 36 per digit took ~1,000 instructions per id, callgrind).
  let high = Math.floor(t / LOW_DIGITS_SPAN);
  let low = t - high * LOW_DIGITS_SPAN;
  let i = at + digits - 1;
  for (const lowEnd = i - 4; i > lowEnd; i--) {
    text[i] = BASE36_CODES[low % 36]!;
    low = (low / 36) | 0;
  }
  // `high` is below 2^53 / 36^4 (< 2^33): after one division by 36 it is a small integer.
  for (; i >= at; i--) {
    text[i] = BASE36_CODES[high % 36]!;
    high = (high / 36) | 0;
  }
  writeRandom(text, at + digits, 15);
  return text.toString('latin1', 0, at + digits + 15);
}

/** The 36 characters of the id being written. */
const UUID_TEXT = Buffer.alloc(36);
/** Two hexadecimal digits (character codes) per byte value. */
const HEX_PAIRS = new Uint8Array(512);
for (let v = 0; v < 256; v++) {
  const pair = v.toString(16).padStart(2, '0');
  HEX_PAIRS[2 * v] = pair.charCodeAt(0);
  HEX_PAIRS[2 * v + 1] = pair.charCodeAt(1);
}

/**
 * A random UUID v4 (request ids, policies, workspaces, keys). Written into a buffer and read back as one
 * flat string: Node's `randomUUID` joins 20 pieces, a string V8 must flatten wherever it is read by
 * character (every response carries one as `x-gateway-request-id`, whose value Node checks with a
 * regular expression: ~2,000 instructions per request more, measured with callgrind).
 */
export function uuid(): string {
  const at = takeRandom(16);
  let out = 0;
  for (let i = 0; i < 16; i++) {
    let v = pool[at + i]!;
    if (i === 6)
      v = (v & 0x0f) | 0x40; // version 4
    else if (i === 8) v = (v & 0x3f) | 0x80; // RFC 9562 variant
    if (i === 4 || i === 6 || i === 8 || i === 10) UUID_TEXT[out++] = 0x2d;
    UUID_TEXT[out++] = HEX_PAIRS[2 * v]!;
    UUID_TEXT[out++] = HEX_PAIRS[2 * v + 1]!;
  }
  return UUID_TEXT.toString('latin1', 0, 36);
}

/** The text of the hex id being written (16 bytes at most: a trace id). */
const HEX_TEXT = Buffer.alloc(32);

/**
 * `bytes` secure random bytes as lower-case hex (OpenTelemetry trace ids: 16, span ids: 8), drawn from the
 * pooled buffer and read back as one flat string (as `uuid`). At most 16 bytes.
 */
export function randomHex(bytes: number): string {
  const at = takeRandom(bytes);
  for (let i = 0; i < bytes; i++) {
    const v = pool[at + i]!;
    HEX_TEXT[2 * i] = HEX_PAIRS[2 * v]!;
    HEX_TEXT[2 * i + 1] = HEX_PAIRS[2 * v + 1]!;
  }
  return HEX_TEXT.toString('latin1', 0, 2 * bytes);
}

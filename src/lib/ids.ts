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

/** A random id of `length` alphanumerics, drawn from a pooled buffer of secure random bytes. */
export function randomId(length = 24): string {
  const at = takeRandom(length);
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[pool[at + i]! % ALPHABET.length];
  return out;
}

/** A prefixed id such as `chatcmpl-…`, `file-…`, `batch_…` (decisions.md, "Identifiers"). */
export function prefixedId(prefix: string, length = 24): string {
  return prefix + randomId(length);
}

/**
 * A prefixed id whose text sorts by creation time: 9 base-36 digits of the millisecond clock, then
 * 15 random alphanumerics (24 characters after the prefix, like `prefixedId`). Rows keyed by such ids
 * are appended at the end of the primary-key index instead of at random places in it (request log
 * inserts on SQLite: about 18 µs per row with random ids, 5 µs with these).
 */
export function timeOrderedId(prefix: string, nowMs = Date.now()): string {
  return prefix + Math.max(0, Math.floor(nowMs)).toString(36).padStart(9, '0') + randomId(15);
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
    if (i === 6) v = (v & 0x0f) | 0x40; // version 4
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

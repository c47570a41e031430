import { SseDecoder, type SseEvent } from '../../foundation/lib/sse.js';

/**
 * Byte-level SSE framing for passthrough streams: where frames end, and the frames that mention a
 * member, found with native byte searches instead of decoding and parsing every frame. A frame ends
 * with a blank line: a line feed followed by another line ending (`\n\n`, `\r\n\r\n`, `\n\r\n`,
 * `\r\n\n`). Streams that end lines with a bare carriage return are left to the full decoder.
 */

const LF = 0x0a;
const CR = 0x0d;
/** The bytes held when none are: one shared empty buffer, not a new one per chunk. */
export const EMPTY = Buffer.alloc(0);
const NO_EVENTS: SseEvent[] = [];

/** `bytes` as a Buffer without copying: the upstream's chunks are Buffers already and are taken as they are (a view per chunk is ~100 bytes of garbage). */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

/** The end (exclusive, after its blank line) of the first frame ending at or after `from`, at most `limit`; `limit` when none ends before it. */
export function frameEnd(buf: Uint8Array, from: number, limit = buf.length): number {
  for (let i = buf.indexOf(LF, from); i >= 0 && i < limit; i = buf.indexOf(LF, i + 1)) {
    if (buf[i + 1] === LF) return Math.min(i + 2, limit);
    if (buf[i + 1] === CR && buf[i + 2] === LF) return Math.min(i + 3, limit);
  }
  return limit;
}

/** The start of the frame holding byte `at`: just after the blank line before it, or 0. */
export function frameStart(buf: Uint8Array, at: number): number {
  for (let i = at - 1; i > 0; i--) {
    i = buf.lastIndexOf(LF, i);
    if (i <= 0) return 0;
    // `i` ends a blank line when the line before it ended right there (`\n\n`, `\n\r\n`).
    if (buf[i - 1] === LF) return i + 1;
    if (buf[i - 1] === CR && buf[i - 2] === LF) return i + 1;
  }
  return 0;
}

/** The end (exclusive, after its blank line) of the last complete frame in `buf`, or 0. */
export function lastFrameEnd(buf: Uint8Array): number {
  for (let i = buf.length - 1; i > 0; i--) {
    i = buf.lastIndexOf(LF, i);
    if (i <= 0) return 0;
    if (buf[i - 1] === LF) return i + 1;
    if (buf[i - 1] === CR && buf[i - 2] === LF) return i + 1;
  }
  return 0;
}

const SPACE = 0x20;
const TAB = 0x09;
const COLON = 0x3a;
const NULL_BYTES = Buffer.from('null');

/**
 * Whether the JSON member name of `nameLength` bytes at `at` (e.g. `"usage"`) is followed, on the same
 * line, by `: null`: such a mention holds nothing to read (OpenAI streams with `include_usage` carry
 * `"usage":null` in every chunk but the last), so its frame need not be decoded. Anything else —
 * an object, or a value on the next `data:` line — counts as a mention.
 */
export function memberIsNull(buf: Uint8Array, at: number, nameLength: number): boolean {
  let i = at + nameLength;
  while (buf[i] === SPACE || buf[i] === TAB) i++;
  if (buf[i] !== COLON) return false;
  i++;
  while (buf[i] === SPACE || buf[i] === TAB) i++;
  for (let k = 0; k < 4; k++) if (buf[i + k] !== NULL_BYTES[k]) return false;
  return true;
}

/**
 * The first index at or after `from` of `needle` in `buf`, or -1, for a needle whose first byte is
 * common in the text (the quote of a JSON member name, `"usage"`): the rest of the needle is searched
 * for (its first byte, `u`, is rare in JSON; a search led by `"` stops at every quote of every chunk)
 * and the byte before it checked.
 */
export function indexOfQuoted(buf: Buffer, needle: Buffer, tail: Buffer, from = 0): number {
  for (let i = buf.indexOf(tail, from + 1); i >= 0; i = buf.indexOf(tail, i + 1)) {
    if (buf[i - 1] === needle[0]) return i - 1;
  }
  return -1;
}

/** Whether a frame's JSON text may hold a `"usage"` member whose value is an object (`"usage":null` does not). */
export function mayHaveUsage(data: string): boolean {
  for (let at = data.indexOf('"usage"'); at >= 0; at = data.indexOf('"usage"', at + 7)) {
    let i = at + 7;
    while (i < data.length && (data[i] === ' ' || data[i] === ':' || data[i] === '\n' || data[i] === '\r' || data[i] === '\t')) i++;
    if (data[i] === '{') return true;
  }
  return false;
}

/** Bytes held for an unterminated frame beyond which the scanner hands the stream to the full decoder. */
const MAX_HELD = 64 * 1024;

/** A needle's bytes, and its bytes after the first (what `indexOfQuoted` searches for). */
interface Needle {
  bytes: Buffer;
  tail: Buffer;
}

/**
 * The SSE events of a passthrough byte stream whose frames mention one of `needles` (e.g. `"usage"`),
 * and optionally its first event: each chunk is searched for the needles as bytes, and only the frames
 * holding one are decoded and parsed (by {@link SseDecoder}, so their fields read exactly as the full
 * decoder reads them), each once and in stream order. Bytes after the last complete frame wait for the
 * next chunk. Events of other frames are never produced: an observer of `usage` only
 * (`StreamObserver.usageOnly`) or of a few members (`StreamObserver.chunksWith`) needs no others. A
 * stream that holds more than 64 KiB without a frame end (bare carriage-return line endings, one huge
 * frame) is decoded in full from then on.
 */
export class FramesMentioning {
  private readonly needles: Needle[];
  private held: Buffer = EMPTY;
  private full?: SseDecoder;

  /**
   * @param needles the bytes a frame must hold one of to be decoded (a string: one needle).
   * @param skipNull a mention followed by `: null` does not count (see {@link memberIsNull}): for
   *   needles that are member names whose `null` value the reader ignores.
   * @param first also decode frames from the stream's start until one yields an event (the first chunk,
   *   whatever it mentions).
   */
  constructor(
    needles: string | readonly string[],
    private readonly skipNull = false,
    private first = false,
  ) {
    this.needles = (typeof needles === 'string' ? [needles] : needles).map((n) => {
      const bytes = Buffer.from(n);
      return { bytes, tail: bytes.subarray(1) };
    });
  }

  push(bytes: Uint8Array): SseEvent[] {
    if (this.full) return this.full.push(bytes);
    const chunk = asBuffer(bytes);
    const buf = this.held.length ? Buffer.concat([this.held, chunk]) : chunk;
    const end = lastFrameEnd(buf);
    this.held = end === buf.length ? EMPTY : Buffer.from(buf.subarray(end));
    let events = NO_EVENTS;
    if (end > 0) {
      // The first frames come first (they start the bytes), decoded until one yields an event.
      // Arrays only once a frame is found: most chunks of a stream mention no needle.
      let taken: number[] | undefined;
      for (let at = 0; this.first && at < end;) {
        const stop = frameEnd(buf, at, end);
        events = new SseDecoder().push(buf.subarray(at, stop));
        if (events.length) this.first = false;
        (taken ??= []).push(at);
        at = stop;
      }
      // Then the frames mentioning a needle, each once ([start, stop) pairs), in stream order.
      let frames: Array<[number, number]> | undefined;
      for (const needle of this.needles) {
        for (let at = this.find(buf, needle, 0); at >= 0 && at < end;) {
          if (this.skipNull && memberIsNull(buf, at, needle.bytes.length)) {
            at = this.find(buf, needle, at + needle.bytes.length);
            continue;
          }
          const start = frameStart(buf, at);
          const stop = frameEnd(buf, at, end);
          if (!taken?.includes(start)) {
            (taken ??= []).push(start);
            (frames ??= []).push([start, stop]);
          }
          at = this.find(buf, needle, stop);
        }
      }
      if (frames) {
        if (frames.length > 1) frames.sort((x, y) => x[0] - y[0]);
        for (const [start, stop] of frames) {
          const found = new SseDecoder().push(buf.subarray(start, stop));
          events = events.length === 0 ? found : events.concat(found);
        }
      }
    }
    if (this.held.length > MAX_HELD) {
      this.full = new SseDecoder();
      const rest = this.full.push(this.held);
      this.held = EMPTY;
      return events.length === 0 ? rest : events.concat(rest);
    }
    return events;
  }

  private find(buf: Buffer, needle: Needle, from: number): number {
    return needle.bytes.length > 1 ? indexOfQuoted(buf, needle.bytes, needle.tail, from) : buf.indexOf(needle.bytes, from);
  }
}

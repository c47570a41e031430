import { SseDecoder, type SseEvent } from '../lib/sse.js';

/**
 * Byte-level SSE framing for passthrough streams: where frames end, and the frames that mention a
 * member, found with native byte searches instead of decoding and parsing every frame. A frame ends
 * with a blank line: a line feed followed by another line ending (`\n\n`, `\r\n\r\n`, `\n\r\n`,
 * `\r\n\n`). Streams that end lines with a bare carriage return are left to the full decoder.
 */

const LF = 0x0a;
const CR = 0x0d;
const EMPTY = Buffer.alloc(0);
const NO_EVENTS: SseEvent[] = [];

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

/** Bytes held for an unterminated frame beyond which the scanner hands the stream to the full decoder. */
const MAX_HELD = 64 * 1024;

/**
 * The SSE events of a passthrough byte stream whose frames mention `needle` (e.g. `"usage"`): each
 * chunk is searched for it as bytes, and only the frames holding it are decoded and parsed (by
 * {@link SseDecoder}, so their fields read exactly as the full decoder reads them). Bytes after the last
 * complete frame wait for the next chunk. Events of frames that do not mention `needle` are never
 * produced: an observer of `usage` only (`StreamObserver.usageOnly`) needs no others. A stream that
 * holds more than 64 KiB without a frame end (bare carriage-return line endings, one huge frame) is
 * decoded in full from then on.
 */
export class FramesMentioning {
  private readonly needle: Buffer;
  private held: Buffer = EMPTY;
  private full?: SseDecoder;

  constructor(needle: string) {
    this.needle = Buffer.from(needle);
  }

  push(bytes: Uint8Array): SseEvent[] {
    if (this.full) return this.full.push(bytes);
    const chunk = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    const buf = this.held.length ? Buffer.concat([this.held, chunk]) : chunk;
    const end = lastFrameEnd(buf);
    this.held = end === buf.length ? EMPTY : Buffer.from(buf.subarray(end));
    let events = NO_EVENTS;
    for (let at = end > 0 ? buf.indexOf(this.needle) : -1; at >= 0 && at < end; ) {
      const start = frameStart(buf, at);
      const stop = frameEnd(buf, at, end);
      const found = new SseDecoder().push(buf.subarray(start, stop));
      events = events === NO_EVENTS ? found : events.concat(found);
      at = buf.indexOf(this.needle, stop);
    }
    if (this.held.length > MAX_HELD) {
      this.full = new SseDecoder();
      const rest = this.full.push(this.held);
      this.held = EMPTY;
      return events === NO_EVENTS ? rest : events.concat(rest);
    }
    return events;
  }
}

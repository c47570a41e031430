import { isObject, tryParseJson } from '../lib/json.js';

const LF_LF = Buffer.from('\n\n');
const CRLF_CRLF = Buffer.from('\r\n\r\n');

/** The end (exclusive, after its blank line) of the last complete SSE frame in `buf`, or 0. */
function lastFrameEnd(buf: Buffer): number {
  const lf = buf.lastIndexOf(LF_LF);
  const crlf = buf.lastIndexOf(CRLF_CRLF);
  return Math.max(lf < 0 ? 0 : lf + 2, crlf < 0 ? 0 : crlf + 4);
}

/** Whether one SSE frame is an OpenAI usage-only chunk (`choices: []` and a `usage` object). */
function isUsageFrame(frame: string): boolean {
  if (!frame.includes('"usage"')) return false;
  const data = frame
    .split(/\r?\n/)
    .filter((l) => l.startsWith('data:'))
    .map((l) => l.slice(5).trimStart())
    .join('\n');
  const v = tryParseJson(data);
  return isObject(v) && Array.isArray(v.choices) && v.choices.length === 0 && isObject(v.usage);
}

/**
 * Drops the usage-only chunk from an OpenAI-framed byte stream whose usage the gateway asked for on the
 * client's behalf (`addsStreamUsage`); every other byte passes unchanged. Bytes are held only up to
 * the end of the last complete frame, and only frames that mention `"usage"` are parsed.
 */
export class UsageFrameStripper {
  private held: Buffer = Buffer.alloc(0);

  /** Feeds upstream bytes; returns the bytes to send now (possibly empty). */
  push(bytes: Uint8Array): Uint8Array {
    const buf = this.held.length ? Buffer.concat([this.held, bytes]) : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    const end = lastFrameEnd(buf);
    this.held = Buffer.from(buf.subarray(end));
    if (end === 0) return new Uint8Array(0);
    const complete = buf.subarray(0, end);
    if (!complete.includes('"usage"')) return complete;
    const text = complete.toString('utf8');
    const frames = text.split(/(?<=\r?\n\r?\n)/);
    return Buffer.from(frames.filter((f) => !isUsageFrame(f)).join(''));
  }

  /** The bytes still held at the end of the stream (an unterminated last frame), unchanged. */
  end(): Uint8Array {
    const rest = this.held;
    this.held = Buffer.alloc(0);
    return rest;
  }
}

import { isObject, tryParseJson } from '../lib/json.js';
import { frameEnd, frameStart, indexOfQuoted, lastFrameEnd, memberIsNull } from './sse-frames.js';

const USAGE = Buffer.from('"usage"');
const USAGE_TAIL = USAGE.subarray(1);
const NOTHING = new Uint8Array(0);

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
 * the end of the last complete frame, and only frames that mention `"usage"` with a value other than
 * `null` are parsed.
 */
export class UsageFrameStripper {
  private held: Buffer = Buffer.alloc(0);

  /** Feeds upstream bytes; returns the bytes to send now (possibly empty). */
  push(bytes: Uint8Array): Uint8Array {
    const buf = this.held.length ? Buffer.concat([this.held, bytes]) : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    const end = lastFrameEnd(buf);
    this.held = end === buf.length ? Buffer.alloc(0) : Buffer.from(buf.subarray(end));
    if (end === 0) return NOTHING;
    const complete = buf.subarray(0, end);
    // Only the frames that mention "usage" are decoded; the bytes around a dropped frame are kept as they are.
    let kept: Buffer[] | undefined;
    let from = 0;
    for (let at = indexOfQuoted(complete, USAGE, USAGE_TAIL); at >= 0; at = indexOfQuoted(complete, USAGE, USAGE_TAIL, at)) {
      // `"usage":null` (every chunk but the usage one): not a usage frame, nothing to decode.
      if (memberIsNull(complete, at, USAGE.length)) {
        at += USAGE.length;
        continue;
      }
      const start = frameStart(complete, at);
      const stop = frameEnd(complete, at);
      if (isUsageFrame(complete.toString('utf8', start, stop))) {
        (kept ??= []).push(complete.subarray(from, start));
        from = stop;
      }
      at = stop;
    }
    if (!kept) return complete;
    kept.push(complete.subarray(from));
    return Buffer.concat(kept);
  }

  /** The bytes still held at the end of the stream (an unterminated last frame), unchanged. */
  end(): Uint8Array {
    const rest = this.held;
    this.held = Buffer.alloc(0);
    return rest;
  }
}

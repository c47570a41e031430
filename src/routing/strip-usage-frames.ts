import { UNKNOWN_MEMBER, isObject, lastMemberBounds, skipWs, skipWsBack, topLevelBounds, tryParseJson } from '../foundation/lib/json.js';
import { SseDecoder } from '../foundation/lib/sse.js';
import { readCompactUsage } from '../infra/fast/compact-usage.js';
import {
  EMPTY,
  asBuffer,
  frameEnd,
  frameStart,
  indexOfQuoted,
  lastFrameEnd,
  mayHaveUsage,
  memberIsNull,
} from '../infra/fast/sse-frames.js';

const USAGE = Buffer.from('"usage"');
const USAGE_TAIL = USAGE.subarray(1);
const NOTHING = new Uint8Array(0);
const DATA = Buffer.from('data:');
const USAGE_FRAME_MEMBERS = ['choices', 'usage'];

/**
 * Whether the SSE frame `buf[start, stop)` is an OpenAI usage-only chunk (`choices: []` and a `usage`
 * object). The common frame, one `data:` line, is not parsed: its top-level `choices` and `usage` are
 * located in one walk over the bytes (parsing the chunk cost ~20k instructions per stream); a frame with
 * several data lines, or text the walk cannot read, is parsed as a whole.
 */
function isUsageFrame(buf: Buffer, start: number, stop: number): boolean {
  const json = singleDataLine(buf, start, stop);
  if (json) {
    const found = topLevelBounds(json, USAGE_FRAME_MEMBERS);
    if (found !== UNKNOWN_MEMBER) {
      const [choices, usage] = found;
      return choices !== undefined && usage !== undefined && isEmptyArray(json, choices[0], choices[1]) && json[usage[0]] === 0x7b;
    }
  }
  return parsedIsUsageFrame(buf.toString('utf8', start, stop));
}

/** The value of the frame's only `data:` line, or undefined when it has none or several. */
function singleDataLine(buf: Buffer, start: number, stop: number): Buffer | undefined {
  let value: Buffer | undefined;
  for (let line = start; line < stop;) {
    let end = buf.indexOf(0x0a, line);
    if (end < 0 || end > stop) end = stop;
    const next = end + 1;
    if (end > line && buf[end - 1] === 0x0d) end--;
    if (end - line >= DATA.length && buf.compare(DATA, 0, DATA.length, line, line + DATA.length) === 0) {
      if (value) return undefined;
      // Leading whitespace stays: the walk over the value skips it.
      value = buf.subarray(line + DATA.length, end);
    }
    line = next;
  }
  return value;
}

/** Whether `b[from, to)` is `[]` (whitespace inside allowed). */
function isEmptyArray(b: Uint8Array, from: number, to: number): boolean {
  if (b[from] !== 0x5b) return false;
  const i = skipWs(b, from + 1);
  return b[i] === 0x5d && i === to - 1;
}

/** `isUsageFrame` by parsing the frame's data (its lines joined, as an SSE client reads them). */
function parsedIsUsageFrame(frame: string): boolean {
  if (!frame.includes('"usage"')) return false;
  const data = frame
    .split(/\r?\n/)
    .filter((l) => l.startsWith('data:'))
    .map((l) => l.slice(5).trimStart())
    .join('\n');
  return isUsageOnlyChunk(tryParseJson(data));
}

const CHOICES = Buffer.from('"choices"');

/**
 * OpenAI's usage-only chunk read from the end of its bytes: `usage`, an object, is the last member and
 * `"choices": []` the member right before it (found by `lastMemberBounds`, then a walk back from the usage
 * key). Only the usage object is read (`readCompactUsage`, else parsed; the whole chunk cost ~7k instructions more); the observers of
 * usage get the chunk's `choices` and `usage` alone. Undefined when the bytes are not so (the caller
 * parses the frame). As `lastMemberBounds`, it does not check the text before `choices`.
 */
function usageOnlyChunkOf(json: Buffer): { choices: unknown[]; usage: Record<string, unknown> } | undefined {
  const member = lastMemberBounds(json, 'usage');
  if (!member || json[member[1]] !== 0x7b) return undefined;
  const [key, , end] = member;
  // The last member: only the closing brace after its value.
  if (skipWsBack(json, skipWsBack(json, json.length - 1) - 1) !== end - 1) return undefined;
  let i = skipWsBack(json, key - 1);
  for (const c of CHOICES_TAIL) {
    if (json[i] !== c) return undefined;
    i = skipWsBack(json, i - 1);
  }
  i -= CHOICES.length - 1;
  if (i < 0 || json.compare(CHOICES, 0, CHOICES.length, i, i + CHOICES.length) !== 0) return undefined;
  const before = json[skipWsBack(json, i - 1)];
  if (before !== 0x2c && before !== 0x7b) return undefined;
  const usage = readCompactUsage(json, member[1], end) ?? tryParseJson(json.toString('utf8', member[1], end));
  return isObject(usage) ? { choices: [], usage } : undefined;
}

/** What lies between `"choices"` and `"usage"` in a usage-only chunk, read backwards (whitespace between): `: [ ] ,`. */
const CHOICES_TAIL = [0x2c, 0x5d, 0x5b, 0x3a];

/** Whether a parsed chunk is usage-only (`choices: []` and a `usage` object). */
function isUsageOnlyChunk(v: unknown): boolean {
  return isObject(v) && Array.isArray(v.choices) && v.choices.length === 0 && isObject(v.usage);
}

/**
 * Drops the usage-only chunk from an OpenAI-framed byte stream whose usage the gateway asked for on the
 * client's behalf (`addsStreamUsage`); every other byte passes unchanged. Bytes are held only up to
 * the end of the last complete frame, and only frames that mention `"usage"` with a value other than
 * `null` are read.
 *
 * With `onUsageChunk` (the stream's observers of `usage`), those frames are decoded and parsed once, for
 * both: the observers get each parsed chunk whose `usage` may be an object (as `FramesMentioning` would
 * hand them), and the parsed value tells whether the frame is dropped. The stream is then searched for
 * `"usage"` once, not twice. Without it, a one-line frame is judged by a walk over its bytes.
 */
export class UsageFrameStripper {
  private held: Buffer = EMPTY;

  constructor(private readonly onUsageChunk?: (chunk: Record<string, unknown>) => void) {}

  /** Whether the frame `buf[start, stop)` is usage-only, telling the observers of the chunks it parses. */
  private judge(buf: Buffer, start: number, stop: number): boolean {
    const notify = this.onUsageChunk;
    if (!notify) return isUsageFrame(buf, start, stop);
    const json = singleDataLine(buf, start, stop);
    const chunk = json && usageOnlyChunkOf(json);
    if (chunk) {
      notify(chunk);
      return true;
    }
    const events = new SseDecoder().push(buf.subarray(start, stop));
    let usageOnly = false;
    for (const ev of events) {
      if (ev.data === '[DONE]') continue;
      const value = tryParseJson(ev.data);
      if (!isObject(value)) continue;
      if (mayHaveUsage(ev.data)) notify(value);
      usageOnly = events.length === 1 && isUsageOnlyChunk(value);
    }
    return usageOnly;
  }

  /** Feeds upstream bytes; returns the bytes to send now (possibly empty). */
  push(bytes: Uint8Array): Uint8Array {
    const buf = this.held.length ? Buffer.concat([this.held, bytes]) : asBuffer(bytes);
    const end = lastFrameEnd(buf);
    this.held = end === buf.length ? EMPTY : Buffer.from(buf.subarray(end));
    if (end === 0) return NOTHING;
    const complete = end === buf.length ? buf : buf.subarray(0, end);
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
      if (this.judge(complete, start, stop)) {
        (kept ??= []).push(complete.subarray(from, start));
        from = stop;
      }
      at = stop;
    }
    if (!kept) return complete;
    kept.push(complete.subarray(from));
    return Buffer.concat(kept);
  }

  /**
   * The bytes still held at the end of the stream (an unterminated last frame; all of a stream whose
   * lines end with a bare carriage return, which has no frame end this class finds), unchanged. Its
   * events are read in full for the observers of `usage`.
   */
  end(): Uint8Array {
    const rest = this.held;
    this.held = EMPTY;
    const notify = this.onUsageChunk;
    if (notify && rest.length > 0) {
      const decoder = new SseDecoder();
      for (const ev of [...decoder.push(rest), ...decoder.end()]) {
        if (ev.data === '[DONE]' || !mayHaveUsage(ev.data)) continue;
        const value = tryParseJson(ev.data);
        if (isObject(value)) notify(value);
      }
    }
    return rest;
  }
}

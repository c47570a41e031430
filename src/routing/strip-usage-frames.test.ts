import { describe, expect, it } from 'vitest';
import { UsageFrameStripper } from './strip-usage-frames.js';

const content = 'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}],"usage":null}\n\n';
const finish = 'data: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}\n\n';
const usage = 'data: {"id":"c1","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}\n\n';
const done = 'data: [DONE]\n\n';

/** The stripper's output; run with and without observers of `usage`, which must drop the same frames. */
function run(parts: string[]): string {
  const [plain] = runWith(parts, false);
  const [observed] = runWith(parts, true);
  expect(observed).toBe(plain);
  return plain;
}

function runWith(parts: string[], observe: boolean): [string, Array<Record<string, unknown>>] {
  const seen: Array<Record<string, unknown>> = [];
  const s = new UsageFrameStripper(observe ? (chunk) => seen.push(chunk) : undefined);
  const out: Buffer[] = parts.map((p) => Buffer.from(s.push(Buffer.from(p))));
  out.push(Buffer.from(s.end()));
  return [Buffer.concat(out).toString('utf8'), seen];
}

describe('UsageFrameStripper', () => {
  it('drops the usage-only frame and keeps every other byte', () => {
    expect(run([content + finish + usage + done])).toBe(content + finish + done);
  });

  it('works whatever the split, one byte at a time included', () => {
    const all = content + finish + usage + done;
    expect(run([...all])).toBe(content + finish + done);
    expect(run([all.slice(0, 150), all.slice(150, 160), all.slice(160)])).toBe(content + finish + done);
  });

  it('keeps frames whose usage is null, and CRLF framing', () => {
    const crlf = (s: string) => s.replace(/\n\n$/, '\r\n\r\n');
    expect(run([crlf(content), crlf(usage), crlf(done)])).toBe(crlf(content) + crlf(done));
  });

  it('drops a usage frame between blank lines of mixed line endings, and keeps frames that only mention usage', () => {
    const mixed = content.replace(/\n\n$/, '\n\r\n') + usage.replace(/\n\n$/, '\r\n\n') + done;
    expect(run([mixed])).toBe(content.replace(/\n\n$/, '\n\r\n') + done);
    const mention = 'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"\\"usage\\""}}]}\n\n';
    expect(run([mention + usage + mention])).toBe(mention + mention);
  });

  it('passes an unterminated tail through at the end', () => {
    expect(run([content, 'data: {"partial"'])).toBe(content + 'data: {"partial"');
  });

  it('reads a one-line frame without parsing it and a several-line frame by parsing it: the same frames dropped', () => {
    const spaced = 'data:   {"id":"c1", "choices": [ ], "usage": {"total_tokens": 4}, "x": "}"}\n\n';
    const withEvent = 'event: chunk\nid: 7\n' + usage;
    const twoLines = 'data: {"id":"c1","choices":[],\ndata: "usage":{"total_tokens":4}}\n\n';
    const escapedKey = 'data: {"id":"c1","ch\\u006fices":[],"choices":[],"usage":{"total_tokens":4}}\n\n';
    expect(run([content + spaced + withEvent + twoLines + escapedKey + done])).toBe(content + done);
    // Not usage-only: choices not empty, usage not an object, choices missing, malformed.
    const kept = [
      'data: {"id":"c1","choices":[{"index":0}],"usage":{"total_tokens":4}}\n\n',
      'data: {"id":"c1","choices":[],"usage":[1]}\n\n',
      'data: {"id":"c1","usage":{"total_tokens":4}}\n\n',
      'data: {"id":"c1","choices":[],"usage":{"total_tokens":4}\n\n',
      'data: {"id":"c1","choices":[],"usage":{"total_tokens":4}}\ndata: {"second":"object"}\n\n',
    ];
    expect(run([kept.join('') + done])).toBe(kept.join('') + done);
  });

  it('hands the observers of usage each parsed chunk whose usage is an object, the frames it drops and keeps alike', () => {
    const kept = 'data: {"id":"c1","choices":[{"index":0}],"usage":{"total_tokens":5}}\n\n';
    const [out, seen] = runWith([content + finish + usage.slice(0, 40), usage.slice(40) + kept + done], true);
    expect(out).toBe(content + finish + kept + done);
    // The usage-only chunk read from its end: its choices and usage alone; another frame parsed whole.
    const usageOnly = { choices: [], usage: JSON.parse(usage.slice(6)).usage };
    expect(seen).toEqual([usageOnly, JSON.parse(kept.slice(6))]);
    // Usage-only frames all: read from the end with spaces too; parsed whole when the end cannot tell (several lines,
    // a member after usage, an escaped key, another member between choices and usage).
    const odd = [
      'data: { "id" : "c1" , "choices" : [ ] , "usage" : { "total_tokens" : 4 } }\n\n',
      'data: {"id":"c1","choices":[],\ndata: "usage":{"total_tokens":4}}\n\n',
      'data: {"id":"c1","choices":[],"usage":{"total_tokens":4},"x":1}\n\n',
      'data: {"id":"c1","ch\\u006fices":[],"usage":{"total_tokens":4}}\n\n',
      'data: {"choices":[],"x":[],"usage":{"total_tokens":4}}\n\n',
    ];
    const [oddOut, oddSeen] = runWith([odd.join('') + done], true);
    expect(oddOut).toBe(done);
    expect(oddSeen).toEqual([
      { choices: [], usage: { total_tokens: 4 } },
      { id: 'c1', choices: [], usage: { total_tokens: 4 } },
      { id: 'c1', choices: [], usage: { total_tokens: 4 }, x: 1 },
      { id: 'c1', choices: [], usage: { total_tokens: 4 } },
      { choices: [], x: [], usage: { total_tokens: 4 } },
    ]);
    // Lines ending with a bare carriage return have no frame end the stripper finds: all is held, and read at the end.
    const cr = (content + usage).replace(/\n/g, '\r');
    const [crOut, crSeen] = runWith([cr], true);
    expect(crOut).toBe(cr);
    expect(crSeen).toEqual([JSON.parse(usage.slice(6))]);
  });
});

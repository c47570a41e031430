import { describe, expect, it } from 'vitest';
import { UsageFrameStripper } from './strip-usage-frames.js';

const content = 'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}],"usage":null}\n\n';
const finish = 'data: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}\n\n';
const usage = 'data: {"id":"c1","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}\n\n';
const done = 'data: [DONE]\n\n';

function run(parts: string[]): string {
  const s = new UsageFrameStripper();
  const out: Buffer[] = parts.map((p) => Buffer.from(s.push(Buffer.from(p))));
  out.push(Buffer.from(s.end()));
  return Buffer.concat(out).toString('utf8');
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
});

import { describe, expect, it } from 'vitest';
import { SseDecoder, sseData, sseEvent } from './sse.js';

describe('SseDecoder', () => {
  const text = 'event: a\ndata: {"x":1}\n\ndata: line1\ndata: line2\n\n: comment\n\ndata: [DONE]\n\n';
  it('decodes events split at any byte', () => {
    const bytes = Buffer.from(text);
    for (const step of [1, 2, 5, 13, bytes.length]) {
      const d = new SseDecoder();
      const events = [];
      for (let i = 0; i < bytes.length; i += step) events.push(...d.push(bytes.subarray(i, i + step)));
      events.push(...d.end());
      expect(events.map((e) => [e.event, e.data])).toEqual([
        ['a', '{"x":1}'],
        [undefined, 'line1\nline2'],
        [undefined, '[DONE]'],
      ]);
    }
  });

  it('keeps multi-byte characters whole across splits and flushes an unterminated last event', () => {
    const bytes = Buffer.from('data: héllo €\n\ndata: tail');
    const d = new SseDecoder();
    const out = [...d.push(bytes.subarray(0, 9)), ...d.push(bytes.subarray(9, 17)), ...d.push(bytes.subarray(17)), ...d.end()];
    expect(out.map((e) => e.data)).toEqual(['héllo €', 'tail']);
  });

  it('decodes like TextDecoder: a leading byte-order mark (even split) is dropped, invalid bytes become U+FFFD, Uint8Array input', () => {
    const body = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from('data: a \ufeff €\n\ndata: x'),
      Buffer.from([0xc3]),
      Buffer.from('y\n\ndata: z'),
      Buffer.from([0xe2, 0x82]),
      Buffer.from('\n\n'),
    ]);
    const reference = new SseDecoder();
    const expected = [...reference.push(new TextDecoder().decode(body)), ...reference.end()].map((e) => e.data);
    expect(expected).toEqual(['a \ufeff €', 'x\ufffdy', 'z\ufffd']);
    for (const step of [1, 2, 3, body.length]) {
      const d = new SseDecoder();
      const events = [];
      for (let i = 0; i < body.length; i += step) events.push(...d.push(new Uint8Array(body.subarray(i, i + step))));
      events.push(...d.end());
      expect(events.map((e) => e.data)).toEqual(expected);
    }
  });

  it('serialises frames', () => {
    expect(sseData({ a: 1 }).toString()).toBe('data: {"a":1}\n\n');
    expect(sseEvent('x', { b: 2 }).toString()).toBe('event: x\ndata: {"b":2}\n\n');
  });
});

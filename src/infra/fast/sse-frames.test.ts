import { describe, expect, it } from 'vitest';
import { SseDecoder } from '../../foundation/lib/sse.js';
import { FramesMentioning, frameEnd, frameStart, indexOfQuoted, lastFrameEnd, memberIsNull } from './sse-frames.js';

const content = 'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"hi"}}],"usage":null}\n\n';
const usage = 'data: {"id":"c1","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}\n\n';
const plain = 'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"é"}}]}\n\n';
const done = 'data: [DONE]\n\n';

function scan(parts: Array<string | Buffer>, needle = '"usage"', skipNull = false): string[] {
  const f = new FramesMentioning(needle, skipNull);
  return parts.flatMap((p) => f.push(typeof p === 'string' ? Buffer.from(p) : p)).map((e) => e.data);
}

describe('SSE frame bounds', () => {
  it('finds blank lines of every line-ending pair', () => {
    for (const eol of ['\n\n', '\r\n\r\n', '\n\r\n', '\r\n\n']) {
      const text = `data: a${eol}data: b${eol}data: c`;
      const b = Buffer.from(text);
      const firstEnd = text.indexOf(eol) + eol.length;
      expect(frameEnd(b, 0)).toBe(firstEnd);
      expect(frameStart(b, firstEnd + 3)).toBe(firstEnd);
      expect(frameStart(b, 3)).toBe(0);
      expect(lastFrameEnd(b)).toBe(text.lastIndexOf(eol) + eol.length);
    }
    expect(lastFrameEnd(Buffer.from('data: a\ndata: b\n'))).toBe(0);
    expect(frameEnd(Buffer.from('data: a\n'), 0)).toBe(8);
  });
});

describe('FramesMentioning', () => {
  it('gives the events of the frames that mention the needle, as the full decoder reads them', () => {
    const all = content + plain + usage + done;
    const expected = new SseDecoder()
      .push(Buffer.from(all))
      .map((e) => e.data)
      .filter((d) => d.includes('"usage"'));
    expect(scan([all])).toEqual(expected);
    expect(scan([...Buffer.from(all)].map((byte) => Buffer.from([byte])))).toEqual(expected);
    expect(scan([all.slice(0, 40), all.slice(40, 200), all.slice(200)])).toEqual(expected);
  });

  it('reads CRLF frames and multi-line data, and never a frame that is not complete', () => {
    const crlf = 'data: {"choices":[],\r\ndata: "usage":{"total_tokens":4}}\r\n\r\n';
    expect(scan([crlf])).toEqual(['{"choices":[],\n"usage":{"total_tokens":4}}']);
    expect(scan(['data: {"usage":{"total_tokens":4}}\n'])).toEqual([]);
  });

  it('decodes everything from the point a frame grows past 64 KiB without ending', () => {
    const huge = `data: {"usage":{"total_tokens":4},"pad":"${'x'.repeat(70 * 1024)}"}`;
    const f = new FramesMentioning('"usage"');
    expect(f.push(Buffer.from(huge))).toEqual([]);
    expect(f.push(Buffer.from('\r\r:\r')).map((e) => e.data)).toEqual([huge.slice(6)]);
  });
});

describe('FramesMentioning with several needles and the first frame', () => {
  const finish = 'data: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}\n\n';
  const nullFinish = 'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}],"usage":null}\n\n';
  const both = 'data: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"length"}],"usage":{"total_tokens":4}}\n\n';
  const data = (frame: string) => new SseDecoder().push(Buffer.from(frame))[0]!.data;

  function pick(parts: string[]): string[] {
    const f = new FramesMentioning(['"usage"', '"finish_reason"'], true, true);
    return parts.flatMap((p) => f.push(Buffer.from(p))).map((e) => e.data);
  }

  it('gives the first event, then each frame mentioning any needle once, in stream order', () => {
    const all = ': keep-alive\n\n' + nullFinish + plain + nullFinish + finish + usage + both + done;
    const expected = [nullFinish, finish, usage, both].map(data);
    expect(pick([all])).toEqual(expected);
    expect(pick([...all].map((c) => c))).toEqual(expected);
    expect(pick([all.slice(0, 50), all.slice(50, 300), all.slice(300)])).toEqual(expected);
    // The first frame counts once even when it mentions a needle.
    expect(pick([finish + plain + usage])).toEqual([finish, usage].map(data));
  });
});

describe('mentions followed by null', () => {
  const at = (text: string) => [Buffer.from(text), text.indexOf('"usage"'), 7] as const;

  it('are `"usage"` then a colon and null on the same line, spaces allowed', () => {
    expect(memberIsNull(...at('{"usage":null}'))).toBe(true);
    expect(memberIsNull(...at('{"usage" :\tnull}'))).toBe(true);
    expect(memberIsNull(...at('{"usage":{"total_tokens":4}}'))).toBe(false);
    expect(memberIsNull(...at('{"usage":nul'))).toBe(false);
    expect(memberIsNull(...at('{"usage":\ndata: null}'))).toBe(false);
    expect(memberIsNull(...at('{"usage"'))).toBe(false);
    expect(memberIsNull(...at('["usage", null]'))).toBe(false);
  });

  it('are passed over by a scanner that skips them: only frames with a value are decoded', () => {
    const spaced = 'data: {"choices":[{"delta":{"content":"a"}}], "usage" : null}\n\n';
    const both = 'data: {"x":{"usage":null},"usage":{"total_tokens":9}}\n\n';
    const crlf = 'data: {"choices":[],\r\ndata: "usage":\r\ndata: {"total_tokens":4}}\r\n\r\n';
    const all = content + spaced + plain + usage + both + crlf + done;
    const expected = [usage, both, crlf].map((f) => new SseDecoder().push(Buffer.from(f))[0]!.data);
    expect(scan([all], '"usage"', true)).toEqual(expected);
    expect(
      scan(
        [...Buffer.from(all)].map((byte) => Buffer.from([byte])),
        '"usage"',
        true,
      ),
    ).toEqual(expected);
    expect(scan([all.slice(0, 70), all.slice(70, 231), all.slice(231)], '"usage"', true)).toEqual(expected);
  });
});

describe('indexOfQuoted', () => {
  it('finds a quoted name as indexOf does, from a given index', () => {
    const needle = Buffer.from('"usage"');
    const tail = needle.subarray(1);
    for (const text of ['"usage"', 'usage" "usage"', 'x"usag "usage":1,"usage":2', 'no usage" here', '', '"', 'susage"usage""usage"']) {
      const b = Buffer.from(text);
      for (let from = 0; from <= b.length; from++)
        expect(indexOfQuoted(b, needle, tail, from), `${text} from ${from}`).toBe(b.indexOf(needle, from));
    }
  });
});

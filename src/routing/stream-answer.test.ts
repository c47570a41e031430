import { describe, expect, it } from 'vitest';
import { StreamAnswer, type StreamItem } from './stream-answer.js';
import { GatewayError } from '../foundation/errors/gateway-error.js';

async function* items(list: StreamItem[], fail?: GatewayError): AsyncGenerator<StreamItem> {
  for (const i of list) yield i;
  if (fail) throw fail;
}

async function collect(s: StreamAnswer): Promise<string> {
  let out = '';
  for await (const b of s) out += Buffer.from(b).toString();
  return out;
}

const chunk = (content: string) => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta: { content }, finish_reason: null }],
});
const usage = {
  id: 'c',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [],
  usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
};

describe('StreamAnswer', () => {
  it('serialises mapped chunks, ends with [DONE], and drops the usage chunk unless asked', async () => {
    const seen: unknown[] = [];
    const s = new StreamAnswer(items([chunk('a'), usage]), false, false);
    s.observe({ onChunk: (c) => seen.push(c) });
    const out = await collect(s);
    expect(out).toBe(`data: ${JSON.stringify(chunk('a'))}\n\ndata: [DONE]\n\n`);
    expect(seen).toHaveLength(2);
    const withUsage = await collect(new StreamAnswer(items([chunk('a'), usage]), true, false));
    expect(withUsage).toContain('"usage"');
  });

  it('hands a usage-only observer just the passthrough frames whose usage is an object', async () => {
    const withNull = { ...chunk('x'), usage: null };
    const raw = `data: ${JSON.stringify(withNull)}\n\ndata: ${JSON.stringify(usage)}\n\ndata: [DONE]\n\n`;
    const bytes = Buffer.from(raw);
    const usageSeen: unknown[] = [];
    const s = new StreamAnswer(items([bytes.subarray(0, 7), bytes.subarray(7, 150), bytes.subarray(150)]), false, true);
    s.observe({ usageOnly: true, onChunk: (c) => usageSeen.push(c) });
    expect(await collect(s)).toBe(raw);
    expect(usageSeen).toEqual([usage]);
    // With an observer that needs every chunk, both frames are parsed and given to both.
    const all: unknown[] = [];
    const t = new StreamAnswer(items([bytes]), false, true);
    t.observe({ usageOnly: true, onChunk: () => undefined });
    t.observe({ onChunk: (c) => all.push(c) });
    await collect(t);
    expect(all).toEqual([withNull, usage]);
  });

  it('hands a chunksWith observer the first chunk, the chunks with those members and the usage chunk, each once, with or without the usage frame stripped', async () => {
    const first = { ...chunk('a'), usage: null };
    const middle = [
      chunk('b'),
      chunk('c'),
      { ...chunk('d'), choices: [{ index: 0, delta: { content: 'say "finish_reason"' }, finish_reason: null }] },
    ];
    const last = { ...chunk(''), choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] };
    const both = { ...last, usage: usage.usage };
    for (const [frames, wanted] of [
      [
        [first, ...middle, last, usage],
        [first, last, usage],
      ],
      [
        [first, ...middle, both],
        [first, both],
      ],
    ] as const) {
      const raw = frames.map((f) => `data: ${JSON.stringify(f)}\n\n`).join('') + 'data: [DONE]\n\n';
      const bytes = Buffer.from(raw);
      for (const strip of [false, true]) {
        for (const split of [
          [bytes],
          [...bytes].map((b) => Buffer.from([b])),
          [bytes.subarray(0, 90), bytes.subarray(90, 400), bytes.subarray(400)],
        ]) {
          const picked: unknown[] = [];
          const usageSeen: unknown[] = [];
          const s = new StreamAnswer(items(split), false, true, undefined, strip);
          s.observe({ chunksWith: ['finish_reason'], onChunk: (c) => picked.push(c) });
          s.observe({ usageOnly: true, onChunk: (c) => usageSeen.push(c) });
          const out = await collect(s);
          expect(picked).toEqual(wanted);
          // The usage-only observer may be handed more, but the usage chunk once.
          expect(
            usageSeen.filter((c) => (c as { usage?: unknown }).usage !== null && (c as { usage?: unknown }).usage !== undefined),
          ).toEqual([wanted.at(-1)]);
          if (!strip || frames.at(-1) === both) expect(out).toBe(raw);
          else expect(out).toBe(raw.replace(`data: ${JSON.stringify(usage)}\n\n`, ''));
        }
      }
    }
    // An observer of every chunk makes every frame parsed, for all.
    const raw = `data: ${JSON.stringify(chunk('a'))}\n\ndata: ${JSON.stringify(chunk('b'))}\n\n`;
    const picked: unknown[] = [];
    const t = new StreamAnswer(items([Buffer.from(raw)]), false, true);
    t.observe({ chunksWith: ['finish_reason'], onChunk: (c) => picked.push(c) });
    t.observe({ onChunk: () => undefined });
    await collect(t);
    expect(picked).toEqual([chunk('a'), chunk('b')]);
  });

  it('passes raw bytes through unchanged and parses them only for observers', async () => {
    const raw = `data: ${JSON.stringify(chunk('x'))}\n\ndata: [DONE]\n\n`;
    const bytes = Buffer.from(raw);
    const parts = [bytes.subarray(0, 10), bytes.subarray(10)];
    const seen: unknown[] = [];
    const s = new StreamAnswer(items(parts), false, true);
    s.observe({ onChunk: (c) => seen.push(c) });
    expect(await collect(s)).toBe(raw);
    expect(seen).toEqual([chunk('x')]);
  });

  it('ends a failing stream with one error frame and tells observers', async () => {
    let ended: [boolean, GatewayError | undefined] | undefined;
    const s = new StreamAnswer(
      items([chunk('a')], new GatewayError('provider_error', 'boom', { status: 502, provider: 'p' })),
      false,
      false,
    );
    s.observe({ onEnd: (ok, err) => (ended = [ok, err]) });
    const out = await collect(s);
    expect(
      out.endsWith('data: {"error":{"message":"boom","type":"provider_error","param":null,"code":"provider_error","provider":"p"}}\n\n'),
    ).toBe(true);
    expect(out).not.toContain('[DONE]');
    expect(ended?.[0]).toBe(false);
  });

  it('lets beforeEnd replace [DONE] with an error frame, also for passthrough bytes', async () => {
    const raw = Buffer.from(`data: ${JSON.stringify(chunk('x'))}\n\ndata: [DONE]\n\n`);
    const s = new StreamAnswer(items([raw]), false, true);
    s.observe({ beforeEnd: () => new GatewayError('guardrail_denied', 'no') });
    const out = await collect(s);
    expect(out).not.toContain('[DONE]');
    expect(out).toContain('"code":"guardrail_denied"');
    const ok = new StreamAnswer(items([raw]), false, true);
    ok.observe({ beforeEnd: () => undefined });
    expect(await collect(ok)).toBe(raw.toString());
  });
});

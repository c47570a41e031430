import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { FakeClock } from '../../foundation/lib/clock.js';
import { HttpClient } from '../../foundation/lib/http-client.js';
import type { CallContext } from '../provider.js';
import { googleProvider } from './google-provider.js';

const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8'));
const ctx: CallContext = {
  target: { provider: 'google', apiKey: 'k', config: {}, forwardHeaders: {} },
  stream: false,
  signal: new AbortController().signal,
  http: new HttpClient(),
  clock: new FakeClock(),
};
const emb = googleProvider.endpoints.embeddings!;

describe('google embeddings', () => {
  it('uses embedContent for one input and batchEmbedContents for several', async () => {
    const one = await emb.buildRequest({ model: 'gemini-embedding-001', input: 'hello', dimensions: 4 }, ctx);
    expect(one.url).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-embedding-001:embedContent');
    expect(JSON.parse(String(one.body))).toEqual({ content: { parts: [{ text: 'hello' }] }, outputDimensionality: 4 });
    const many = await emb.buildRequest({ model: 'text-embedding-004', input: ['a', 'b'] }, ctx);
    expect(many.url).toMatch(/models\/text-embedding-004:batchEmbedContents$/);
    expect(JSON.parse(String(many.body))).toEqual({
      requests: [
        { model: 'models/text-embedding-004', content: { parts: [{ text: 'a' }] } },
        { model: 'models/text-embedding-004', content: { parts: [{ text: 'b' }] } },
      ],
    });
    await expect(async () => emb.buildRequest({ model: 'm', input: [1, 2, 3] }, ctx)).rejects.toMatchObject({ param: 'input' });
  });

  it('maps both answers to the common list, base64 on request', () => {
    expect(emb.mapResponse(fixture('embed-content.json'), { model: 'gemini-embedding-001', input: 'x' }, ctx)).toEqual({
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding: [0.0132, -0.0081, 0.0427, 0.0051] }],
      model: 'gemini-embedding-001',
      usage: { prompt_tokens: 0, total_tokens: 0 },
    });
    const b = emb.mapResponse(fixture('batch-embed-contents.json'), { model: 'm', input: ['a', 'b'], encoding_format: 'base64' }, ctx);
    expect(b.data.map((d) => d.index)).toEqual([0, 1]);
    const raw = Buffer.from(b.data[1]!.embedding as string, 'base64');
    const back = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
    expect(Array.from(back).map((x) => Math.round(x * 10) / 10)).toEqual([-0.1, -0.2, -0.3]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { readFakeImage } from '../../fakes/shared/fake-media.js';
import { FAKE_MODERATION_CATEGORIES } from '../../fakes/openai/media.js';

let gw: TestGateway;
let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-good' });
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

const via = (provider = 'openai') => ({ 'x-gateway-provider': provider, 'x-gateway-custom-host': fake.url });
const viaFetch = (provider: string) => ({ ...via(provider), authorization: 'Bearer sk-good' });

describe('images through openai with the openai SDK', () => {
  it('passes a dall-e-3 url answer through unchanged', async () => {
    const res = await gw
      .openai(via(), { apiKey: 'sk-good' })
      .images.generate({ model: 'dall-e-3', prompt: 'a red fox', size: '1792x1024', quality: 'hd', style: 'natural' })
      .withResponse();
    expect(res.data.data![0]!.url).toMatch(/^https:\/\/fake-images\.example\//);
    expect(res.data.data![0]!.revised_prompt).toBe('revised: a red fox');
    expect(res.response.headers.get('x-gateway-provider')).toBe('openai');
    expect(fake.lastRequest!.path).toBe('/v1/images/generations');
    expect(fake.lastRequest!.body).toMatchObject({
      model: 'dall-e-3',
      prompt: 'a red fox',
      size: '1792x1024',
      quality: 'hd',
      style: 'natural',
    });
  });

  it('answers b64_json when asked', async () => {
    const res = await gw
      .openai(via(), { apiKey: 'sk-good' })
      .images.generate({ model: 'dall-e-2', prompt: 'two cats', n: 2, response_format: 'b64_json', size: '256x256' });
    expect(res.data).toHaveLength(2);
    expect(readFakeImage(Buffer.from(res.data![1]!.b64_json!, 'base64'))).toEqual({ prompt: 'two cats', index: 1 });
  });

  it('turns inline images into signed links when the format is url (the default) and serves them without a key', async () => {
    const res = await gw.openai(via(), { apiKey: 'sk-good' }).images.generate({ model: 'gpt-image-1', prompt: 'a lighthouse', n: 2 });
    expect(fake.lastRequest!.body.response_format).toBeUndefined();
    const [first, second] = res.data!;
    expect(first!.b64_json).toBeUndefined();
    expect(first!.url).toMatch(new RegExp(`^${gw.url}/v1/images/files/img_[A-Za-z0-9]+\\?expires=\\d+&sig=`));
    const expires = Number(new URL(first!.url!).searchParams.get('expires'));
    expect(expires * 1000 - Date.now()).toBeGreaterThan(59 * 60 * 1000);
    expect(expires * 1000 - Date.now()).toBeLessThanOrEqual(60 * 60 * 1000 + 1000);
    const img = await fetch(second!.url!);
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/png');
    expect(readFakeImage(Buffer.from(await img.arrayBuffer()))).toEqual({ prompt: 'a lighthouse', index: 1 });
  });

  it('refuses a link with a bad signature or a tampered expiry (403)', async () => {
    const res = await gw.openai(via(), { apiKey: 'sk-good' }).images.generate({ model: 'gpt-image-1', prompt: 'a boat' });
    const url = new URL(res.data![0]!.url!);
    const badSig = new URL(url);
    // Another first character (a signature that happens to start with the replacement would stay valid).
    const sig = url.searchParams.get('sig')!;
    badSig.searchParams.set('sig', (sig[0] === 'x' ? 'y' : 'x') + sig.slice(1));
    const r1 = await fetch(badSig);
    expect(r1.status).toBe(403);
    expect(((await r1.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    const later = new URL(url);
    later.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    expect((await fetch(later)).status).toBe(403);
  });

  it('maps a provider error keeping its status', async () => {
    fake.fail({ status: 429, body: { error: { message: 'slow down', type: 'requests', param: null, code: 'rate_limit_exceeded' } } });
    const err = await gw
      .openai(via(), { apiKey: 'sk-good' })
      .images.generate({ prompt: 'x' })
      .catch((e) => e);
    expect(err.status).toBe(429);
    expect(err.error.message).toBe('slow down');
  });
});

describe('moderations through openai with the openai SDK', () => {
  it('classifies with the thirteen categories in the three maps, default model omni-moderation-latest', async () => {
    const res = await gw.openai(via(), { apiKey: 'sk-good' }).moderations.create({ input: 'I will kill the process' });
    expect(fake.lastRequest!.path).toBe('/v1/moderations');
    expect(fake.lastRequest!.body.model).toBe('omni-moderation-latest');
    expect(res.model).toBe('omni-moderation-2024-09-26');
    const r = res.results[0]!;
    expect(r.flagged).toBe(true);
    expect(r.categories.violence).toBe(true);
    expect(r.categories.hate).toBe(false);
    expect(FAKE_MODERATION_CATEGORIES).toHaveLength(13);
    expect(Object.keys(r.categories).sort()).toEqual([...FAKE_MODERATION_CATEGORIES].sort());
    expect(Object.keys(r.category_scores).sort()).toEqual([...FAKE_MODERATION_CATEGORIES].sort());
    expect(r.category_applied_input_types.violence).toEqual(['text']);
  });

  it('takes an array of strings (one result each) and text and image parts (one result)', async () => {
    const client = gw.openai(via(), { apiKey: 'sk-good' });
    const many = await client.moderations.create({ model: 'omni-moderation-latest', input: ['hello', 'I hate this'] });
    expect(many.results.map((r) => r.flagged)).toEqual([false, true]);
    const parts = [
      { type: 'text' as const, text: 'what is this' },
      { type: 'image_url' as const, image_url: { url: 'https://example.com/kill.png' } },
    ];
    const mixed = await client.moderations.create({ model: 'omni-moderation-2024-09-26', input: parts });
    expect(fake.lastRequest!.body).toEqual({ model: 'omni-moderation-2024-09-26', input: parts });
    expect(mixed.results).toHaveLength(1);
    expect(mixed.results[0]!.categories.violence).toBe(true);
    expect(mixed.results[0]!.category_applied_input_types.violence).toEqual(['text', 'image']);
    expect(mixed.results[0]!.category_applied_input_types.hate).toEqual(['text']);
  });

  it('keeps text-moderation-stable', async () => {
    const res = await gw.openai(via(), { apiKey: 'sk-good' }).moderations.create({ input: 'hello', model: 'text-moderation-stable' });
    expect(res.model).toBe('text-moderation-stable');
    expect(res.results[0]!.flagged).toBe(false);
  });
});

describe('rerank through an OpenAI-compatible rerank host (vllm)', () => {
  it('ranks string and object documents, strips the provider prefix, cuts to top_n', async () => {
    const res = await gw.fetch('/v1/rerank', {
      method: 'POST',
      headers: viaFetch('vllm'),
      body: JSON.stringify({
        model: 'vllm.BAAI/bge-reranker-v2-m3',
        query: 'red fox',
        documents: ['a blue whale', { text: 'the red fox jumps', id: 7 }, 'a red car'],
        top_n: 2,
      }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(fake.lastRequest!.path).toBe('/v1/rerank');
    expect(fake.lastRequest!.body).toEqual({
      model: 'BAAI/bge-reranker-v2-m3',
      query: 'red fox',
      documents: ['a blue whale', 'the red fox jumps', 'a red car'],
      top_n: 2,
    });
    expect(body.object).toBe('list');
    expect(body.provider).toBe('vllm');
    expect(body.model).toBe('BAAI/bge-reranker-v2-m3');
    expect(body.results.map((r: any) => r.index)).toEqual([1, 2]);
    expect(body.results[0].document).toEqual({ text: 'the red fox jumps' });
    expect(body.results[0].relevance_score).toBeGreaterThan(body.results[1].relevance_score);
    expect(body.usage.search_units).toBe(1);
    expect(typeof body.id).toBe('string');
  });

  it('refuses rerank on a provider without it (400)', async () => {
    const res = await gw.fetch('/v1/rerank', {
      method: 'POST',
      headers: viaFetch('openai'),
      body: JSON.stringify({ model: 'm', query: 'q', documents: ['a'] }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.message).toMatch(/does not support rerank/);
  });

  it('records the span headers with the request log', async () => {
    const res = await gw.fetch('/v1/rerank', {
      method: 'POST',
      headers: {
        ...viaFetch('vllm'),
        'x-gateway-trace-id': 'trace-rerank-1',
        'x-gateway-span-id': 'span-1',
        'x-gateway-parent-span-id': 'span-0',
        'x-gateway-span-name': 'rank docs',
        'x-gateway-metadata': '{"team":"search"}',
      },
      body: JSON.stringify({ model: 'bge', query: 'q', documents: ['a'] }),
    });
    expect(res.status).toBe(200);
    await gw.gateway.deps.logs.flush();
    const logs = (await (await gw.fetch('/v1/logs?trace_id=trace-rerank-1')).json()) as any;
    expect(logs.data).toHaveLength(1);
    expect(logs.data[0].endpoint).toBe('rerank');
    expect(logs.data[0].metadata).toEqual({ team: 'search', span_id: 'span-1', parent_span_id: 'span-0', span_name: 'rank docs' });
  });
});

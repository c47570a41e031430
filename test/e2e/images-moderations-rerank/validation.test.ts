import { describe, expect, it } from 'vitest';
import { gatewayWithFakeOpenAI } from '../../helpers/gateway-with-fake-openai.js';

const env = gatewayWithFakeOpenAI();

const headers = () => ({ 'x-gateway-provider': 'openai', 'x-gateway-custom-host': env.fake.url, authorization: 'Bearer sk-x' });

async function post(path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await env.gw.fetch(path, { method: 'POST', headers: headers(), body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

/** Expects a 400 in the decisions.md shape naming `param`; the provider is never called. */
async function rejects(path: string, body: unknown, param: string, message?: RegExp): Promise<void> {
  const before = env.fake.requests.length;
  const r = await post(path, body);
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(Object.keys(r.body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(r.body.error.code).toBe('invalid_request');
  expect(r.body.error.type).toBe('invalid_request_error');
  expect(r.body.error.param).toBe(param);
  if (message) expect(r.body.error.message).toMatch(message);
  expect(env.fake.requests.length).toBe(before);
}

async function accepts(path: string, body: unknown): Promise<void> {
  const r = await post(path, body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

const IMG = '/v1/images/generations';

describe('POST /v1/images/generations body rules', () => {
  it('prompt is required and a non-empty string', async () => {
    await rejects(IMG, { model: 'dall-e-3' }, 'body.prompt', /required/);
    await rejects(IMG, { prompt: '' }, 'body.prompt');
    await rejects(IMG, { prompt: 5 }, 'body.prompt');
  });

  it('prompt: at most 1000 characters for dall-e-2 (and when model is absent), 4000 for dall-e-3 and other models', async () => {
    await accepts(IMG, { model: 'dall-e-2', prompt: 'a'.repeat(1000) });
    await rejects(IMG, { model: 'dall-e-2', prompt: 'a'.repeat(1001) }, 'body.prompt', /1000 characters for model 'dall-e-2'/);
    await rejects(IMG, { prompt: 'a'.repeat(1001) }, 'body.prompt', /1000/);
    await accepts(IMG, { model: 'dall-e-3', prompt: 'a'.repeat(4000) });
    await rejects(IMG, { model: 'dall-e-3', prompt: 'a'.repeat(4001) }, 'body.prompt', /4000/);
    await accepts(IMG, { model: 'gpt-image-1', prompt: 'a'.repeat(4000), response_format: undefined });
    await rejects(IMG, { model: 'gpt-image-1', prompt: 'a'.repeat(4001) }, 'body.prompt', /4000/);
  });

  it('n: an integer 1 to 10; only 1 for dall-e-3', async () => {
    await accepts(IMG, { model: 'dall-e-2', prompt: 'p', n: 10 });
    await rejects(IMG, { model: 'dall-e-2', prompt: 'p', n: 11 }, 'body.n');
    await rejects(IMG, { model: 'dall-e-2', prompt: 'p', n: 0 }, 'body.n');
    await rejects(IMG, { model: 'dall-e-2', prompt: 'p', n: 1.5 }, 'body.n');
    await rejects(IMG, { model: 'dall-e-2', prompt: 'p', n: '2' }, 'body.n');
    await accepts(IMG, { model: 'dall-e-3', prompt: 'p', n: 1 });
    await rejects(IMG, { model: 'dall-e-3', prompt: 'p', n: 2 }, 'body.n', /must be 1 for model 'dall-e-3'/);
  });

  it('quality: standard or hd for dall-e-3, not for dall-e-2', async () => {
    await accepts(IMG, { model: 'dall-e-3', prompt: 'p', quality: 'hd' });
    await accepts(IMG, { model: 'dall-e-3', prompt: 'p', quality: 'standard' });
    await rejects(IMG, { model: 'dall-e-3', prompt: 'p', quality: 'ultra' }, 'body.quality', /standard, hd/);
    await rejects(IMG, { model: 'dall-e-2', prompt: 'p', quality: 'hd' }, 'body.quality', /not supported for model 'dall-e-2'/);
    await rejects(IMG, { prompt: 'p', quality: 'standard' }, 'body.quality', /not supported/);
  });

  it('response_format: url or b64_json', async () => {
    await accepts(IMG, { model: 'dall-e-2', prompt: 'p', response_format: 'url' });
    await accepts(IMG, { model: 'dall-e-2', prompt: 'p', response_format: 'b64_json' });
    await rejects(IMG, { model: 'dall-e-2', prompt: 'p', response_format: 'png' }, 'body.response_format', /url, b64_json/);
  });

  it('size: the first three for dall-e-2 (and when model is absent), the last three for dall-e-3', async () => {
    for (const size of ['256x256', '512x512', '1024x1024']) await accepts(IMG, { model: 'dall-e-2', prompt: 'p', size });
    for (const size of ['1792x1024', '1024x1792']) await rejects(IMG, { model: 'dall-e-2', prompt: 'p', size }, 'body.size', /dall-e-2/);
    for (const size of ['1024x1024', '1792x1024', '1024x1792']) await accepts(IMG, { model: 'dall-e-3', prompt: 'p', size });
    for (const size of ['256x256', '512x512']) await rejects(IMG, { model: 'dall-e-3', prompt: 'p', size }, 'body.size', /dall-e-3/);
    await rejects(IMG, { prompt: 'p', size: '1792x1024' }, 'body.size');
  });

  it("a newer model's size, quality and style values reach an OpenAI target untouched", async () => {
    const body = { model: 'gpt-image-1', prompt: 'p', size: '1536x1024', quality: 'high', style: 'photo', background: 'transparent' };
    await accepts(IMG, body);
    expect(env.fake.lastRequest!.body).toMatchObject(body);
  });

  it('style: vivid or natural, not for dall-e-2', async () => {
    await accepts(IMG, { model: 'dall-e-3', prompt: 'p', style: 'vivid' });
    await accepts(IMG, { model: 'dall-e-3', prompt: 'p', style: 'natural' });
    await rejects(IMG, { model: 'dall-e-3', prompt: 'p', style: 'noir' }, 'body.style');
    await rejects(IMG, { model: 'dall-e-2', prompt: 'p', style: 'vivid' }, 'body.style', /not supported for model 'dall-e-2'/);
  });

  it('user and model are strings', async () => {
    await rejects(IMG, { prompt: 'p', user: 1 }, 'body.user');
    await rejects(IMG, { prompt: 'p', model: 3 }, 'body.model');
  });
});

const MOD = '/v1/moderations';

describe('POST /v1/moderations body rules', () => {
  it('input is required: a string, strings, or text and image parts', async () => {
    await rejects(MOD, {}, 'body.input', /required/);
    await rejects(MOD, { input: 1 }, 'body.input');
    await rejects(MOD, { input: [{ type: 'text' }] }, 'body.input');
    await rejects(MOD, { input: [{ type: 'image_url', image_url: 'https://example.com/a.png' }] }, 'body.input');
    await accepts(MOD, { input: ['a', 'b'] });
    await accepts(MOD, {
      input: [
        { type: 'text', text: 'a' },
        { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
      ],
    });
  });
  it('model is any name (default omni-moderation-latest)', async () => {
    await accepts(MOD, { input: 'x', model: 'text-moderation-stable' });
    await accepts(MOD, { input: 'x', model: 'omni-moderation-2024-09-26' });
    await accepts(MOD, { input: 'x' });
    expect(env.fake.lastRequest!.body.model).toBe('omni-moderation-latest');
    await rejects(MOD, { input: 'x', model: 1 }, 'body.model');
  });
});

const RR = '/v1/rerank';

describe('POST /v1/rerank body rules', () => {
  const ok = { model: 'm', query: 'q', documents: ['a'] };
  it('model, query and documents are required', async () => {
    await rejects(RR, { query: 'q', documents: ['a'] }, 'body.model', /required/);
    await rejects(RR, { model: '', query: 'q', documents: ['a'] }, 'body.model');
    await rejects(RR, { model: 'm', documents: ['a'] }, 'body.query', /required/);
    await rejects(RR, { model: 'm', query: 'q' }, 'body.documents', /required/);
  });
  it('documents: at least one, each a string or an object with text', async () => {
    await rejects(RR, { ...ok, documents: [] }, 'body.documents', /fewer than 1/);
    await rejects(RR, { ...ok, documents: [3] }, 'body.documents.0');
    await rejects(RR, { ...ok, documents: [{ title: 'no text' }] }, 'body.documents.0');
  });
  it('top_n and max_tokens_per_doc are integers of at least 1', async () => {
    await rejects(RR, { ...ok, top_n: 0 }, 'body.top_n');
    await rejects(RR, { ...ok, top_n: 1.5 }, 'body.top_n');
    await rejects(RR, { ...ok, max_tokens_per_doc: 0 }, 'body.max_tokens_per_doc');
    await rejects(RR, { ...ok, return_documents: 'yes' }, 'body.return_documents');
  });
});

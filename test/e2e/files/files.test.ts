import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toFile } from 'openai';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';

let gw: TestGateway;
let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-fake' });
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

/** POSTs a multipart form (gw.fetch would label any body as JSON). */
function postForm(path: string, form: FormData, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(gw.url + path, { method: 'POST', body: form, headers: { 'x-gateway-api-key': gw.adminKey, ...headers } });
}

const openaiHeaders = () => ({ 'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: 'sk-fake', custom_host: fake.url }) });

describe('files stored by the gateway (no provider named)', () => {
  it('uploads, lists with cursor paging, retrieves, reads content and deletes with the openai SDK', async () => {
    const client = gw.openai();
    const a = await client.files.create({ file: await toFile(Buffer.from('{"a":1}\n'), 'a.jsonl'), purpose: 'batch' });
    expect(a).toMatchObject({ object: 'file', bytes: 8, filename: 'a.jsonl', purpose: 'batch', status: 'processed' });
    expect(a).not.toHaveProperty('status_details');
    expect(a.id).toMatch(/^file-gw/);
    expect(Number.isInteger(a.created_at)).toBe(true);
    const b = await client.files.create({ file: await toFile(Buffer.from('hello'), 'b.txt'), purpose: 'vision' });
    const page1 = await client.files.list({ limit: 1 });
    expect(page1.data.map((f) => f.id)).toEqual([b.id]);
    expect(page1.has_more).toBe(true);
    const raw = (await (await gw.fetch(`/v1/files?limit=1&after=${b.id}`)).json()) as any;
    expect(raw).toMatchObject({ object: 'list', first_id: a.id, last_id: a.id, has_more: false });
    expect((await client.files.list({ purpose: 'vision' })).data.map((f) => f.id)).toEqual([b.id]);
    expect(await client.files.retrieve(a.id)).toEqual(a);
    expect(await (await client.files.content(a.id)).text()).toBe('{"a":1}\n');
    expect(await client.files.delete(a.id)).toEqual({ id: a.id, object: 'file', deleted: true });
    const gone = await gw.fetch(`/v1/files/${a.id}`);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual({
      error: { message: expect.stringContaining(a.id), type: 'not_found_error', param: 'file_id', code: 'not_found' },
    });
  });

  it('refuses a bad purpose, a missing file, a JSON body and a bad limit in the error shape', async () => {
    const form = new FormData();
    form.append('purpose', 'nonsense');
    form.append('file', new Blob(['x']), 'x.txt');
    const r1 = await postForm('/v1/files', form);
    expect(r1.status).toBe(400);
    expect(((await r1.json()) as any).error).toMatchObject({ param: 'purpose', code: 'invalid_request', type: 'invalid_request_error' });
    const f2 = new FormData();
    f2.append('purpose', 'batch');
    const r2 = await postForm('/v1/files', f2);
    expect(r2.status).toBe(400);
    expect(((await r2.json()) as any).error).toMatchObject({ param: 'file', code: 'invalid_request' });
    const r3 = await gw.fetch('/v1/files', { method: 'POST', body: JSON.stringify({ purpose: 'batch' }) });
    expect(r3.status).toBe(400);
    expect(((await r3.json()) as any).error.code).toBe('invalid_request');
    const r4 = await gw.fetch('/v1/files?limit=0');
    expect(r4.status).toBe(400);
    expect(((await r4.json()) as any).error).toMatchObject({ param: 'limit', code: 'invalid_request' });
  });

  it('keeps other routes refusing multipart bodies (415)', async () => {
    const form = new FormData();
    form.append('model', 'gpt-4o');
    const r = await postForm('/v1/chat/completions', form, openaiHeaders());
    expect(r.status).toBe(415);
    expect(((await r.json()) as any).error.code).toBe('unsupported_media_type');
  });

  it('streams a large upload to disk and back', async () => {
    const big = Buffer.alloc(8 * 1024 * 1024, 'x');
    const f = await gw.openai().files.create({ file: await toFile(big, 'big.jsonl'), purpose: 'batch' });
    expect(f.bytes).toBe(big.length);
    const back = Buffer.from(await (await gw.openai().files.content(f.id)).arrayBuffer());
    expect(back.equals(big)).toBe(true);
  });
});

describe('files forwarded to a provider with a Files API', () => {
  it('uploads to the provider, keeps its id, and routes later calls there', async () => {
    const client = gw.openai(openaiHeaders());
    const f = await client.files.create({ file: await toFile(Buffer.from('{"x":1}\n'), 'p.jsonl'), purpose: 'fine-tune' });
    expect(f.id).toMatch(/^file-/);
    expect(f.id).not.toMatch(/^file-gw/);
    const upload = fake.requests.find((r) => r.method === 'POST' && r.path === '/v1/files')!;
    expect(upload.headers.authorization).toBe('Bearer sk-fake');
    expect(String(upload.headers['content-type'])).toMatch(/^multipart\/form-data; boundary=/);
    expect(await client.files.retrieve(f.id)).toMatchObject({ id: f.id, filename: 'p.jsonl', purpose: 'fine-tune', bytes: 8 });
    expect((await client.files.list()).data.map((x) => x.id)).toContain(f.id);
    expect(await (await client.files.content(f.id)).text()).toBe('{"x":1}\n');
    // The gateway's own listing does not show provider files.
    expect((await gw.openai().files.list()).data.map((x) => x.id)).not.toContain(f.id);
    expect(await client.files.delete(f.id)).toMatchObject({ id: f.id, deleted: true });
  });

  it('keeps the provider status and message of an error', async () => {
    const client = gw.openai(openaiHeaders());
    const err = await client.files.retrieve('file-nope').catch((e) => e);
    expect(err.status).toBe(404);
    expect(err.error).toMatchObject({ message: 'No such file', provider: 'openai' });
    const bad = gw.openai({ 'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: 'wrong', custom_host: fake.url }) });
    const e2 = await bad.files.list().catch((e) => e);
    expect(e2.status).toBe(401);
  });
});

describe('OpenAPI', () => {
  it('documents the files, batches and fine-tuning routes', async () => {
    const doc = (await (await gw.fetch('/openapi.json')).json()) as any;
    for (const p of [
      '/v1/files',
      '/v1/files/{file_id}/content',
      '/v1/batches',
      '/v1/batches/{batch_id}/cancel',
      '/v1/fine_tuning/jobs/{job_id}/checkpoints',
    ])
      expect(doc.paths[p], p).toBeDefined();
  });
});

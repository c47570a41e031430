import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';

let gw: TestGateway;
let a: FakeOpenAI;
let b: FakeOpenAI;

beforeAll(async () => {
  [a, b] = await Promise.all([startFakeOpenAI({ apiKey: 'sk-a' }), startFakeOpenAI()]);
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
  await Promise.all([a?.close(), b?.close()]);
});

const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any });
const post = (path: string, body: unknown) => gw.fetch(path, { method: 'POST', body: JSON.stringify(body) }).then(json);
const chat = (headers: Record<string, string>) =>
  gw
    .fetch('/v1/chat/completions', {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'q' }] }),
    })
    .then(json);

describe('stored configs', () => {
  it('creates, uses by id and slug, versions on update, archives on delete', async () => {
    const created = await post('/v1/configs', {
      name: 'Main',
      slug: 'main',
      config: { provider: 'openai', api_key: 'sk-a', custom_host: a.url },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ slug: 'main', version: 1, status: 'active' });
    expect((await chat({ 'x-gateway-config': created.body.id })).status).toBe(200);
    expect((await chat({ 'x-gateway-config': 'main' })).status).toBe(200);
    const updated = await json(
      await gw.fetch('/v1/configs/main', {
        method: 'PUT',
        body: JSON.stringify({ config: { provider: 'openai', api_key: 'x', custom_host: b.url } }),
      }),
    );
    expect(updated.body.version).toBe(2);
    const before = b.requests.length;
    expect((await chat({ 'x-gateway-config': 'main' })).status).toBe(200);
    expect(b.requests.length).toBe(before + 1);
    const versions = await json(await gw.fetch('/v1/configs/main/versions'));
    expect(versions.body.data.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    const list = await json(await gw.fetch('/v1/configs?page_size=10&current_page=0'));
    expect(list.body.total).toBeGreaterThanOrEqual(1);
    expect((await gw.fetch('/v1/configs/main', { method: 'DELETE' })).status).toBe(200);
    const gone = await chat({ 'x-gateway-config': 'main' });
    expect(gone.status).toBe(404);
    expect(gone.body.error).toMatchObject({ code: 'not_found', param: 'x-gateway-config' });
    expect((await gw.fetch('/v1/configs/main')).status).toBe(404);
  });

  it('refuses invalid configs with the JSON path, duplicate slugs with 409, bad bodies with 400', async () => {
    const bad = await post('/v1/configs', {
      name: 'x',
      config: {
        strategy: { mode: 'fallback' },
        targets: [{ provider: 'openai', api_key: 'k', cb_config: { failure_threshold: 1, cooldown_interval: 10 } }],
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('config.targets[0].cb_config.cooldown_interval');
    await post('/v1/configs', { name: 'dup', slug: 'dup', config: { retry: { attempts: 1 } } });
    const dup = await post('/v1/configs', { name: 'dup', slug: 'dup', config: { retry: { attempts: 1 } } });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('conflict');
    expect((await post('/v1/configs', { name: 'x' })).status).toBe(400);
    expect((await post('/v1/configs', { name: 'x', slug: 'Bad Slug', config: { retry: { attempts: 1 } } })).status).toBe(400);
    const put = await json(
      await gw.fetch('/v1/configs/dup', { method: 'PUT', body: JSON.stringify({ config: { retry: { attempts: 99 } } }) }),
    );
    expect(put.status).toBe(400);
    expect(put.body.error.param).toBe('config.retry.attempts');
  });
});

describe('virtual keys and provider slugs', () => {
  it('stores a credential and resolves it by header, config virtual_key and @slug, never returning the secret', async () => {
    const vk = await post('/v1/virtual-keys', {
      name: 'A',
      slug: 'fake-a',
      provider: 'openai',
      key: 'sk-a',
      config: { custom_host: a.url },
    });
    expect(vk.status).toBe(201);
    expect(JSON.stringify(vk.body)).not.toContain('sk-a');
    expect((await chat({ 'x-gateway-virtual-key': 'fake-a' })).status).toBe(200);
    expect(a.lastRequest!.headers.authorization).toBe('Bearer sk-a');
    expect((await chat({ 'x-gateway-config': JSON.stringify({ virtual_key: vk.body.id }) })).status).toBe(200);
    expect((await chat({ 'x-gateway-config': JSON.stringify({ provider: '@fake-a', api_key: 'sk-a' }) })).status).toBe(200);
    expect((await chat({ 'x-gateway-provider': '@fake-a' })).status).toBe(200);
    const unknown = await chat({ 'x-gateway-virtual-key': 'nope' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'not_found', param: 'virtual_key' });
    expect(unknown.body.error.message).toContain("'nope'");
    expect((await post('/v1/virtual-keys', { name: 'x', provider: 'nope', key: 'k' })).status).toBe(400);
    const models = await json(await gw.fetch('/v1/models'));
    expect(models.body.total_count).toBeGreaterThanOrEqual(3);
  });
});

describe('OpenAI-compatible rows and OpenAI settings', () => {
  it('reaches a compatible host by name and sends organisation and project headers', async () => {
    const r = await chat({
      'x-gateway-config': JSON.stringify({
        provider: 'groq',
        api_key: 'gsk',
        custom_host: b.url,
        compat_organization: 'org-1',
        compat_project: 'proj-1',
      }),
    });
    expect(r.status).toBe(200);
    expect(r.body.choices[0].message.content).toBe('echo: q');
    expect(b.lastRequest!.headers['openai-organization']).toBe('org-1');
    expect(b.lastRequest!.headers['openai-project']).toBe('proj-1');
    expect(b.lastRequest!.headers.authorization).toBe('Bearer gsk');
  });
});

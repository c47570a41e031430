import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let gw: TestGateway;

beforeAll(async () => {
  gw = await startGateway();
  const vk = await gw.fetch('/v1/virtual-keys', {
    method: 'POST',
    body: JSON.stringify({ name: 'main', slug: 'main-openai', provider: 'openai', key: 'sk-x' }),
  });
  expect(vk.status).toBe(201);
});
afterAll(async () => gw?.close());

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await gw.fetch(path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, body: (await res.json()) as Json };
}

const TEMPLATE = JSON.stringify([
  { role: 'system', content: 'You are {{persona}}.' },
  { role: 'user', content: '{{question}}' },
]);

describe('prompt administration', () => {
  let id: string;
  let slug: string;

  it('creates a prompt (version 1, published) and reads it by id and by slug', async () => {
    const created = await call('POST', '/v1/prompts', {
      name: 'Support answer',
      string: TEMPLATE,
      parameters: { temperature: 0.3, max_completion_tokens: 64 },
      model: 'gpt-4o-mini',
      metadata: { owner: 'support' },
      virtual_key: 'main-openai',
      version_description: 'first cut',
    });
    expect(created.status).toBe(201);
    id = created.body.id;
    slug = created.body.slug;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(slug).toMatch(/^support-answer-[0-9a-f]{8}$/);
    expect(created.body).toMatchObject({
      object: 'prompt',
      version: 1,
      published_version: 1,
      latest_version: 1,
      string: TEMPLATE,
      model: 'gpt-4o-mini',
      virtual_key: 'main-openai',
      provider: null,
      version_description: 'first cut',
    });
    const bySlug = await call('GET', `/v1/prompts/${slug}`);
    expect(bySlug.status).toBe(200);
    expect(bySlug.body).toMatchObject({ id, parameters: { temperature: 0.3, max_completion_tokens: 64 }, metadata: { owner: 'support' } });
  });

  it('makes versions on update, selects them with @latest and @N, publishes with makeDefault', async () => {
    const v2 = await call('PUT', `/v1/prompts/${id}`, { string: 'Just answer: {{question}}', parameters: { temperature: 1 } });
    expect(v2.status).toBe(200);
    expect(v2.body).toMatchObject({
      version: 2,
      published_version: 1,
      latest_version: 2,
      string: 'Just answer: {{question}}',
      parameters: { temperature: 1 },
      model: null,
      metadata: {},
    });
    expect((await call('GET', `/v1/prompts/${id}`)).body).toMatchObject({ version: 1, string: TEMPLATE });
    expect((await call('GET', `/v1/prompts/${id}@latest`)).body).toMatchObject({ version: 2 });
    expect((await call('GET', `/v1/prompts/${slug}@1`)).body).toMatchObject({ version: 1, model: 'gpt-4o-mini' });
    const unknown = await call('GET', `/v1/prompts/${id}@9`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');

    const published = await call('PUT', `/v1/prompts/${id}/makeDefault`, { version: 2 });
    expect(published.body).toMatchObject({ version: 2, published_version: 2 });
    expect((await call('GET', `/v1/prompts/${id}`)).body.version).toBe(2);
    const noSuch = await call('PUT', `/v1/prompts/${id}/makeDefault`, { version: 7 });
    expect(noSuch.status).toBe(404);
    expect(noSuch.body.error.param).toBe('version');
  });

  it('back-fills string, parameters, metadata and model from the latest version with patch: true', async () => {
    await call('PUT', `/v1/prompts/${id}`, { string: TEMPLATE, parameters: { top_p: 0.5 }, model: 'gpt-4o', metadata: { owner: 'ops' } });
    const patched = await call('PUT', `/v1/prompts/${id}`, { patch: true, parameters: { temperature: 0.9 } });
    expect(patched.body).toMatchObject({
      version: 4,
      string: TEMPLATE,
      parameters: { temperature: 0.9 },
      model: 'gpt-4o',
      metadata: { owner: 'ops' },
    });
    const patchedModel = await call('PUT', `/v1/prompts/${id}`, { patch: true, model: null, string: 'Q: {{question}}' });
    expect(patchedModel.body).toMatchObject({
      version: 5,
      string: 'Q: {{question}}',
      parameters: { temperature: 0.9 },
      model: null,
      metadata: { owner: 'ops' },
    });
    const noPatch = await call('PUT', `/v1/prompts/${id}`, { parameters: { temperature: 0.1 } });
    expect(noPatch.status).toBe(400);
    expect(noPatch.body.error.param).toBe('body.string');
    const renamed = await call('PUT', `/v1/prompts/${id}`, { name: 'Renamed', provider: '@main-openai' });
    expect(renamed.body).toMatchObject({ name: 'Renamed', latest_version: 5, version: 5, provider: '@main-openai', virtual_key: null });
    const versions = await call('GET', `/v1/prompts/${id}/versions`);
    expect(versions.body.total).toBe(5);
    expect(versions.body.data.map((v: Json) => [v.version, v.published])).toEqual([
      [5, false],
      [4, false],
      [3, false],
      [2, true],
      [1, false],
    ]);
  });

  it('lists prompts with paging and a total', async () => {
    for (const name of ['b', 'c']) expect((await call('POST', '/v1/prompts', { name, string: `I am ${name}` })).status).toBe(201);
    const first = await call('GET', '/v1/prompts?page_size=2&current_page=0');
    expect(first.body).toMatchObject({ object: 'list', total: 3 });
    expect(first.body.data.map((p: Json) => p.name)).toEqual(['c', 'b']);
    const second = await call('GET', '/v1/prompts?page_size=2&current_page=1');
    expect(second.body.data.map((p: Json) => p.id)).toEqual([id]);
    expect(second.body.data[0].version).toBe(2);
  });

  it('deletes a prompt', async () => {
    const made = await call('POST', '/v1/prompts', { name: 'gone', slug: 'gone', string: 'x' });
    expect((await call('DELETE', '/v1/prompts/gone')).body).toEqual({ id: made.body.id, object: 'prompt', deleted: true });
    expect((await call('GET', `/v1/prompts/${made.body.id}`)).status).toBe(404);
    expect((await call('PUT', '/v1/prompts/gone', { string: 'y' })).status).toBe(404);
    expect((await call('POST', '/v1/prompts', { name: 'again', slug: 'gone', string: 'x' })).status).toBe(201);
  });

  it('rejects bad prompts with the error shape', async () => {
    const cases: Array<[unknown, number, string]> = [
      [{ name: 'x', string: 'hi', parameters: { temprature: 1 } }, 400, 'parameters.temprature'],
      [{ name: 'x', string: 'hi', parameters: { stream: true } }, 400, 'parameters.stream'],
      [{ name: 'x', string: 'hi', parameters: { model: 'gpt-4o' } }, 400, 'parameters.model'],
      [{ name: 'x', string: 'hi', parameters: { temperature: 5 } }, 400, 'body.parameters.temperature'],
      [{ name: 'x', string: '[{"role":"wizard","content":"hi"}]' }, 400, 'string[0].role'],
      [{ name: 'x', string: 'Hello {{#open}}' }, 400, 'string'],
      [{ name: 'x', string: `[{"role":"user","content":"hi","x":${'['.repeat(99_998)}${']'.repeat(99_998)}}]` }, 400, 'string'],
      [{ name: 'x', string: 'hi', virtual_key: 'nope' }, 400, 'virtual_key'],
      [{ name: 'x', string: 'hi', provider: '@nope' }, 400, 'provider'],
      [{ name: 'x', string: 'hi', slug: 'partials' }, 400, 'slug'],
      [{ string: 'hi' }, 400, 'body.name'],
      [{ name: 'x', string: 'hi', extra: 1 }, 400, 'body.extra'],
      [{ name: 'again', slug: 'gone', string: 'x' }, 409, 'slug'],
    ];
    for (const [body, status, param] of cases) {
      const res = await call('POST', '/v1/prompts', body);
      expect([res.status, res.body.error?.param], JSON.stringify(body)).toEqual([status, param]);
      expect(Object.keys(res.body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
    }
  });

  it('needs the prompts scopes', async () => {
    const key = await call('POST', '/v1/api-keys', { name: 'reader', type: 'workspace-service', scopes: ['prompts.read'] });
    expect(key.status).toBe(201);
    const headers = { 'x-gateway-api-key': key.body.key as string };
    expect((await gw.fetch('/v1/prompts', { headers })).status).toBe(200);
    const denied = await gw.fetch('/v1/prompts', { method: 'POST', headers, body: JSON.stringify({ name: 'x', string: 'y' }) });
    expect(denied.status).toBe(403);
  });
});

describe('OpenAPI', () => {
  it('documents the prompts routes under the prompts tag', async () => {
    const doc = (await (await gw.fetch('/openapi.json')).json()) as Json;
    for (const [path, method] of [
      ['/v1/prompts', 'post'],
      ['/v1/prompts/{promptId}', 'put'],
      ['/v1/prompts/{promptId}/makeDefault', 'put'],
      ['/v1/prompts/{promptId}/render', 'post'],
      ['/v1/prompts/{promptId}/completions', 'post'],
      ['/v1/prompts/partials/{partialId}', 'get'],
    ] as const) {
      expect(doc.paths[path]?.[method]?.tags, `${method} ${path}`).toEqual(['prompts']);
    }
    expect(doc.paths['/v1/prompts/{promptId}/render'].post.requestBody.content['application/json'].schema.required).toEqual(['variables']);
  });
});

describe('prompt partials', () => {
  it('are versioned like prompts: create, update, select, publish, list, delete', async () => {
    const created = await call('POST', '/v1/prompts/partials', { name: 'Sign Off', string: 'Regards, {{agent}}' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: 'prompt_partial', slug: 'sign-off', version: 1, published_version: 1 });
    expect(created.body).not.toHaveProperty('parameters');
    const v2 = await call('PUT', '/v1/prompts/partials/sign-off', { string: 'Cheers, {{agent}}' });
    expect(v2.body).toMatchObject({ version: 2, published_version: 1 });
    expect((await call('GET', '/v1/prompts/partials/sign-off')).body.string).toBe('Regards, {{agent}}');
    expect((await call('GET', '/v1/prompts/partials/sign-off@latest')).body.string).toBe('Cheers, {{agent}}');
    expect((await call('GET', '/v1/prompts/partials/sign-off@3')).status).toBe(404);
    expect((await call('PUT', '/v1/prompts/partials/sign-off/makeDefault', { version: 2 })).body.published_version).toBe(2);
    expect((await call('GET', '/v1/prompts/partials/sign-off/versions')).body.total).toBe(2);
    expect((await call('GET', '/v1/prompts/partials')).body).toMatchObject({ object: 'list', total: 1 });
    expect((await call('POST', '/v1/prompts/partials', { name: 'sign off', string: 'dup' })).status).toBe(409);
    expect((await call('POST', '/v1/prompts/partials', { name: 'bad', string: '{{/x}}' })).status).toBe(400);
    expect((await call('DELETE', `/v1/prompts/partials/${created.body.id}`)).body.deleted).toBe(true);
    expect((await call('GET', '/v1/prompts/partials/sign-off')).status).toBe(404);
  });
});

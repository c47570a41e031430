import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway } from '../../helpers/gateway.js';
import { compileRouteSchemasNow } from '../../../src/server/lazy-route-schemas.js';

type Json = Record<string, any>;

const GATEWAY_HEADERS = [
  'authorization',
  'x-gateway-config',
  'x-gateway-provider',
  'x-gateway-virtual-key',
  'x-gateway-custom-host',
  'x-gateway-metadata',
  'x-gateway-trace-id',
  'x-gateway-cache-force-refresh',
  'x-gateway-request-timeout',
  'x-gateway-forward-headers',
];

describe('GET /openapi.json', () => {
  let gw: Awaited<ReturnType<typeof startGateway>>;
  let doc: Json;

  beforeAll(async () => {
    gw = await startGateway();
    const res = await fetch(gw.url + '/openapi.json');
    expect(res.status).toBe(200);
    doc = (await res.json()) as Json;
  });
  afterAll(async () => {
    await gw?.close();
  });

  // The whole document against a committed copy, so that a change meant to leave the API alone (moving
  // files, renaming modules) is shown to, and one that changes it updates the copy in the same commit:
  // `npx vitest run test/e2e/core/openapi-document.test.ts -u` after a deliberate API change.
  it('is the committed copy (openapi.snapshot.json)', async () => {
    await expect(JSON.stringify(doc, null, 1) + '\n').toMatchFileSnapshot('./openapi.snapshot.json');
  });

  it('gives every operation a tag and a unique camelCase operationId derived from its method and path', () => {
    const ids: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Json>)) {
      for (const [method, op] of Object.entries(ops as Record<string, Json>)) {
        expect(op.tags?.length, `${method} ${path}`).toBeGreaterThan(0);
        expect(op.operationId, `${method} ${path}`).toMatch(/^(get|post|put|patch|delete)[A-Z][A-Za-z0-9]*$/);
        ids.push(op.operationId);
      }
    }
    expect(ids.length).toBeGreaterThanOrEqual(170);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.paths['/v1/api-keys'].post.operationId).toBe('postApiKeys');
    expect(doc.paths['/v1/api-keys/{id}/rotate'].post.operationId).toBe('postApiKeysByIdRotate');
    expect(doc.paths['/v1/chat/completions'].post.operationId).toBe('postChatCompletions');
  });

  it('declares the gateway key as the security scheme', () => {
    expect(doc.components.securitySchemes.gatewayKey).toEqual({ type: 'apiKey', in: 'header', name: 'x-gateway-api-key' });
  });

  const headerParams = (op: Json) => (op.parameters ?? []).filter((p: Json) => p.in === 'header').map((p: Json) => p.name);

  it.each([
    ['/v1/chat/completions', 'post'],
    ['/v1/embeddings', 'post'],
    ['/v1/messages', 'post'],
    ['/v1/responses', 'post'],
    ['/v1/models', 'get'],
  ])('%s declares the gateway request headers, its answer and the error shape', (path, method) => {
    const op = doc.paths[path][method];
    expect(headerParams(op)).toEqual(expect.arrayContaining(GATEWAY_HEADERS));
    for (const p of op.parameters.filter((x: Json) => x.in === 'header')) {
      expect(p.required ?? false).toBe(false);
      expect(typeof p.description).toBe('string');
    }
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '4XX', '5XX']));
    expect(op.responses['200'].description).not.toBe('Default Response');
    expect(op.responses['200'].headers).toHaveProperty('x-gateway-request-id');
    const error = op.responses['4XX'].content['application/json'].schema;
    expect(error.properties.error.required).toEqual(expect.arrayContaining(['message', 'type', 'param', 'code']));
  });

  it('shows the answer schemas, with SSE where the route streams', () => {
    const chat = doc.paths['/v1/chat/completions'].post.responses['200'].content;
    expect(chat['application/json'].schema.properties.object.const ?? chat['application/json'].schema.properties.object.enum?.[0]).toBe(
      'chat.completion',
    );
    expect(chat).toHaveProperty('text/event-stream');
    const embeddings = doc.paths['/v1/embeddings'].post.responses['200'].content;
    expect(embeddings['application/json'].schema.properties).toHaveProperty('data');
    expect(embeddings).not.toHaveProperty('text/event-stream');
    const messages = doc.paths['/v1/messages'].post.responses;
    expect(messages['200'].content['application/json'].schema.properties).toHaveProperty('stop_reason');
    expect(messages['4XX'].content['application/json'].schema.properties).toHaveProperty('type');
  });

  it('keeps what admin routes declare: 201 on create, no gateway headers', () => {
    for (const path of ['/v1/configs', '/v1/api-keys', '/v1/virtual-keys']) {
      const op = doc.paths[path]?.post;
      expect(op, path).toBeDefined();
      expect(Object.keys(op.responses), path).toContain('201');
      expect(Object.keys(op.responses), path).not.toContain('200');
      expect(headerParams(op), path).not.toContain('x-gateway-config');
    }
  });

  it('changes nothing at run time: a data-plane request without the headers is still answered by the route', async () => {
    const res = await gw.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error.param).toBe('provider');
  });

  it('compiles every route schema (they compile on first use, so a broken one would surface only then)', () => {
    expect(compileRouteSchemasNow(gw.gateway.app)).toBeGreaterThan(500);
  });
});

describe('route schemas compiled on first use', () => {
  it('validates and serialises a route never called before: a bad body gets the validation error, a good one its answer', async () => {
    const gw = await startGateway();
    try {
      const bad = await gw.fetch('/v1/workspaces', { method: 'POST', body: JSON.stringify({ name: 7 }) });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as Json).error.message).toMatch(/name/);
      const good = await gw.fetch('/v1/workspaces', { method: 'POST', body: JSON.stringify({ name: 'Lazy' }) });
      expect(good.status).toBe(201);
      const made = (await good.json()) as Json;
      expect(made.name).toBe('Lazy');
      const list = await gw.fetch('/v1/workspaces?limit=abc');
      expect(list.status).toBe(400);
      const page = await gw.fetch('/v1/workspaces');
      expect(page.status).toBe(200);
      expect(JSON.stringify(await page.json())).toContain(made.id);
    } finally {
      await gw.close();
    }
  });
});

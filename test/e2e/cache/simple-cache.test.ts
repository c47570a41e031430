import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { FakeClock } from '../../../src/foundation/lib/clock.js';
import { uuid } from '../../../src/foundation/lib/ids.js';
import { cacheCapability } from '../../../src/features/cache/cache-capability.js';
import { ask, cacheConfig, chat, chatCalls } from './cache-helpers.js';

let gw: TestGateway;
let fake: FakeOpenAI;
const clock = new FakeClock(Date.now());
const cache = cacheCapability();

beforeAll(async () => {
  fake = await startFakeOpenAI();
  gw = await startGateway({ capabilities: [cache], clock });
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});
beforeEach(() => fake.reset());

const simple = (maxAge?: number) => cacheConfig(fake, { mode: 'simple', ...(maxAge ? { max_age: maxAge } : {}) });
let n = 0;
/** A question no other test asks. */
const fresh = (label: string) => `${label} #${++n} ${Math.random()}`;

describe('simple cache (in-process backend)', () => {
  it('answers MISS, then HIT with the same body without calling the provider', async () => {
    const q = ask(fresh('capital of france'));
    const first = await chat(gw, simple(), q);
    expect(first).toMatchObject({ status: 200, cache: 'MISS' });
    await cache.settle();
    const second = await chat(gw, simple(), q);
    expect(second.status).toBe(200);
    expect(second.cache).toBe('HIT');
    expect(second.body).toEqual(first.body);
    expect(chatCalls(fake)).toBe(1);
  });

  it('says DISABLED and never stores without a cache config', async () => {
    const q = ask(fresh('no cache'));
    expect((await chat(gw, cacheConfig(fake, undefined), q)).cache).toBe('DISABLED');
    await cache.settle();
    expect((await chat(gw, cacheConfig(fake, undefined), q)).cache).toBe('DISABLED');
    expect(chatCalls(fake)).toBe(2);
  });

  it('treats reordered keys and answer-neutral fields (user, metadata) as the same request', async () => {
    const text = fresh('neutral');
    await chat(gw, simple(), ask(text, { temperature: 0 }));
    await cache.settle();
    const reordered = {
      temperature: 0,
      user: 'someone',
      metadata: { trace: 'x' },
      messages: [
        { content: 'be brief', role: 'system' },
        { content: text, role: 'user' },
      ],
      model: 'gpt-4o',
    };
    expect((await chat(gw, simple(), reordered)).cache).toBe('HIT');
    expect((await chat(gw, simple(), ask(text, { temperature: 1 }))).cache).toBe('MISS');
  });

  it('keys on the model after override_params', async () => {
    const text = fresh('override');
    const over = (model: string) => cacheConfig(fake, { mode: 'simple' }, { override_params: { model } });
    await chat(gw, over('gpt-4o-mini'), ask(text, { model: 'gpt-4o' }));
    await cache.settle();
    expect(fake.lastRequest!.body.model).toBe('gpt-4o-mini');
    expect((await chat(gw, over('gpt-4o-mini'), ask(text, { model: 'anything-else' }))).cache).toBe('HIT');
    expect((await chat(gw, over('gpt-4.1'), ask(text, { model: 'gpt-4o' }))).cache).toBe('MISS');
  });

  it('expires exactly at max_age (fake clock): HIT 1 ms before, MISS at max_age', async () => {
    const q = ask(fresh('expiry'));
    await chat(gw, simple(60), q);
    await cache.settle();
    clock.advance(60_000 - 1);
    expect((await chat(gw, simple(60), q)).cache).toBe('HIT');
    clock.advance(1);
    expect((await chat(gw, simple(60), q)).cache).toBe('MISS');
    expect(chatCalls(fake)).toBe(2);
  });

  it('does not serve an answer older than the reading config max_age', async () => {
    const q = ask(fresh('reader max age'));
    await chat(gw, simple(3600), q);
    await cache.settle();
    clock.advance(10_000);
    expect((await chat(gw, simple(5), q)).cache).toBe('MISS');
  });

  it('uses the 7-day default max_age', async () => {
    const q = ask(fresh('default age'));
    await chat(gw, simple(), q);
    await cache.settle();
    clock.advance(7 * 24 * 3600 * 1000 - 1000);
    expect((await chat(gw, simple(), q)).cache).toBe('HIT');
    clock.advance(1000);
    expect((await chat(gw, simple(), q)).cache).toBe('MISS');
  });

  it('force refresh skips the read, calls the provider and stores the fresh answer', async () => {
    const q = ask(fresh('refresh'));
    await chat(gw, simple(), q);
    await cache.settle();
    clock.advance(5_000);
    const refreshed = await chat(gw, simple(), q, { 'x-gateway-cache-force-refresh': 'true' });
    expect(refreshed.cache).toBe('REFRESH');
    expect(chatCalls(fake)).toBe(2);
    await cache.settle();
    clock.advance(60_000 - 5_000 + 1);
    expect((await chat(gw, simple(60), q)).cache).toBe('HIT');
    expect(chatCalls(fake)).toBe(2);
  });

  it('stores no failed answer', async () => {
    const q = ask(fresh('failing'));
    fake.fail({ status: 500, body: { error: { message: 'boom', type: 'server_error', param: null, code: null } } });
    const failed = await chat(gw, simple(), q);
    expect(failed.status).toBe(500);
    expect(failed.body.error.message).toContain('boom');
    await cache.settle();
    expect((await chat(gw, simple(), q)).cache).toBe('MISS');
    expect(chatCalls(fake)).toBe(2);
  });

  it('never shares answers between two credentials', async () => {
    const q = ask(fresh('credential'));
    await chat(gw, simple(), q, { authorization: 'Bearer sk-a' });
    await cache.settle();
    expect((await chat(gw, simple(), q, { authorization: 'Bearer sk-b' })).cache).toBe('MISS');
    await cache.settle();
    expect((await chat(gw, simple(), q, { authorization: 'Bearer sk-b' })).cache).toBe('HIT');
    expect(fake.requests.map((r) => r.headers.authorization)).toEqual(['Bearer sk-a', 'Bearer sk-b']);
  });

  it('never shares answers between two workspaces', async () => {
    const deps = gw.gateway.deps;
    const now = Date.now();
    const org = deps.runtime.current.workspacesById.get(deps.runtime.current.defaultWorkspaceId)!.organisation_id;
    const wsId = uuid();
    await deps.store.db
      .insertInto('workspaces')
      .values({
        id: wsId,
        organisation_id: org,
        name: 'Other',
        slug: `other-${n}`,
        status: 'active',
        settings: '{}',
        created_at: now,
        updated_at: now,
      })
      .execute();
    await deps.runtime.changed();
    const created = await gw.fetch('/v1/api-keys', {
      method: 'POST',
      body: JSON.stringify({ name: 'ws2', type: 'workspace-service', workspace_id: wsId }),
    });
    expect(created.status).toBe(201);
    const otherKey = ((await created.json()) as { key: string }).key;
    const q = ask(fresh('workspace'));
    await chat(gw, simple(), q);
    await cache.settle();
    expect((await chat(gw, simple(), q, { 'x-gateway-api-key': otherKey })).cache).toBe('MISS');
    await cache.settle();
    expect((await chat(gw, simple(), q, { 'x-gateway-api-key': otherKey })).cache).toBe('HIT');
    expect((await chat(gw, simple(), q)).cache).toBe('HIT');
    expect(chatCalls(fake)).toBe(2);
  });

  it('inherits cache from a parent: a fallback answered by its second target is cached for that target', async () => {
    const config = JSON.stringify({
      strategy: { mode: 'fallback' },
      cache: { mode: 'simple' },
      targets: [
        { provider: 'openai', custom_host: fake.url, api_key: 'sk-first' },
        { provider: 'openai', custom_host: fake.url, api_key: 'sk-second' },
      ],
    });
    const q = ask(fresh('fallback'));
    fake.fail({ status: 503, body: { error: { message: 'down', type: 'server_error', param: null, code: null } } });
    const first = await gw.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-gateway-config': config },
      body: JSON.stringify(q),
    });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-gateway-cache-status')).toBe('MISS');
    expect(first.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    await cache.settle();
    // The first target is looked up first (its key differs) and now answers; the second's entry is unused.
    const second = await gw.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-gateway-config': config },
      body: JSON.stringify(q),
    });
    expect(second.headers.get('x-gateway-cache-status')).toBe('MISS');
    expect(second.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[0]');
    await cache.settle();
    const third = await gw.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-gateway-config': config },
      body: JSON.stringify(q),
    });
    expect(third.headers.get('x-gateway-cache-status')).toBe('HIT');
    expect(fake.requests.map((r) => r.headers.authorization)).toEqual(['Bearer sk-first', 'Bearer sk-second', 'Bearer sk-first']);
  });

  it('caches embeddings and text completions too', async () => {
    const headers = { 'x-gateway-config': simple(), authorization: 'Bearer sk-a' };
    const input = fresh('embed me');
    const post = (path: string, body: unknown) => gw.fetch(path, { method: 'POST', headers, body: JSON.stringify(body) });
    const e1 = await post('/v1/embeddings', { model: 'text-embedding-3-small', input });
    await cache.settle();
    const e2 = await post('/v1/embeddings', { model: 'text-embedding-3-small', input });
    expect([e1.headers.get('x-gateway-cache-status'), e2.headers.get('x-gateway-cache-status')]).toEqual(['MISS', 'HIT']);
    expect(await e2.json()).toEqual(await e1.json());
    const prompt = fresh('complete me');
    await post('/v1/completions', { model: 'gpt-3.5-turbo-instruct', prompt });
    await cache.settle();
    const c2 = await post('/v1/completions', { model: 'gpt-3.5-turbo-instruct', prompt });
    expect(c2.headers.get('x-gateway-cache-status')).toBe('HIT');
    expect(((await c2.json()) as { choices: Array<{ text: string }> }).choices[0]!.text).toBe(` echo: ${prompt}`);
  });

  it('rejects an invalid cache config with the JSON path', async () => {
    const bad = await chat(gw, cacheConfig(fake, { mode: 'fuzzy' }), ask('x'));
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_config');
    expect(bad.body.error.message).toContain('config.cache');
    const negative = await chat(gw, cacheConfig(fake, { mode: 'simple', max_age: 0 }), ask('x'));
    expect(negative.status).toBe(400);
    expect(negative.body.error.message).toContain('config.cache.max_age');
  });
});

describe('gateway_cache_lookups_total', () => {
  /** The counter's value per status, read from /metrics (absent statuses read 0). */
  async function lookups(): Promise<Record<string, number>> {
    const text = await (await gw.fetch('/metrics')).text();
    const out: Record<string, number> = {};
    for (const line of text.split('\n')) {
      const m = /^gateway_cache_lookups_total\{status="([^"]+)"\} (\d+)$/.exec(line);
      if (m) out[m[1]!] = Number(m[2]);
    }
    return out;
  }

  it('counts every answer by its cache status, in the Prometheus text format with its help and type', async () => {
    const before = await lookups();
    const q = ask(fresh('counted'));
    await chat(gw, simple(), q);
    await cache.settle();
    await chat(gw, simple(), q);
    await chat(gw, simple(), q);
    await chat(gw, cacheConfig(fake, undefined), ask(fresh('counted, no cache')));
    const after = await lookups();
    const added = (s: string) => (after[s] ?? 0) - (before[s] ?? 0);
    expect({ MISS: added('MISS'), HIT: added('HIT'), DISABLED: added('DISABLED') }).toEqual({ MISS: 1, HIT: 2, DISABLED: 1 });
    const text = await (await gw.fetch('/metrics')).text();
    expect(text).toContain(
      '# HELP gateway_cache_lookups_total Answers by x-gateway-cache-status (HIT, SEMANTIC HIT, MISS, REFRESH, DISABLED).',
    );
    expect(text).toContain('# TYPE gateway_cache_lookups_total counter');
  });
});

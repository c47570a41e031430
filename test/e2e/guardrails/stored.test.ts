import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { chat, fakeConfig } from './helpers.js';

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
beforeEach(() => fake.reset());

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await gw.fetch(path, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

const secretCheck = { id: 'default.contains', parameters: { operator: 'none', words: ['secret'] } };

describe('/v1/guardrails CRUD', () => {
  it('creates, reads by id and slug, updates, deletes', async () => {
    const created = await api('POST', '/v1/guardrails', {
      name: 'No secrets',
      slug: 'no-secrets-crud',
      checks: [secretCheck],
      actions: { deny: true, on_fail: { feedback: { value: -1 } } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      object: 'guardrail',
      name: 'No secrets',
      slug: 'no-secrets-crud',
      checks: [secretCheck],
      actions: { deny: true, on_fail: { feedback: { value: -1 } } },
    });
    const id = created.body.id as string;
    expect((await api('GET', `/v1/guardrails/${id}`)).body.id).toBe(id);
    expect((await api('GET', '/v1/guardrails/no-secrets-crud')).body.id).toBe(id);

    const updated = await api('PUT', `/v1/guardrails/${id}`, {
      name: 'Renamed',
      checks: [{ id: 'default.wordCount', parameters: { maxWords: 3 } }],
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      name: 'Renamed',
      checks: [{ id: 'default.wordCount', parameters: { maxWords: 3 } }],
      actions: { deny: true },
    });

    const deleted = await api('DELETE', `/v1/guardrails/${id}`);
    expect(deleted.body).toEqual({ id, object: 'guardrail', deleted: true });
    const gone = await api('GET', `/v1/guardrails/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('not_found');
    expect((await api('PUT', `/v1/guardrails/${id}`, { name: 'x' })).status).toBe(404);
    expect((await api('DELETE', `/v1/guardrails/${id}`)).status).toBe(404);
  });

  it('refuses bad checks with 400 invalid_config naming the path', async () => {
    const missing = await api('POST', '/v1/guardrails', {
      name: 'bad',
      checks: [secretCheck, { id: 'default.contains', parameters: { operator: 'none' } }],
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'invalid_config', param: 'checks[1].parameters.words' });
    const unknown = await api('POST', '/v1/guardrails', { name: 'bad', checks: [{ id: 'default.nope', parameters: {} }] });
    expect(unknown.body.error).toMatchObject({ code: 'invalid_config', param: 'checks[0].id' });
    const badOp = await api('PUT', '/v1/guardrails/whatever', { checks: [] });
    expect(badOp.status).toBe(400);
    const extra = await api('POST', '/v1/guardrails', { name: 'bad', checks: [secretCheck], actions: { denny: true } });
    expect(extra.status).toBe(400);
    const created = await api('POST', '/v1/guardrails', { name: 'ok', checks: [secretCheck] });
    const badUpdate = await api('PUT', `/v1/guardrails/${created.body.id}`, {
      checks: [{ id: 'default.wordCount', parameters: { maxWords: -1 } }],
    });
    expect(badUpdate.body.error).toMatchObject({ code: 'invalid_config', param: 'checks[0].parameters.maxWords' });
  });

  it('409 on a duplicate slug in the workspace', async () => {
    expect((await api('POST', '/v1/guardrails', { name: 'a', slug: 'dup-slug', checks: [secretCheck] })).status).toBe(201);
    const again = await api('POST', '/v1/guardrails', { name: 'b', slug: 'dup-slug', checks: [secretCheck] });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
  });

  it('pages with current_page / page_size and looks up by ids', async () => {
    const gw2 = await startGateway();
    try {
      const ids: string[] = [];
      for (const n of ['one', 'two', 'three']) {
        const res = await gw2.fetch('/v1/guardrails', {
          method: 'POST',
          body: JSON.stringify({ name: n, slug: `page-${n}`, checks: [secretCheck] }),
        });
        ids.push(((await res.json()) as any).id);
      }
      const list = async (q: string) => (await (await gw2.fetch(`/v1/guardrails${q}`)).json()) as any;
      const first = await list('?page_size=2');
      expect(first).toMatchObject({ object: 'list', total: 3 });
      expect(first.data.map((g: any) => g.name)).toHaveLength(2);
      const second = await list('?page_size=2&current_page=1');
      expect(second.total).toBe(3);
      expect(second.data).toHaveLength(1);
      expect(new Set([...first.data, ...second.data].map((g: any) => g.id))).toEqual(new Set(ids));
      const byIds = await list(`?ids=${ids[0]},${ids[2]}`);
      expect(byIds.total).toBe(2);
      expect(byIds.data.map((g: any) => g.id).sort()).toEqual([ids[0], ids[2]].sort());
      const bySlug = await list('?ids=page-two,nope');
      expect(bySlug.data.map((g: any) => g.id)).toEqual([ids[1]]);
      expect((await list('?ids=')).total).toBe(0);
      expect((await gw2.fetch('/v1/guardrails?page_size=-1')).status).toBe(400);
    } finally {
      await gw2.close();
    }
  });
});

describe('stored guardrails in configs', () => {
  it('a string item (id or slug) runs the stored checks with the stored actions', async () => {
    const g = (
      await api('POST', '/v1/guardrails', { name: 'deny secrets', slug: 'deny-secrets', checks: [secretCheck], actions: { deny: true } })
    ).body;
    for (const ref of [g.id, 'deny-secrets']) {
      const res = await chat(gw, fakeConfig(fake, { input_guardrails: [ref] }), 'the secret');
      expect(res.status).toBe(446);
      expect(res.body.hook_results.before_request_hooks[0]).toMatchObject({ id: g.id, verdict: false, deny: true });
    }
    expect(fake.requests).toHaveLength(0);
    expect((await chat(gw, fakeConfig(fake, { input_guardrails: ['deny-secrets'] }), 'fine')).status).toBe(200);
  });

  it('a hook object without checks names a stored guardrail; its own actions override the stored ones', async () => {
    await api('POST', '/v1/guardrails', { name: 'warn secrets', slug: 'warn-secrets', checks: [secretCheck] });
    const warn = await chat(gw, fakeConfig(fake, { before_request_hooks: [{ id: 'warn-secrets' }] }), 'secret');
    expect(warn.status).toBe(246);
    const deny = await chat(gw, fakeConfig(fake, { before_request_hooks: [{ id: 'warn-secrets', on_fail: { deny: true } }] }), 'secret');
    expect(deny.status).toBe(446);
    const inlineRef = await chat(gw, fakeConfig(fake, { input_guardrails: [{ id: 'warn-secrets', deny: true }] }), 'secret');
    expect(inlineRef.status).toBe(446);
  });

  it('an update is seen by the next request (runtime snapshot)', async () => {
    const g = (await api('POST', '/v1/guardrails', { name: 'flip', checks: [secretCheck], actions: { deny: true } })).body;
    expect((await chat(gw, fakeConfig(fake, { output_guardrails: [g.id] }), 'hello')).status).toBe(200);
    await api('PUT', `/v1/guardrails/${g.id}`, {
      checks: [{ id: 'default.contains', parameters: { operator: 'none', words: ['hello'] } }],
    });
    expect((await chat(gw, fakeConfig(fake, { output_guardrails: [g.id] }), 'hello')).status).toBe(446);
  });

  it('an unknown string item is a 400 invalid_config naming the item, before any provider call', async () => {
    const config = {
      strategy: { mode: 'fallback' },
      targets: [fakeConfig(fake), fakeConfig(fake, { output_guardrails: ['no-such-guardrail'] })],
    };
    const res = await chat(gw, config, 'hi');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_config', param: 'config.targets[1].output_guardrails[0]' });
    expect(fake.requests).toHaveLength(0);
  });

  it('a stored check that cannot run in the event is refused at request time', async () => {
    await api('POST', '/v1/guardrails', { name: 'not null', slug: 'not-null-only', checks: [{ id: 'default.notNull', parameters: {} }] });
    const res = await chat(gw, fakeConfig(fake, { input_guardrails: ['not-null-only'] }), 'hi');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_config', param: 'config.input_guardrails[0]' });
  });

  it('a stored config with inline and stored guardrails', async () => {
    await api('POST', '/v1/guardrails', {
      name: 'short',
      slug: 'short-answers',
      checks: [{ id: 'default.wordCount', parameters: { maxWords: 2 } }],
      actions: { deny: true },
    });
    const cfg = await api('POST', '/v1/configs', {
      name: 'guarded',
      slug: 'guarded-config',
      config: fakeConfig(fake, {
        input_guardrails: [{ 'default.contains': { operator: 'none', words: ['x'] } }],
        output_guardrails: ['short-answers'],
      }),
    });
    expect(cfg.status).toBe(201);
    expect((await chat(gw, 'guarded-config', 'hi')).status).toBe(200);
    const long = await chat(gw, 'guarded-config', 'a b c');
    expect(long.status).toBe(446);
    expect(long.body.hook_results.before_request_hooks[0].verdict).toBe(true);
  });
});

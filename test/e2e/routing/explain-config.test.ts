import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { callAs, insertKey, createOrganisation } from '../tenancy/tenant-helpers.js';

/** loadbalance(70: fallback(conditional(premium → A, default B), C), 30: D) */
const nested = (host: string) => ({
  strategy: { mode: 'loadbalance' },
  retry: { attempts: 2 },
  targets: [
    {
      weight: 7,
      strategy: { mode: 'fallback', on_status_codes: [429, 503] },
      request_timeout: 5000,
      targets: [
        {
          strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.plan': 'premium' }, then: 'A' }], default: 'B' },
          targets: [
            { name: 'A', provider: 'openai', api_key: 'sk-a', custom_host: host, override_params: { model: 'gpt-4.1' } },
            { name: 'B', provider: 'anthropic', api_key: 'sk-b' },
          ],
        },
        { name: 'C', provider: 'openai', api_key: 'sk-c', custom_host: host },
      ],
    },
    { name: 'D', weight: 3, provider: 'openai', api_key: 'sk-d', custom_host: host },
  ],
});

describe('POST /v1/configs/explain', () => {
  let gw: TestGateway;
  let fake: FakeOpenAI;
  let otherKey: string;
  const explain = (body: unknown, key = gw.adminKey) => callAs(gw, key, 'POST', '/v1/configs/explain', body);

  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-cb' });
    gw = await startGateway();
    const other = await createOrganisation(gw, 'other-org');
    otherKey = await insertKey(gw, { organisationId: other.organisationId, workspaceId: other.workspaceId, type: 'workspace-service' });
    await gw.gateway.deps.runtime.changed();
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });

  it('explains a nested inline config node by node without calling a provider', async () => {
    const r = await explain({ config: nested(fake.url), request: { model: 'gpt-4o', metadata: { plan: 'premium' } } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.object).toBe('config_explanation');
    const nodes = r.body.nodes as Array<Record<string, unknown>>;
    expect(nodes.map((n) => [n.path, n.mode, n.probability])).toEqual([
      ['config', 'loadbalance', 1],
      ['config.targets[0]', 'fallback', 0.7],
      ['config.targets[0].targets[0]', 'conditional', 0.7],
      ['config.targets[0].targets[0].targets[0]', 'leaf', 0.7],
      ['config.targets[0].targets[1]', 'leaf', 0],
      ['config.targets[1]', 'leaf', 0.3],
    ]);
    expect(nodes[0]!.weights).toEqual([
      { path: 'config.targets[0]', weight: 7, chance: 0.7 },
      { path: 'config.targets[1]', weight: 3, chance: 0.3 },
    ]);
    expect(nodes[1]).toMatchObject({
      order: ['config.targets[0].targets[0]', 'config.targets[0].targets[1]'],
      on_status_codes: [429, 503],
    });
    expect(nodes[2]).toMatchObject({
      chosen: 'config.targets[0].targets[0].targets[0]',
      reason: 'condition 0 matched',
      conditions: [{ matched: true }],
    });
    const targets = r.body.targets as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const a = targets.find((t) => t.name === 'A')!;
    expect(a).toMatchObject({ provider: 'openai', model: 'gpt-4.1', probability: 0.7, role: 'primary' });
    expect(a.settings).toMatchObject({ request_timeout: 5000, retry: { attempts: 2 } });
    expect(targets.find((t) => t.name === 'C')).toMatchObject({ role: 'fallback', probability: 0 });
    expect(fake.requests).toHaveLength(0);

    const free = await explain({ config: nested(fake.url), request: { metadata: { plan: 'free' } } });
    expect(free.body.nodes[2]).toMatchObject({
      chosen: 'config.targets[0].targets[0].targets[1]',
      reason: 'no condition matched: the default',
    });
  });

  it('explains a stored config by id and by slug, and shows an open circuit', async () => {
    const config = {
      strategy: { mode: 'fallback' },
      targets: [
        {
          name: 'flaky',
          provider: 'openai',
          api_key: 'sk-cb',
          custom_host: fake.url,
          cb_config: { failure_threshold: 1, cooldown_interval: 60000 },
        },
        { name: 'spare', provider: 'openai', api_key: 'sk-cb', custom_host: fake.url },
      ],
    };
    const stored = await callAs(gw, gw.adminKey, 'POST', '/v1/configs', { name: 'with breaker', slug: 'with-breaker', config });
    expect(stored.status).toBe(201);
    const before = await explain({ config_id: stored.body.id });
    expect(before.status).toBe(200);
    expect(before.body.targets[0]).toMatchObject({ name: 'flaky', role: 'primary', circuit: { state: 'closed', failures: 0 } });
    // One 500 from the first target opens its circuit (threshold 1); the fallback answers.
    fake.fail({ status: 500, body: { error: { message: 'boom', type: 'server_error' } } });
    const res = await gw.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-gateway-config': 'with-breaker' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    const after = await explain({ config_id: 'with-breaker', request: { model: 'gpt-4o' } });
    expect(after.status).toBe(200);
    const flaky = after.body.targets.find((t: { name: string }) => t.name === 'flaky');
    expect(flaky).toMatchObject({ role: 'fallback', probability: 0, circuit: { state: 'open', failures: 1 } });
    expect(after.body.targets.find((t: { name: string }) => t.name === 'spare')).toMatchObject({ role: 'primary', probability: 1 });
    expect(after.body.nodes.find((n: { path: string }) => n.path === 'config.targets[0]')).toMatchObject({ circuit: { state: 'open' } });
  });

  it('bad inputs', async () => {
    const none = await explain({ request: {} });
    expect(none.status).toBe(400);
    expect(none.body.error.code).toBe('invalid_request');
    const both = await explain({ config: { provider: 'openai', api_key: 'k' }, config_id: 'x' });
    expect(both.status).toBe(400);
    const unknownField = await explain({ config: { provider: 'openai', api_key: 'k' }, extra: 1 });
    expect(unknownField.status).toBe(400);
    const unknownRequestField = await explain({ config: { provider: 'openai', api_key: 'k' }, request: { modle: 'x' } });
    expect(unknownRequestField.status).toBe(400);
    const invalid = await explain({
      config: { strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', api_key: 'k', retry: { attempts: 9 } }] },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe('invalid_config');
    expect(invalid.body.error.message).toContain('config.targets[0].retry.attempts');
    const missing = await explain({ config_id: 'no-such-config' });
    expect(missing.status).toBe(404);
    const mine = await callAs(gw, gw.adminKey, 'POST', '/v1/configs', { name: 'mine', config: { provider: 'openai', api_key: 'k' } });
    const foreign = await explain({ config_id: mine.body.id }, otherKey);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('not_found');
  });

  it('needs configs.read', async () => {
    const created = await callAs(gw, gw.adminKey, 'POST', '/v1/api-keys', { name: 'chat only', scopes: ['completions.write'] });
    const r = await explain({ config: { provider: 'openai', api_key: 'k' } }, created.body.key);
    expect(r.status).toBe(403);
  });
});

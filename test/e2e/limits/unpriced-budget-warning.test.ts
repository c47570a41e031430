import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { callAs } from '../tenancy/tenant-helpers.js';

/** A cost budget on traffic of models the gateway has no price for warns at creation (`warnings`). */
describe('cost budgets on models without a price', () => {
  let gw: TestGateway;
  let fake: FakeOpenAI;
  const admin = (method: string, path: string, body?: unknown) => callAs(gw, gw.adminKey, method, path, body);

  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-fake' });
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });

  it('no traffic: no warning', async () => {
    const made = await admin('POST', '/v1/policies/usage-limits', { type: 'cost', credit_limit: 10 });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.warnings).toEqual([]);
  });

  it('after traffic of a self-hosted model (cost 0) the cost budget names it; a tokens budget does not warn', async () => {
    const client = gw.openai({ 'x-gateway-provider': 'openai', 'x-gateway-custom-host': fake.url }, { apiKey: 'sk-fake' });
    await client.chat.completions.create({ model: 'my-llama-3-8b', messages: [{ role: 'user', content: 'hi' }] });
    await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    const deadline = Date.now() + 10_000;
    while ((await admin('GET', '/v1/logs?page_size=10')).body.total < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));

    const cost = await admin('POST', '/v1/policies/usage-limits', { type: 'cost', credit_limit: 10, name: 'monthly dollars' });
    expect(cost.status, JSON.stringify(cost.body)).toBe(201);
    expect(cost.body.warnings).toHaveLength(1);
    expect(cost.body.warnings[0]).toMatchObject({ code: 'unpriced_models', models: ['my-llama-3-8b'] });
    expect(cost.body.warnings[0].message).toContain('pricing_config');
    // Reads do not carry warnings: they are advice of the create.
    expect((await admin('GET', `/v1/policies/usage-limits/${cost.body.id}`)).body.warnings).toBeUndefined();

    const tokens = await admin('POST', '/v1/policies/usage-limits', { type: 'tokens', credit_limit: 1000 });
    expect(tokens.status).toBe(201);
    expect(tokens.body.warnings).toEqual([]);
  });
});

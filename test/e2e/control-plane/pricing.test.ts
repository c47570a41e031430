import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calcPrice } from '@pydantic/genai-prices';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { callAs, createOrganisation } from '../tenancy/tenant-helpers.js';

/** What gpt-4o costs in the catalogue for these token counts (input includes the cached part). */
function catalogue(
  model: string,
  u: { prompt_tokens: number; completion_tokens: number; prompt_tokens_details?: { cached_tokens?: number } },
): number {
  return calcPrice(
    { input_tokens: u.prompt_tokens, cache_read_tokens: u.prompt_tokens_details?.cached_tokens ?? 0, output_tokens: u.completion_tokens },
    model,
    { providerId: 'openai' },
  )!.total_price;
}

/** Runs on SQLite and, in the postgres project, on PostgreSQL. */
describe('prices: cost on every log row, usage details, GET /v1/models', () => {
  const KEY = 'sk-pricing-key-0123456789';
  let gw: TestGateway;
  let fake: FakeOpenAI;
  let integrationId: string;
  const admin = (method: string, path: string, body?: unknown) => callAs(gw, gw.adminKey, method, path, body);
  const logs = async () => {
    await gw.gateway.deps.logs.flush();
    return (await admin('GET', '/v1/logs?page_size=100')).body.data as Array<Record<string, any>>;
  };

  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: KEY, usageDetails: { cachedTokens: 40, reasoningTokens: 12 } });
    gw = await startGateway();
    const created = await admin('POST', '/v1/integrations', {
      name: 'OpenAI priced',
      slug: 'openai-priced-int',
      ai_provider_id: 'openai',
      key: KEY,
      configurations: { custom_host: fake.url },
      default_provider_slug: 'openai-priced',
      pricing_adjustments: { multiplier: 1.5 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    integrationId = created.body.id;
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });

  it('a JSON answer: cost = tokens × catalogue prices × multiplier, with unit prices, cached and reasoning tokens on the row', async () => {
    const answer = await gw
      .openai({}, { apiKey: 'unused' })
      .chat.completions.create({ model: '@openai-priced/gpt-4o', messages: [{ role: 'user', content: 'price me' }] });
    const u = answer.usage!;
    expect(u.prompt_tokens_details?.cached_tokens).toBe(40);
    const expected = catalogue('gpt-4o', u) * 1.5;
    const row = (await logs()).find((r) => r.model === 'gpt-4o')!;
    expect(row.cost).toBeCloseTo(expected, 12);
    expect(row.unit_prices).toEqual({
      input_mtok: 2.5,
      output_mtok: 10,
      cache_read_mtok: 1.25,
      multiplier: 1.5,
      source: 'catalogue',
      catalogue_model: 'gpt-4o',
    });
    expect(row).toMatchObject({
      cached_tokens: 40,
      cache_write_tokens: 0,
      reasoning_tokens: 12,
      prompt_tokens: u.prompt_tokens,
      completion_tokens: u.completion_tokens,
    });
  });

  it('a streamed answer is priced too, with the pricing_config of the integration model', async () => {
    const put = await admin('PUT', `/v1/integrations/${integrationId}/integration-models`, {
      models: [{ slug: 'gpt-4o-mini', enabled: true, pricing_config: { input_mtok: 1, output_mtok: 4 } }],
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const stream = await gw.openai({}, { apiKey: 'unused' }).chat.completions.create({
      model: '@openai-priced/gpt-4o-mini',
      messages: [{ role: 'user', content: 'stream me' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: { prompt_tokens: number; completion_tokens: number } | undefined;
    for await (const c of stream) if (c.usage) usage = c.usage;
    expect(usage).toBeDefined();
    const row = (await logs()).find((r) => r.model === 'gpt-4o-mini' && r.stream)!;
    // The override sets input and output; the cached part keeps the catalogue's cache price.
    const mini = calcPrice({ input_tokens: 1, output_tokens: 1 }, 'gpt-4o-mini', { providerId: 'openai' })!.model_price as Record<
      string,
      number
    >;
    const expected = (((usage!.prompt_tokens - 40) * 1 + 40 * mini.cache_read_mtok! + usage!.completion_tokens * 4) / 1e6) * 1.5;
    expect(row.cost).toBeCloseTo(expected, 12);
    expect(row.unit_prices).toMatchObject({
      input_mtok: 1,
      output_mtok: 4,
      cache_read_mtok: mini.cache_read_mtok,
      multiplier: 1.5,
      source: 'pricing_config',
    });
    expect(row.cached_tokens).toBe(40);
  });

  it('a streamed answer whose client did not ask for usage is priced from the usage the gateway asked for', async () => {
    const before = (await logs()).length;
    const stream = await gw
      .openai({}, { apiKey: 'unused' })
      .chat.completions.create({ model: '@openai-priced/gpt-4o', messages: [{ role: 'user', content: 'quiet stream' }], stream: true });
    for await (const c of stream) expect(c.usage ?? undefined).toBeUndefined();
    const rows = await logs();
    expect(rows.length).toBe(before + 1);
    expect(rows[0]!.cost).toBeGreaterThan(0);
    expect(rows[0]!.unit_prices).toMatchObject({ source: 'catalogue', multiplier: 1.5 });
  });

  it('a model neither the catalogue nor pricing_config prices costs 0 with unit_prices null', async () => {
    await gw
      .openai({}, { apiKey: 'unused' })
      .chat.completions.create({ model: '@openai-priced/house-model-x', messages: [{ role: 'user', content: 'free' }] });
    const row = (await logs()).find((r) => r.model === 'house-model-x')!;
    expect(row).toMatchObject({ cost: 0, unit_prices: null });
  });

  it('pricing_config is validated at save: unknown units and negative prices are 400 naming the field', async () => {
    for (const pricing_config of [{ input_mtok: -1 }, { per_request: 1 }, { input_mtok: 'cheap' }]) {
      const bad = await admin('PUT', `/v1/integrations/${integrationId}/integration-models`, {
        models: [{ slug: 'gpt-4o', enabled: true, pricing_config }],
      });
      expect(bad.status, JSON.stringify(pricing_config)).toBe(400);
      expect(bad.body.error.code).toBe('invalid_request');
      expect(JSON.stringify(bad.body.error)).toMatch(/pricing_config/);
    }
  });

  it('GET /v1/models: context_window and pricing from the catalogue, the integration terms applied, paging, total_count, filters', async () => {
    const res = await admin('GET', '/v1/models?provider=openai');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.object).toBe('list');
    const byId = new Map((res.body.data as Array<Record<string, any>>).map((m) => [m.id, m]));
    expect(byId.get('gpt-4o')).toMatchObject({
      object: 'model',
      provider: 'openai',
      context_window: 128_000,
      pricing: { input_mtok: 2.5, output_mtok: 10, multiplier: 1.5, source: 'catalogue' },
    });
    expect(byId.get('gpt-4o-mini')).toMatchObject({
      pricing: { input_mtok: 1, output_mtok: 4, multiplier: 1.5, source: 'pricing_config' },
    });
    expect(res.body.total_count).toBe(3);
    const page = await admin('GET', '/v1/models?provider=openai&page_size=2&current_page=1');
    expect(page.body.total_count).toBe(3);
    expect(page.body.data).toHaveLength(1);
    expect((await admin('GET', '/v1/models?provider=anthropic')).body).toMatchObject({ data: [], total_count: 0 });
    expect((await admin('GET', '/v1/models?page_size=0')).status).toBe(400);
    expect((await admin('GET', '/v1/models?page_size=101')).status).toBe(400);
    expect((await admin('GET', '/v1/models?unknown=1')).status).toBe(400);
  });

  it("GET /v1/models?workspace_id: an organisation key lists one of its workspaces; another organisation's is 404", async () => {
    const ws = gw.gateway.deps.runtime.current.defaultWorkspaceId;
    const own = await admin('GET', `/v1/models?workspace_id=${ws}`);
    expect(own.status).toBe(200);
    expect(own.body.total_count).toBe(3);
    const otherKey = (await createOrganisation(gw, 'pricing-other-org')).adminKey;
    const refused = await callAs(gw, otherKey, 'GET', `/v1/models?workspace_id=${ws}`);
    expect(refused.status).toBe(404);
    expect(refused.body.error).toMatchObject({ code: 'not_found', param: 'workspace_id' });
  });

  it('with an allow list, only enabled models are listed', async () => {
    await admin('PUT', `/v1/integrations/${integrationId}/integration-models`, {
      allow_all_models: false,
      models: [{ slug: 'gpt-4o', enabled: true }],
    });
    const res = await admin('GET', '/v1/models');
    expect((res.body.data as Array<{ id: string }>).map((m) => m.id)).toEqual(['gpt-4o']);
    await admin('PUT', `/v1/integrations/${integrationId}/integration-models`, { allow_all_models: true, models: [] });
  });
});

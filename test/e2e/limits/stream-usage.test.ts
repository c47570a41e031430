import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { randomId } from '../../../src/foundation/lib/ids.js';
import { createLimitsCapability } from '../../../src/features/limits/limits-capability.js';
import { estimateTokens } from '../../../src/features/limits/estimate-tokens.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { reply, startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';

type Json = Record<string, any>;

/**
 * Streamed answers count: the gateway asks OpenAI-compatible providers for the usage chunk on every
 * stream, strips it when the client did not ask for it, passes the stream byte for byte when it did,
 * and usage limits and token rate limits count the same figures.
 */
describe('streamed usage through an OpenAI-compatible provider', () => {
  let gw: TestGateway;
  let fake: FakeOpenAI;
  let caseId: string;
  const counted: number[] = [];
  let settled = 0;

  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-good' });
    gw = await startGateway({ capabilities: [createLimitsCapability({ onCounted: (n) => counted.push(n), onSettled: () => settled++ })] });
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });
  beforeEach(() => {
    caseId = randomId(10);
  });

  const body = (extra: Json = {}) => ({
    model: 'gpt-4o',
    stream: true,
    messages: [{ role: 'user', content: `stream my tokens ${caseId}` }],
    ...extra,
  });
  const expectedTokens = (b: Json) => {
    const r = reply(b);
    return r.promptTokens + r.completionTokens;
  };
  async function stream(b: Json): Promise<string> {
    const before = settled;
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-gateway-api-key': gw.adminKey,
        'x-gateway-provider': 'openai',
        'x-gateway-custom-host': fake.url,
        authorization: 'Bearer sk-good',
        'x-gateway-metadata': JSON.stringify({ case: caseId }),
      },
      body: JSON.stringify(b),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    for (let i = 0; i < 200 && settled === before; i++) await new Promise((r) => setTimeout(r, 5));
    return text;
  }
  /** The fake's own stream for a body, asked directly. */
  const direct = async (b: Json) =>
    (
      await fetch(`${fake.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-good' },
        body: JSON.stringify(b),
      })
    ).text();
  async function usagePolicy(): Promise<string> {
    const res = await gw.fetch('/v1/policies/usage-limits', {
      method: 'POST',
      body: JSON.stringify({ type: 'tokens', credit_limit: 1_000_000, conditions: [{ key: 'metadata.case', value: caseId }] }),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as Json).id;
  }
  const used = async (id: string) => ((await (await gw.fetch(`/v1/policies/usage-limits/${id}/entities`)).json()) as Json).data[0]?.used;

  it('asks upstream for usage, strips the usage chunk from the client stream, and counts the reported tokens', async () => {
    const id = await usagePolicy();
    const rl = await gw.fetch('/v1/policies/rate-limits', {
      method: 'POST',
      body: JSON.stringify({ type: 'tokens', unit: 'rpd', value: 1_000_000, conditions: [{ key: 'metadata.case', value: caseId }] }),
    });
    expect(rl.status).toBe(201);
    counted.length = 0;
    const text = await stream(body());
    const upstream = fake.requests[fake.requests.length - 1]!.body as Json;
    expect(upstream.stream_options).toEqual({ include_usage: true });
    expect(text).not.toMatch(/"usage":\{/);
    // Exactly what the provider streams to a client that did not ask for usage (ids aside: the fake derives them from the body).
    const ids = (t: string) => t.replace(/chatcmpl-fake[0-9a-f]+/g, 'chatcmpl-fake');
    expect(ids(text)).toBe(ids(await direct(body())));
    const tokens = expectedTokens(body());
    expect(await used(id)).toBe(tokens);
    // The token rate limit counted the provider's figure, not an estimate.
    expect(counted).toEqual([tokens]);
  });

  it('settles a cost policy from the usage chunk alone (catalogue price of gpt-4o), with or without the chunk stripped', async () => {
    for (const extra of [{}, { stream_options: { include_usage: true } }]) {
      caseId = randomId(10);
      const res = await gw.fetch('/v1/policies/usage-limits', {
        method: 'POST',
        body: JSON.stringify({ type: 'cost', credit_limit: 100, conditions: [{ key: 'metadata.case', value: caseId }] }),
      });
      expect(res.status).toBe(201);
      const id = ((await res.json()) as Json).id;
      const b = body(extra);
      await stream(b);
      const r = reply(b);
      expect(await used(id)).toBeCloseTo((r.promptTokens * 2.5 + r.completionTokens * 10) / 1e6, 12);
    }
  });

  it('estimates the tokens of a stream that carries no usage from its text (a tokens usage policy alone reads every chunk)', async () => {
    const silent = await startFakeOpenAI({ apiKey: 'sk-good', noStreamUsage: true });
    try {
      const id = await usagePolicy();
      const b = body();
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-gateway-api-key': gw.adminKey,
          'x-gateway-provider': 'openai',
          'x-gateway-custom-host': silent.url,
          authorization: 'Bearer sk-good',
          'x-gateway-metadata': JSON.stringify({ case: caseId }),
        },
        body: JSON.stringify(b),
      });
      const before = settled;
      expect(await res.text()).not.toMatch(/"usage":\{/);
      for (let i = 0; i < 200 && settled === before; i++) await new Promise((r) => setTimeout(r, 5));
      const content = reply(b).content!;
      expect(await used(id)).toBe(await estimateTokens(b, content));
      expect(await used(id)).toBeGreaterThan(await estimateTokens(b, ''));
    } finally {
      await silent.close();
    }
  });

  it('keeps the stream byte for byte when the client asked for usage', async () => {
    const id = await usagePolicy();
    const b = body({ stream_options: { include_usage: true } });
    const viaGateway = await stream(b);
    expect(viaGateway).toBe(await direct(b));
    expect(viaGateway).toMatch(/"usage":\{/);
    expect(await used(id)).toBe(expectedTokens(b));
  });
});

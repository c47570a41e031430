import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomId } from '../../../src/foundation/lib/ids.js';
import { REDIS_URL, startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { chat, configHeader, eventually, fakeConfig } from './helpers.js';

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-good' });
});
afterAll(async () => fake?.close());

describe('guardrails on other endpoints', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(async () => gw?.close());

  it('legacy completions: the prompt is the request text', async () => {
    const client = gw.openai(
      configHeader(
        fakeConfig(fake, { input_guardrails: [{ 'default.contains': { operator: 'none', words: ['forbidden'] }, deny: true }] }),
      ),
    );
    const err = await client.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'a forbidden prompt' }).catch((e) => e);
    expect(err.status).toBe(446);
    const ok = await client.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'fine' }).withResponse();
    expect(ok.response.status).toBe(200);
  });

  it('embeddings: the input is the request text; allowedRequestTypes can refuse the endpoint', async () => {
    const client = gw.openai(
      configHeader(fakeConfig(fake, { input_guardrails: [{ 'default.allowedRequestTypes': { allowedTypes: ['chat'] }, deny: true }] })),
    );
    const err = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'x' }).catch((e) => e);
    expect(err.status).toBe(446);
    expect(
      (
        await chat(
          gw,
          fakeConfig(fake, { input_guardrails: [{ 'default.allowedRequestTypes': { allowedTypes: ['chat'] }, deny: true }] }),
          'hi',
        )
      ).status,
    ).toBe(200);
  });
});

describe('stored guardrails across replicas', () => {
  it('a guardrail created on one replica is enforced by the other', async () => {
    const env = { REDIS_URL, REDIS_PREFIX: `gwtest:${randomId(8)}:` };
    const a = await startGateway({ store: 'postgres', env });
    const b = await startGateway({ store: 'postgres', pgSchema: a.pgSchema, env });
    try {
      const created = await a.fetch('/v1/guardrails', {
        method: 'POST',
        body: JSON.stringify({
          name: 'replicated',
          slug: 'replicated',
          checks: [{ id: 'default.contains', parameters: { operator: 'none', words: ['blocked'] } }],
          actions: { deny: true },
        }),
      });
      expect(created.status).toBe(201);
      const config = fakeConfig(fake, { input_guardrails: ['replicated'] });
      // The second replica knows only the first one's admin key (one store).
      const viaB: TestGateway = {
        ...b,
        fetch: (path, init = {}) =>
          b.fetch(path, { ...init, headers: { ...(init.headers as Record<string, string>), 'x-gateway-api-key': a.adminKey } }),
      };
      let last = 0;
      const res = await eventually(async () => {
        const r = await chat(viaB, config, 'blocked words');
        last = r.status;
        return r.status === 446 ? r : undefined;
      }).catch((err) => {
        throw new Error(`${err.message}; last status ${last}`);
      });
      expect(res.body.hook_results.before_request_hooks[0].verdict).toBe(false);
    } finally {
      await b.close();
      await a.close();
    }
  });
});

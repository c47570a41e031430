import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI, { toFile } from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { startFakeAnthropic, apiKeyOf, type FakeAnthropic } from '../../fakes/anthropic/server.js';
import { callAs, insertWorkspace } from '../tenancy/tenant-helpers.js';

const OPENAI_KEY = 'sk-openai-team';
const ANTHROPIC_KEY = 'sk-ant-team';
const CLAUDE = 'claude-sonnet-4-20250514';

/** Real clients with nothing but a base URL and a gateway key whose defaults route them. */
describe('clients with only a base URL and a gateway key (key defaults)', () => {
  let openai: FakeOpenAI;
  let anthropic: FakeAnthropic;
  let gw: TestGateway;
  let openaiKey: string;
  let anthropicKey: string;
  let lockedKey: string;
  let otherWorkspaceConfig: string;
  const admin = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    callAs(gw, gw.adminKey, method, path, body, headers);

  const upstream = () => ({ provider: 'openai', api_key: OPENAI_KEY, custom_host: openai.url });

  beforeAll(async () => {
    openai = await startFakeOpenAI({ apiKey: OPENAI_KEY });
    anthropic = await startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
    gw = await startGateway();
    // The model-alias recipe: `model: "fast"` goes to gpt-4o-mini, anything else to gpt-4o, both on the team's provider key.
    const team = await admin('POST', '/v1/configs', {
      name: 'team openai',
      slug: 'team-openai',
      config: {
        strategy: {
          mode: 'conditional',
          conditions: [
            { query: { 'params.model': { $eq: 'fast' } }, then: 'fast' },
            { query: { 'metadata.tier': { $eq: 'gold' } }, then: 'gold' },
          ],
          default: 'main',
        },
        targets: [
          { name: 'fast', ...upstream(), override_params: { model: 'gpt-4o-mini' } },
          { name: 'gold', ...upstream(), override_params: { model: 'gpt-4o-gold' } },
          { name: 'main', ...upstream() },
        ],
      },
    });
    expect(team.status, JSON.stringify(team.body)).toBe(201);
    const claude = await admin('POST', '/v1/configs', {
      name: 'team anthropic',
      slug: 'team-anthropic',
      config: { provider: 'anthropic', api_key: ANTHROPIC_KEY, custom_host: anthropic.url },
    });
    expect(claude.status).toBe(201);
    const mk = async (defaults: unknown) => {
      const r = await admin('POST', '/v1/api-keys', { name: 'client', scopes: ['completions.write'], defaults });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body as { key: string; id: string; defaults: unknown };
    };
    const o = await mk({ config_id: 'team-openai', metadata: { tier: 'gold', team: 'search' } });
    expect(o.defaults).toEqual({ config_id: team.body.id, metadata: { tier: 'gold', team: 'search' } });
    openaiKey = o.key;
    anthropicKey = (await mk({ config_id: claude.body.id })).key;
    lockedKey = (await mk({ config_id: team.body.id, allow_config_override: false })).key;
    const deps = gw.gateway.deps;
    const other = await insertWorkspace(gw, deps.runtime.current.defaultOrganisationId, 'other');
    await deps.runtime.changed();
    const c = await admin('POST', '/v1/configs', {
      name: 'elsewhere',
      config: { provider: 'openai', api_key: 'sk-x' },
      workspace_id: other,
    });
    expect(c.status).toBe(201);
    otherWorkspaceConfig = c.body.id;
  });
  afterAll(async () => {
    await gw?.close();
    await openai?.close();
    await anthropic?.close();
  });
  beforeEach(() => {
    openai.reset();
    anthropic.reset();
  });

  describe('the openai SDK', () => {
    const client = () => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: openaiKey, maxRetries: 0 });

    it('chats through the default config; the fake sees only the config provider key', async () => {
      const answer = await client().chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'hello' }] });
      expect(answer.choices[0]!.message.content).toContain('hello');
      const seen = openai.lastRequest!;
      expect(seen.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
      expect((seen.body as { model: string }).model).toBe('gpt-4o-mini');
      expect(JSON.stringify(seen.headers)).not.toContain(openaiKey);
    });

    it('streams through the default config', async () => {
      const stream = await client().chat.completions.create({
        model: 'fast',
        stream: true,
        messages: [{ role: 'user', content: 'stream please' }],
      });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      expect(text).toContain('stream please');
      expect(openai.lastRequest!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    });

    it('default metadata routes a request; the request metadata wins over it', async () => {
      await client().chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'm' }] });
      expect((openai.lastRequest!.body as { model: string }).model).toBe('gpt-4o-gold');
      await client().chat.completions.create(
        { model: 'gpt-4o', messages: [{ role: 'user', content: 'm' }] },
        { headers: { 'x-gateway-metadata': JSON.stringify({ tier: 'free' }) } },
      );
      expect((openai.lastRequest!.body as { model: string }).model).toBe('gpt-4o');
    });

    it('an explicit x-gateway-config wins when the key allows overrides', async () => {
      const config = JSON.stringify({
        provider: 'openai',
        api_key: OPENAI_KEY,
        custom_host: openai.url,
        override_params: { model: 'explicit' },
      });
      await client().chat.completions.create(
        { model: 'fast', messages: [{ role: 'user', content: 'x' }] },
        { headers: { 'x-gateway-config': config } },
      );
      expect((openai.lastRequest!.body as { model: string }).model).toBe('explicit');
    });
  });

  it('runs a gateway batch line by line through the default config', async () => {
    const c = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: openaiKey, maxRetries: 0 });
    const line = (i: number) =>
      JSON.stringify({
        custom_id: `r${i}`,
        method: 'POST',
        url: '/v1/chat/completions',
        body: { model: 'fast', messages: [{ role: 'user', content: `line-${i}` }] },
      });
    const input = await c.files.create({ file: await toFile(Buffer.from(`${line(0)}\n${line(1)}\n`), 'in.jsonl'), purpose: 'batch' });
    const batch = await c.batches.create({
      input_file_id: input.id,
      endpoint: '/v1/chat/completions',
      completion_window: 'immediate' as '24h',
    });
    let done = batch;
    for (const deadline = Date.now() + 30_000; !['completed', 'failed'].includes(done.status) && Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, 100));
      done = await c.batches.retrieve(batch.id);
    }
    expect(done.request_counts).toEqual({ total: 2, completed: 2, failed: 0 });
    const calls = openai.requests.filter((r) => r.path === '/v1/chat/completions');
    expect(calls).toHaveLength(2);
    for (const r of calls) {
      expect(r.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
      expect((r.body as { model: string }).model).toBe('gpt-4o-mini');
    }
  });

  it('curl-style: Authorization: Bearer <gateway key> and a JSON body', async () => {
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${openaiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fast', messages: [{ role: 'user', content: 'curl' }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-provider')).toBe('openai');
    expect(openai.lastRequest!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
  });

  describe('the Anthropic SDK (x-api-key)', () => {
    const client = () => new Anthropic({ baseURL: gw.url, apiKey: anthropicKey, maxRetries: 0 });

    it('creates a message through the default config with the config provider key', async () => {
      const msg = await client().messages.create({ model: CLAUDE, max_tokens: 50, messages: [{ role: 'user', content: 'hi claude' }] });
      expect(msg.content).toEqual([{ type: 'text', text: 'echo: hi claude' }]);
      expect(apiKeyOf(anthropic.lastRequest!)).toBe(ANTHROPIC_KEY);
      expect(JSON.stringify(anthropic.lastRequest!.headers)).not.toContain(anthropicKey);
    });

    it('streams a message', async () => {
      const final = await client()
        .messages.stream({ model: CLAUDE, max_tokens: 50, messages: [{ role: 'user', content: 'stream claude' }] })
        .finalMessage();
      expect(final.content).toEqual([{ type: 'text', text: 'echo: stream claude' }]);
      expect(apiKeyOf(anthropic.lastRequest!)).toBe(ANTHROPIC_KEY);
    });

    it('counts tokens', async () => {
      const n = await client().messages.countTokens({ model: CLAUDE, messages: [{ role: 'user', content: 'count me' }] });
      expect(n.input_tokens).toBeGreaterThan(0);
    });
  });

  it('the headers Claude Code sends: x-api-key, anthropic-version, anthropic-beta', async () => {
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: {
        'x-api-key': anthropicKey,
        'anthropic-version': '2023-06-01',
        'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ model: CLAUDE, max_tokens: 50, messages: [{ role: 'user', content: 'from claude code' }] }),
    });
    expect(res.status).toBe(200);
    const seen = anthropic.lastRequest!;
    expect(apiKeyOf(seen)).toBe(ANTHROPIC_KEY);
    expect(seen.headers['anthropic-beta']).toBe('claude-code-20250219,interleaved-thinking-2025-05-14');
    expect(seen.headers['anthropic-version']).toBe('2023-06-01');
    // ANTHROPIC_AUTH_TOKEN: the same key as Authorization: Bearer.
    const bearer = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${anthropicKey}`, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: CLAUDE, max_tokens: 50, messages: [{ role: 'user', content: 'auth token' }] }),
    });
    expect(bearer.status).toBe(200);
    expect(apiKeyOf(anthropic.lastRequest!)).toBe(ANTHROPIC_KEY);
    expect(JSON.stringify(anthropic.lastRequest!.headers)).not.toContain(anthropicKey);
  });

  describe('bad input', () => {
    it('an unknown field in defaults is 400', async () => {
      const r = await admin('POST', '/v1/api-keys', { name: 'bad', defaults: { config: 'team-openai' } });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
    });

    it('an unknown default config is 400 naming defaults.config_id', async () => {
      const r = await admin('POST', '/v1/api-keys', { name: 'bad', defaults: { config_id: 'no-such-config' } });
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe('defaults.config_id');
    });

    it("another workspace's config is 404, on create and on update", async () => {
      const r = await admin('POST', '/v1/api-keys', { name: 'bad', defaults: { config_id: otherWorkspaceConfig } });
      expect(r.status).toBe(404);
      expect(r.body.error.param).toBe('defaults.config_id');
      const k = await admin('POST', '/v1/api-keys', { name: 'plain' });
      const u = await admin('PUT', `/v1/api-keys/${k.body.id}`, { defaults: { config_id: otherWorkspaceConfig } });
      expect(u.status).toBe(404);
    });

    it('an override is refused with 403 when allow_config_override is false', async () => {
      const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: lockedKey, maxRetries: 0 });
      const config = JSON.stringify({ provider: 'openai', api_key: OPENAI_KEY, custom_host: openai.url });
      const err = await client.chat.completions
        .create({ model: 'fast', messages: [{ role: 'user', content: 'x' }] }, { headers: { 'x-gateway-config': config } })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.APIError);
      expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(403);
      expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe('forbidden');
      expect((err as Error).message).toContain('cannot be overridden');
      expect(openai.requests).toHaveLength(0);
      const ok = await client.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'y' }] });
      expect(ok.choices[0]!.message.content).toContain('y');
    });

    it('PUT sets and clears defaults', async () => {
      const k = await admin('POST', '/v1/api-keys', { name: 'later' });
      expect(k.body.defaults).toBeNull();
      const u = await admin('PUT', `/v1/api-keys/${k.body.id}`, { defaults: { metadata: { a: 'b' } } });
      expect(u.status).toBe(200);
      expect(u.body.defaults).toEqual({ metadata: { a: 'b' } });
      const cleared = await admin('PUT', `/v1/api-keys/${k.body.id}`, { defaults: null });
      expect(cleared.body.defaults).toBeNull();
    });
  });
});

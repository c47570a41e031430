import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../fakes/anthropic/server.js';
import { callAs } from '../tenancy/tenant-helpers.js';
import { runClaudeCode, runCodex, type CliRun } from './run-cli.js';

const OPENAI_KEY = 'sk-openai-agents';
const ANTHROPIC_KEY = 'sk-ant-agents';
const TARGETS = ['anthropic', 'openai', 'compatible'] as const;
type Target = (typeof TARGETS)[number];

const explain = (r: CliRun) => `exit ${r.code}\nstdout: ${r.stdout.slice(-800)}\nstderr: ${r.stderr.slice(-800)}`;

/**
 * The current Claude Code and Codex CLIs, non-interactive and on their default settings, with only a base
 * URL and a gateway key whose default config picks the target: Anthropic (Messages passthrough), OpenAI
 * (Responses passthrough; Messages translated to chat) and an OpenAI-compatible host (both translated).
 */
describe('coding agents through the gateway', { timeout: 90_000 }, () => {
  let openai: FakeOpenAI;
  let anthropic: FakeAnthropic;
  let gw: TestGateway;
  const keys = {} as Record<Target, string>;

  beforeAll(async () => {
    openai = await startFakeOpenAI({ apiKey: OPENAI_KEY });
    anthropic = await startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
    gw = await startGateway();
    const configs: Record<Target, unknown> = {
      anthropic: { provider: 'anthropic', api_key: ANTHROPIC_KEY, custom_host: anthropic.url },
      openai: { provider: 'openai', api_key: OPENAI_KEY, custom_host: openai.url },
      compatible: { provider: 'vllm', api_key: OPENAI_KEY, custom_host: openai.url },
    };
    for (const target of TARGETS) {
      const c = await callAs(gw, gw.adminKey, 'POST', '/v1/configs', {
        name: `agents ${target}`,
        slug: `agents-${target}`,
        config: configs[target],
      });
      expect(c.status, JSON.stringify(c.body)).toBe(201);
      const k = await callAs(gw, gw.adminKey, 'POST', '/v1/api-keys', {
        name: target,
        scopes: ['completions.write'],
        defaults: { config_id: c.body.id },
      });
      expect(k.status, JSON.stringify(k.body)).toBe(201);
      keys[target] = k.body.key;
    }
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

  describe('Claude Code', () => {
    // The fakes call the first offered tool; Claude Code runs it (its input is invalid, so it answers an
    // error result) and the second turn comes back as `tool said: …`: a full tool round trip.
    const expectToolRoundTrip = (r: CliRun) => {
      expect(r.code, explain(r)).toBe(0);
      expect(r.stdout).toContain('tool said:');
    };

    it('reaches an Anthropic target untouched: mid-conversation system turn, adaptive thinking, effort and context management', async () => {
      const r = await runClaudeCode({ baseUrl: gw.url, key: keys.anthropic, prompt: 'say hi' });
      expectToolRoundTrip(r);
      const first = anthropic.requests[0]!;
      expect(first.path).toBe('/v1/messages');
      expect(first.headers['x-api-key']).toBe(ANTHROPIC_KEY);
      const body = first.body;
      expect(body.messages.some((m: { role: string }) => m.role === 'system')).toBe(true);
      expect(body.thinking.type).toBe('adaptive');
      expect(body.output_config).toBeDefined();
      expect(body.context_management).toBeDefined();
      expect(first.rawBody.toString()).toContain('"context_management"');
    });

    it('also authenticates with ANTHROPIC_AUTH_TOKEN (a bearer)', async () => {
      const r = await runClaudeCode({ baseUrl: gw.url, key: keys.anthropic, prompt: 'say hi', bearer: true });
      expectToolRoundTrip(r);
      expect(anthropic.requests[0]!.headers['x-api-key']).toBe(ANTHROPIC_KEY);
    });

    for (const target of ['openai', 'compatible'] as const) {
      it(`is translated to chat for an ${target} target: the system turn stays in place, adaptive thinking becomes reasoning_effort`, async () => {
        const r = await runClaudeCode({ baseUrl: gw.url, key: keys[target], prompt: 'say hi' });
        expectToolRoundTrip(r);
        const chat = openai.requests[0]!;
        expect(chat.path).toBe('/v1/chat/completions');
        const roles = chat.body.messages.map((m: { role: string }) => m.role);
        expect(roles.slice(1)).toContain('system');
        expect(roles.indexOf('system', 1)).toBeGreaterThan(roles.indexOf('user'));
        expect(chat.body.reasoning_effort).toMatch(/^(low|medium|high)$/);
        expect(chat.body.thinking).toBeUndefined();
        expect(chat.body.context_management).toBeUndefined();
        expect(chat.body.tools.length).toBeGreaterThan(0);
        expect(openai.requests[1]!.body.messages.some((m: { role: string }) => m.role === 'tool')).toBe(true);
      });
    }
  });

  describe('Codex', () => {
    it('reaches a native Responses target untouched: include, store: false, reasoning.context, namespace tools', async () => {
      const r = await runCodex({ baseUrl: gw.url, key: keys.openai, prompt: 'say hi' });
      expect(r.code, explain(r)).toBe(0);
      expect(r.stdout).toContain('echo: say hi');
      const seen = openai.requests[0]!;
      expect(seen.path).toBe('/v1/responses');
      expect(seen.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
      expect(seen.body.include).toContain('reasoning.encrypted_content');
      expect(seen.body.store).toBe(false);
      expect(seen.body.reasoning.context).toBeDefined();
      const tools = seen.body.input.find((i: { type: string }) => i.type === 'additional_tools');
      expect(tools.tools.some((t: { type: string }) => t.type === 'namespace')).toBe(true);
    });

    it('runs over chat for an OpenAI-compatible target: developer messages as system, effort and verbosity mapped', async () => {
      const r = await runCodex({ baseUrl: gw.url, key: keys.compatible, prompt: 'say hi' });
      expect(r.code, explain(r)).toBe(0);
      expect(r.stdout).toContain('echo: say hi');
      const chat = openai.requests[0]!;
      expect(chat.path).toBe('/v1/chat/completions');
      expect(chat.body.messages[0].role).toBe('system');
      expect(chat.body.reasoning_effort).toMatch(/^(minimal|low|medium|high)$/);
      expect(chat.body.include).toBeUndefined();
      expect(chat.body.reasoning).toBeUndefined();
    });

    it('runs over chat for an Anthropic target', async () => {
      const r = await runCodex({ baseUrl: gw.url, key: keys.anthropic, prompt: 'say hi' });
      expect(r.code, explain(r)).toBe(0);
      expect(r.stdout).toContain('say hi');
      const seen = anthropic.requests[0]!;
      expect(seen.path).toBe('/v1/messages');
      expect(typeof seen.body.system === 'string' || Array.isArray(seen.body.system)).toBe(true);
    });
  });
});

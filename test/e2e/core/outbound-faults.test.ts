import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, generateKeyPair } from 'jose';
import { randomId } from '../../../src/foundation/lib/ids.js';
import { dropPostgresSchema } from '../../../src/infra/store/store.js';
import { PG_URL, TEST_STORE } from '../../helpers/gateway.js';
import { spawnGateway, type GatewayProcess } from '../../helpers/processes.js';
import { FAULTS, FaultyUpstream, type Fault } from '../../helpers/faulty-upstream.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { selfSignedCertificate } from '../../fakes/azure-key-vault/server.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Every outbound path of the gateway against upstreams that redirect (302, 307), reset mid-body, hang,
 * answer an HTML page, or close after the headers. The gateway runs as its own process (an unhandled
 * error there ends it, not this test runner) with short upstream timeouts; each request must get its
 * path's documented answer — never a 500 or a dropped connection — and the process must still be up.
 */

/** An answer as the client saw it (`dropped` when the connection broke instead). */
interface Answer {
  status: number;
  text: string;
  json: any;
}

/** What one outbound path is asked to do against an upstream with `fault`, and what it must answer. */
interface OutboundPath {
  name: string;
  /** Runs once before the sweep (creating the path's resources for every fault). */
  setUp?: () => Promise<void>;
  call: (fault: Fault) => Promise<Answer>;
  expectAnswer: (a: Answer, fault: Fault) => void;
  /** The path's calls run one after another (they share one organisation setting). */
  sequential?: boolean;
}

/** The gateway's upstream and agent timeouts: short, yet long enough for a loaded machine to answer the other faults. */
const TIMEOUT_MS = 4000;
const schema = `t_${randomId(12).toLowerCase()}`;
let gw: GatewayProcess;
let up: FaultyUpstream;
/** The same faults over HTTPS (Azure Key Vault's client refuses plain http), its CA given to the gateway. */
let upTls: FaultyUpstream;
let caDir: string;
let fake: FakeOpenAI;

async function call(
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown; key?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { 'x-gateway-api-key': init.key ?? gw.adminKey, ...init.headers };
  if (init.body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(gw.url + path, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}

async function created(path: string, body: unknown): Promise<void> {
  const r = await call(path, { method: 'POST', body });
  expect(r.status, `${path}: ${r.text}`).toBe(201);
}

/** The documented error shape with one of `codes` and a status that is not 500. */
function expectError(a: Answer, statuses: number[], codes: string[]): void {
  expect(statuses, a.text).toContain(a.status);
  expect(a.json?.error, a.text).toMatchObject({ message: expect.any(String), type: expect.any(String), code: expect.any(String) });
  expect(a.json.error).toHaveProperty('param');
  expect(codes, a.text).toContain(a.json.error.code);
}

/** The upstream error a provider-like path answers: a redirect or garbage is 502, a broken or silent upstream 502 or 408. */
function expectUpstreamError(a: Answer, fault: Fault): void {
  if (fault === 'hang') expectError(a, [408, 504], ['request_timeout']);
  else expectError(a, [502], ['provider_error', 'provider_unreachable']);
}

const openai = (fault: Fault) => ({
  'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: 'sk-upstream', custom_host: `${up.url(fault)}/v1` }),
});
const chatBody = (stream: boolean) => ({ model: 'gpt-4o-mini', stream, messages: [{ role: 'user', content: 'hi' }] });
const slug = (prefix: string, fault: Fault) => `${prefix}-${fault}`;

const paths: OutboundPath[] = [
  {
    name: 'chat completion (buffered)',
    call: (f) => call('/v1/chat/completions', { method: 'POST', headers: openai(f), body: chatBody(false) }),
    expectAnswer: expectUpstreamError,
  },
  {
    name: 'chat completion (streamed)',
    call: (f) => call('/v1/chat/completions', { method: 'POST', headers: openai(f), body: chatBody(true) }),
    expectAnswer: (a, f) => {
      // A failure the gateway sees before the first event is an error answer; one after it, an error event of a 200 stream.
      if (a.status !== 200) return expectUpstreamError(a, f);
      const last = a.text.trim().split('\n\n').at(-1)!;
      expect(last, a.text).toMatch(/^data: /);
      expect(JSON.parse(last.slice(6)).error, a.text).toMatchObject({
        message: expect.any(String),
        type: 'provider_error',
        code: expect.stringMatching(/^provider_(error|unreachable)$/),
      });
    },
  },
  { name: 'files list', call: (f) => call('/v1/files', { headers: openai(f) }), expectAnswer: expectUpstreamError },
  { name: 'batches list', call: (f) => call('/v1/batches', { headers: openai(f) }), expectAnswer: expectUpstreamError },
  { name: 'fine-tuning jobs list', call: (f) => call('/v1/fine_tuning/jobs', { headers: openai(f) }), expectAnswer: expectUpstreamError },
  {
    name: 'guardrail webhook (fails open)',
    call: (f) =>
      call('/v1/chat/completions', {
        method: 'POST',
        headers: {
          'x-gateway-config': JSON.stringify({
            provider: 'openai',
            api_key: 'sk-good',
            custom_host: fake.url,
            input_guardrails: [{ 'default.webhook': { webhookURL: `${up.url(f)}/hook`, timeout: TIMEOUT_MS }, deny: true }],
          }),
        },
        body: chatBody(false),
      }),
    expectAnswer: (a) => {
      expect(a.status, a.text).toBe(200);
      expect(a.json.choices[0].message.content).toBeTypeOf('string');
    },
  },
  {
    name: 'guardrail webhook (failOnError)',
    call: (f) =>
      call('/v1/chat/completions', {
        method: 'POST',
        headers: {
          'x-gateway-config': JSON.stringify({
            provider: 'openai',
            api_key: 'sk-good',
            custom_host: fake.url,
            input_guardrails: [
              { 'default.webhook': { webhookURL: `${up.url(f)}/hook`, timeout: TIMEOUT_MS, failOnError: true }, deny: true },
            ],
          }),
        },
        body: chatBody(false),
      }),
    expectAnswer: (a) => expectError(a, [446], ['guardrail_denied', 'request_denied']),
  },
  {
    name: 'agent card',
    setUp: async () => {
      for (const f of FAULTS) await created('/v1/agent-servers', { name: `Agent ${f}`, slug: slug('agent', f), url: `${up.url(f)}/a2a` });
    },
    call: (f) => call(`/v1/agent-servers/${slug('agent', f)}/agent-card`),
    expectAnswer: expectUpstreamError,
  },
  {
    name: 'agent call',
    call: (f) =>
      call(`/v1/agents/${slug('agent', f)}`, {
        method: 'POST',
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: { message: { kind: 'message', messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text: 'hi' }] } },
        },
      }),
    // docs/agents.md: a JSON-RPC error -32603 whose data.code says what went wrong.
    expectAnswer: (a, f) => {
      expect(a.status, a.text).toBe(200);
      expect(a.json, a.text).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: expect.any(String) } });
      expect(f === 'hang' ? ['request_timeout'] : ['provider_error', 'provider_unreachable'], a.text).toContain(a.json.error.data.code);
    },
  },
  {
    name: 'MCP upstream',
    setUp: async () => {
      for (const f of FAULTS) {
        await created('/v1/mcp-integrations', { name: `MCP ${f}`, slug: slug('mcp-up', f), url: `${up.url(f)}/mcp` });
        await created('/v1/mcp-servers', { name: `MCP ${f}`, slug: slug('mcp', f), mcp_integration_id: slug('mcp-up', f) });
      }
    },
    call: (f) =>
      call(`/v1/mcp/${slug('mcp', f)}/mcp`, {
        method: 'POST',
        headers: { accept: 'application/json, text/event-stream' },
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'sweep', version: '1' } },
        },
      }),
    expectAnswer: (a) => {
      expect(a.status, a.text).toBe(200);
      expect(a.json, a.text).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: expect.any(Number), message: expect.any(String) } });
    },
  },
  {
    name: 'secret manager: HashiCorp Vault',
    setUp: async () => {
      for (const f of FAULTS)
        await created('/v1/secret-references', {
          name: `Vault ${f}`,
          slug: slug('vault', f),
          manager_type: 'hashicorp_vault',
          auth_config: { vault_addr: up.url(f), token: 'hvs.token-0123456789' },
          secret_path: 'llm/openai',
        });
    },
    call: (f) => call(`/v1/secret-references/${slug('vault', f)}/test`, { method: 'POST' }),
    expectAnswer: (a) => {
      expect(a.status, a.text).toBe(200);
      expect(a.json).toMatchObject({ ok: false, fingerprint: null, error: expect.any(String) });
      expect(a.json.error).not.toContain('hvs.token');
    },
  },
  {
    name: 'secret manager: AWS Secrets Manager',
    setUp: async () => {
      for (const f of FAULTS)
        await created('/v1/secret-references', {
          name: `AWS ${f}`,
          slug: slug('aws', f),
          manager_type: 'aws_sm',
          auth_config: {
            region: 'eu-west-1',
            access_key_id: 'AKIAFAKEACCESS0001',
            secret_access_key: 'aws-secret-access-key-0001',
            endpoint: up.url(f),
          },
          secret_path: 'prod/openai',
        });
    },
    call: (f) => call(`/v1/secret-references/${slug('aws', f)}/test`, { method: 'POST' }),
    expectAnswer: (a) => {
      expect(a.status, a.text).toBe(200);
      expect(a.json).toMatchObject({ ok: false, fingerprint: null, error: expect.any(String) });
      expect(a.json.error).not.toContain('aws-secret-access-key');
    },
  },
  {
    name: 'secret manager: Azure Key Vault',
    setUp: async () => {
      for (const f of FAULTS) {
        const auth = {
          vault_url: upTls.url(f),
          tenant_id: 'tenant-1',
          client_id: 'app-1',
          client_secret: 'azure-client-secret-0001',
          authority_host: upTls.url(f),
        };
        await created('/v1/secret-references', {
          name: `Azure ${f}`,
          slug: slug('azure', f),
          manager_type: 'azure_kv',
          auth_config: auth,
          secret_path: 'openai-key',
        });
      }
    },
    call: (f) => call(`/v1/secret-references/${slug('azure', f)}/test`, { method: 'POST' }),
    expectAnswer: (a) => {
      expect(a.status, a.text).toBe(200);
      expect(a.json).toMatchObject({ ok: false, fingerprint: null, error: expect.any(String) });
      expect(a.json.error).not.toContain('azure-client-secret');
    },
  },
  {
    name: 'JWKS (a forged JWT with an unknown kid, no credential)',
    sequential: true,
    call: async (f) => {
      const put = await call('/v1/organisation/jwt', { method: 'PUT', body: { jwks_url: `${up.url(f)}/jwks.json` } });
      expect(put.status, put.text).toBe(200);
      const pair = await generateKeyPair('RS256');
      const forged = await new SignJWT({ sub: 'mallory' })
        .setProtectedHeader({ alg: 'RS256', kid: `unknown-${randomId(6)}` })
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(pair.privateKey);
      const res = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${forged}` } });
      const text = await res.text();
      return { status: res.status, text, json: JSON.parse(text) };
    },
    expectAnswer: (a) => expectError(a, [401], ['invalid_api_key']),
  },
  {
    name: 'OIDC discovery (SSO sign-in)',
    sequential: true,
    call: async (f) => {
      const put = await call('/v1/organisation/sso', {
        method: 'PUT',
        body: { issuer: up.url(f), client_id: 'client-1', client_secret: 'sso-client-secret-0001', domains: [{ domain: 'example.com' }] },
      });
      expect(put.status, put.text).toBe(200);
      const res = await fetch(`${gw.url}/v1/auth/sso/login?email=${encodeURIComponent('ann@example.com')}`, { redirect: 'manual' });
      const text = await res.text();
      return { status: res.status, text, json: JSON.parse(text) };
    },
    expectAnswer: (a) => expectError(a, [502], ['provider_unreachable']),
  },
];

beforeAll(async () => {
  const tls = selfSignedCertificate();
  caDir = mkdtempSync(join(tmpdir(), 'gw-ca-'));
  writeFileSync(join(caDir, 'ca.pem'), tls.cert);
  [up, upTls, fake] = await Promise.all([
    new FaultyUpstream().start(),
    new FaultyUpstream(tls).start(),
    startFakeOpenAI({ apiKey: 'sk-good' }),
  ]);
  const timeout = String(TIMEOUT_MS);
  gw = await spawnGateway({
    ...(TEST_STORE === 'postgres' ? { DATABASE_URL: PG_URL, DATABASE_SCHEMA: schema } : {}),
    GATEWAY_UPSTREAM_CONNECT_TIMEOUT_MS: timeout,
    GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS: timeout,
    GATEWAY_UPSTREAM_BODY_TIMEOUT_MS: timeout,
    GATEWAY_AGENT_TIMEOUT_MS: timeout,
    SECRET_MANAGER_CA_FILE: join(caDir, 'ca.pem'),
  });
  for (const p of paths) await p.setUp?.();
});

afterAll(async () => {
  await gw?.stop();
  await Promise.all([up?.close(), upTls?.close(), fake?.close()]);
  if (caDir) rmSync(caDir, { recursive: true, force: true });
  if (TEST_STORE === 'postgres') await dropPostgresSchema(PG_URL, schema);
});

describe('every outbound path against faulty upstreams (the gateway in its own process)', () => {
  it('answers each request with its documented error, and the process stays up', { timeout: 60_000 }, async () => {
    const results: { path: OutboundPath; fault: Fault; answer: Answer | Error }[] = [];
    const run = async (path: OutboundPath, fault: Fault) => {
      const answer = await path.call(fault).catch((err: Error) => err);
      results.push({ path, fault, answer });
    };
    await Promise.all(
      paths.map(async (p) => {
        if (p.sequential) for (const f of FAULTS) await run(p, f);
        else await Promise.all(FAULTS.map((f) => run(p, f)));
      }),
    );
    expect(gw.child.exitCode, gw.output()).toBeNull();
    expect((await fetch(`${gw.url}/health`)).status).toBe(200);
    for (const r of results) {
      const label = `${r.path.name} / ${r.fault}`;
      expect(r.answer, `${label}: the connection was dropped`).not.toBeInstanceOf(Error);
      const a = r.answer as Answer;
      expect(a.status, `${label}: ${a.text}`).not.toBe(500);
      try {
        r.path.expectAnswer(a, r.fault);
      } catch (err) {
        throw new Error(`${label}: ${(err as Error).message}`);
      }
    }
    expect(gw.output()).not.toContain("Unhandled 'error' event");
  });
});

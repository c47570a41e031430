import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toFile } from 'openai';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../fakes/anthropic/server.js';
import { callAs, createOrganisation, insertKey, insertWorkspace, type JsonAnswer } from './tenant-helpers.js';

/**
 * Tenant boundaries: organisation A (the bootstrap organisation, workspaces A1 = default and A2) and
 * organisation B (made by `POST /v1/organisations`: its own default workspace, its key B is the admin key
 * that answer shows). Every id of A1 is unknown (404) to
 * an organisation key of B and to a workspace key of A2, on the data plane and in the admin API.
 */
let gw: TestGateway;
let fake: FakeOpenAI;
let anthropic: FakeAnthropic;
let orgA: string;
let wsA1: string;
let wsB: string;
let keyB: string;
let keyA2: string;
const a: Record<'config' | 'vk' | 'prompt' | 'file' | 'batch' | 'response' | 'guardrail' | 'policy', string> = {
  config: '',
  vk: '',
  prompt: '',
  file: '',
  batch: '',
  response: '',
  guardrail: '',
  policy: '',
};

const provider = () => ({ 'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: 'sk-fake', custom_host: fake.url }) });
const asAdmin = (method: string, path: string, body?: unknown) => callAs(gw, gw.adminKey, method, path, body);

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-fake' });
  anthropic = await startFakeAnthropic({ apiKey: 'sk-ant' });
  gw = await startGateway();
  const deps = gw.gateway.deps;
  wsA1 = deps.runtime.current.defaultWorkspaceId;
  orgA = deps.runtime.current.defaultOrganisationId;
  const wsA2 = await insertWorkspace(gw, orgA, 'a2');
  const b = await createOrganisation(gw, 'org-b');
  wsB = b.workspaceId;
  keyB = b.adminKey;
  keyA2 = await insertKey(gw, { organisationId: orgA, workspaceId: wsA2, type: 'workspace-service' });
  await deps.runtime.changed();

  a.config = (
    await asAdmin('POST', '/v1/configs', {
      name: 'a config',
      slug: 'a-config',
      config: { provider: 'openai', api_key: 'sk-fake', custom_host: fake.url },
    })
  ).body.id;
  a.vk = (
    await asAdmin('POST', '/v1/virtual-keys', {
      name: 'a vk',
      slug: 'a-vk',
      provider: 'openai',
      key: 'sk-fake',
      config: { custom_host: fake.url },
    })
  ).body.id;
  a.prompt = (
    await asAdmin('POST', '/v1/prompts', {
      name: 'a prompt',
      string: '[{"role":"user","content":"hi {{name}}"}]',
      model: 'gpt-4o-mini',
      virtual_key: 'a-vk',
    })
  ).body.id;
  a.guardrail = (
    await asAdmin('POST', '/v1/guardrails', {
      name: 'a guard',
      checks: [{ id: 'default.contains', parameters: { operator: 'none', words: ['secret'] } }],
      actions: { deny: true },
    })
  ).body.id;
  a.policy = (
    await asAdmin('POST', '/v1/policies/rate-limits', {
      name: 'a policy',
      type: 'requests',
      unit: 'rpm',
      value: 1000,
      conditions: [],
      group_by: [{ key: 'api_key' }],
    })
  ).body.id;
  const client = gw.openai(provider());
  a.file = (
    await gw.openai().files.create({
      file: await toFile(
        Buffer.from('{"custom_id":"1","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[]}}\n'),
        'in.jsonl',
      ),
      purpose: 'batch',
    })
  ).id;
  a.batch = (
    await client.batches.create({ input_file_id: a.file, endpoint: '/v1/chat/completions', completion_window: 'immediate' as '24h' })
  ).id;
  a.response = (await client.responses.create({ model: 'gpt-4o-mini', input: 'hello' })).id;
  for (const [name, id] of Object.entries(a)) expect(id, name).toBeTruthy();
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
  await anthropic?.close();
});

const chatBody = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };

/** Every route that reads or uses one of A1's ids, as the given key. */
function probes(key: string): Array<[string, () => Promise<JsonAnswer>]> {
  const as = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    callAs(gw, key, method, path, body, headers);
  return [
    ['prompt render', () => as('POST', `/v1/prompts/${a.prompt}/render`, { variables: { name: 'x' } })],
    ['prompt completions', () => as('POST', `/v1/prompts/${a.prompt}/completions`, { variables: { name: 'x' } })],
    ['prompt read', () => as('GET', `/v1/prompts/${a.prompt}`)],
    ['file retrieve', () => as('GET', `/v1/files/${a.file}`)],
    ['file content', () => as('GET', `/v1/files/${a.file}/content`)],
    ['file delete', () => as('DELETE', `/v1/files/${a.file}`)],
    ['batch retrieve', () => as('GET', `/v1/batches/${a.batch}`)],
    ['batch cancel', () => as('POST', `/v1/batches/${a.batch}/cancel`)],
    ['response retrieve', () => as('GET', `/v1/responses/${a.response}`)],
    ['response delete', () => as('DELETE', `/v1/responses/${a.response}`)],
    ['response input_items', () => as('GET', `/v1/responses/${a.response}/input_items`)],
    ['stored config by id', () => as('POST', '/v1/chat/completions', chatBody, { 'x-gateway-config': a.config })],
    ['stored config by slug', () => as('POST', '/v1/chat/completions', chatBody, { 'x-gateway-config': 'a-config' })],
    ['virtual key by id', () => as('POST', '/v1/chat/completions', chatBody, { 'x-gateway-virtual-key': a.vk })],
    ['virtual key by slug', () => as('POST', '/v1/chat/completions', chatBody, { 'x-gateway-virtual-key': 'a-vk' })],
    ['provider slug', () => as('POST', '/v1/chat/completions', chatBody, { 'x-gateway-provider': '@a-vk' })],
    [
      'config virtual_key',
      () => as('POST', '/v1/chat/completions', chatBody, { 'x-gateway-config': JSON.stringify({ virtual_key: a.vk }) }),
    ],
    [
      'config prompt_id',
      () =>
        as(
          'POST',
          '/v1/chat/completions',
          { ...chatBody, variables: { name: 'x' } },
          { 'x-gateway-config': JSON.stringify({ prompt_id: a.prompt, provider: 'openai', api_key: 'sk-fake', custom_host: fake.url }) },
        ),
    ],
    ['config read', () => as('GET', `/v1/configs/${a.config}`)],
    ['virtual key read', () => as('GET', `/v1/virtual-keys/${a.vk}`)],
    ['guardrail read', () => as('GET', `/v1/guardrails/${a.guardrail}`)],
    ['policy read', () => as('GET', `/v1/policies/rate-limits/${a.policy}`)],
  ];
}

const LISTS = [
  '/v1/configs',
  '/v1/virtual-keys',
  '/v1/prompts',
  '/v1/guardrails',
  '/v1/policies/rate-limits',
  '/v1/api-keys',
  '/v1/logs',
  '/v1/files',
  '/v1/batches',
];

async function expectIsolated(key: string): Promise<void> {
  for (const [name, probe] of probes(key)) {
    const r = await probe();
    expect({ name, status: r.status, code: r.body?.error?.code }).toEqual({ name, status: 404, code: 'not_found' });
  }
  for (const path of LISTS) {
    const r = await callAs(gw, key, 'GET', path);
    expect(r.status, path).toBe(200);
    const rows = r.body.data as Array<{ id: string; workspace_id?: string }>;
    expect(
      rows.filter((row) => Object.values(a).includes(row.id)),
      path,
    ).toEqual([]);
    expect(
      rows.filter((row) => row.workspace_id === wsA1),
      path,
    ).toEqual([]);
  }
  // The admin key still sees and uses everything of A1 afterwards (nothing was deleted or cancelled).
  expect((await asAdmin('GET', `/v1/files/${a.file}`)).status).toBe(200);
  expect((await asAdmin('GET', `/v1/responses/${a.response}`)).status).toBe(200);
  expect((await asAdmin('GET', `/v1/batches/${a.batch}`)).body.status).not.toBe('cancelling');
}

describe('an organisation key of another organisation', () => {
  it('gets 404 for every id of organisation A, and A does not appear in its lists', async () => {
    await expectIsolated(keyB);
  });

  it("writes without workspace_id land in its own organisation's default workspace", async () => {
    const c = await callAs(gw, keyB, 'POST', '/v1/configs', {
      name: 'b config',
      slug: 'a-config',
      config: { provider: 'openai', api_key: 'sk-fake', custom_host: fake.url },
    });
    expect(c.status).toBe(201);
    expect(c.body.workspace_id).toBe(wsB);
    const vk = await callAs(gw, keyB, 'POST', '/v1/virtual-keys', { name: 'b vk', provider: 'openai', key: 'sk-b' });
    expect(vk.body.workspace_id).toBe(wsB);
    const key = await callAs(gw, keyB, 'POST', '/v1/api-keys', { name: 'b ws key' });
    expect(key.status).toBe(201);
    expect(key.body.workspace_id).toBe(wsB);
    const named = await callAs(gw, keyB, 'POST', '/v1/configs', { name: 'b2', config: { retry: { attempts: 1 } }, workspace_id: wsA1 });
    expect(named.status).toBe(404);
    // Its own stored config (same slug as A's) is the one its requests use.
    const chat = await callAs(gw, keyB, 'POST', '/v1/chat/completions', chatBody, { 'x-gateway-config': 'a-config' });
    expect(chat.status).toBe(200);
  });

  it("acts in no workspace at all when its organisation has no default workspace (403, never another tenant's)", async () => {
    const c = await createOrganisation(gw, 'org-c');
    // A store in this state is not made by the API: its default workspace pointed at another tenant's.
    await gw.gateway.deps.store.db
      .updateTable('organisations')
      .set({ default_workspace_id: wsA1 })
      .where('id', '=', c.organisationId)
      .execute();
    const keyC = c.adminKey;
    await gw.gateway.deps.runtime.changed();
    const r = await callAs(gw, keyC, 'POST', '/v1/chat/completions', chatBody, provider());
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ code: 'forbidden', type: 'permission_error' });
    expect((await callAs(gw, keyC, 'GET', `/v1/files/${a.file}`)).status).toBe(403);
  });

  it('of an organisation without any workspace: empty lists, 404 for ids (never a 500)', async () => {
    // The API always makes an organisation with its default workspace: this store state is written directly.
    const orgD = 'org-d-' + Date.now();
    await gw.gateway.deps.store.db
      .insertInto('organisations')
      .values({ id: orgD, name: 'd', slug: orgD, settings: '{}', created_at: Date.now() })
      .execute();
    const keyD = await insertKey(gw, { organisationId: orgD, workspaceId: null, type: 'organisation-service' });
    await gw.gateway.deps.runtime.changed();
    for (const path of LISTS.filter((p) => !['/v1/files', '/v1/batches', '/v1/api-keys'].includes(p))) {
      const r = await callAs(gw, keyD, 'GET', path);
      expect({ path, status: r.status, data: r.body.data }).toEqual({ path, status: 200, data: [] });
    }
    for (const path of [
      `/v1/configs/${a.config}`,
      `/v1/virtual-keys/${a.vk}`,
      `/v1/guardrails/${a.guardrail}`,
      `/v1/prompts/${a.prompt}`,
      `/v1/policies/rate-limits/${a.policy}`,
    ]) {
      expect((await callAs(gw, keyD, 'GET', path)).status, path).toBe(404);
    }
  });

  it('its data-plane requests are logged in its own workspace', async () => {
    const r = await callAs(gw, keyB, 'POST', '/v1/chat/completions', chatBody, provider());
    expect(r.status).toBe(200);
    const logs = await callAs(gw, keyB, 'GET', '/v1/logs');
    expect(logs.body.data.length).toBeGreaterThan(0);
    expect(logs.body.data.every((l: { workspace_id: string }) => l.workspace_id === wsB)).toBe(true);
  });
});

describe('a workspace key of another workspace of the same organisation', () => {
  it('gets 404 for every id of workspace A1, and A1 does not appear in its lists', async () => {
    await expectIsolated(keyA2);
  });
});

/**
 * Using another tenant's ids as inputs (control-plane foundation: files, batches and responses are
 * tenant-scoped like every resource): a batch over another workspace's file, another workspace's batch
 * output file, a conversation continued from another workspace's stored response. Each answers as if
 * the id did not exist, and nothing of A reaches the caller or the provider.
 */
describe("another tenant's ids used as inputs", () => {
  const overChat = () => ({ 'x-gateway-config': JSON.stringify({ provider: 'anthropic', api_key: 'sk-ant', custom_host: anthropic.url }) });

  it("a batch over A1's input file is 404 naming input_file_id, as for an unknown file", async () => {
    const body = { input_file_id: a.file, endpoint: '/v1/chat/completions', completion_window: 'immediate' };
    for (const key of [keyB, keyA2]) {
      const r = await callAs(gw, key, 'POST', '/v1/batches', body, provider());
      expect(r.status, JSON.stringify(r.body)).toBe(404);
      expect(r.body.error).toMatchObject({ code: 'not_found', param: 'input_file_id' });
      expect((await callAs(gw, key, 'GET', '/v1/batches')).body.data.map((b: { input_file_id: string }) => b.input_file_id)).not.toContain(
        a.file,
      );
    }
    const unknown = await callAs(gw, keyB, 'POST', '/v1/batches', { ...body, input_file_id: 'file-gwdoesnotexist' }, provider());
    expect(unknown.status).toBe(404);
  });

  it("A1's batch output and error files are 404 to the others (read, content, delete) and absent from their lists", async () => {
    let batch = (await asAdmin('GET', `/v1/batches/${a.batch}`)).body;
    for (let i = 0; i < 100 && !['completed', 'failed', 'cancelled', 'expired'].includes(batch.status); i++) {
      await new Promise((r) => setTimeout(r, 100));
      batch = (await asAdmin('GET', `/v1/batches/${a.batch}`)).body;
    }
    const outputs = [batch.output_file_id, batch.error_file_id].filter((id): id is string => typeof id === 'string');
    expect(outputs.length, JSON.stringify(batch)).toBeGreaterThan(0);
    for (const key of [keyB, keyA2]) {
      for (const id of outputs) {
        for (const [method, path] of [
          ['GET', `/v1/files/${id}`],
          ['GET', `/v1/files/${id}/content`],
          ['DELETE', `/v1/files/${id}`],
        ] as const) {
          const r = await callAs(gw, key, method, path);
          expect({ path, method, status: r.status, code: r.body?.error?.code }).toEqual({ path, method, status: 404, code: 'not_found' });
        }
      }
      const listed = (await callAs(gw, key, 'GET', '/v1/files')).body.data.map((f: { id: string }) => f.id);
      for (const id of outputs) expect(listed).not.toContain(id);
    }
    for (const id of outputs) expect((await asAdmin('GET', `/v1/files/${id}`)).status).toBe(200);
  });

  it("continuing A1's stored conversation is refused as an unknown previous_response_id; A1 itself continues it", async () => {
    const first = await callAs(
      gw,
      gw.adminKey,
      'POST',
      '/v1/responses',
      { model: 'claude-sonnet-4-20250514', input: 'the password is swordfish' },
      overChat(),
    );
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const unknown = await callAs(
      gw,
      keyB,
      'POST',
      '/v1/responses',
      { model: 'claude-sonnet-4-20250514', input: 'what is it?', previous_response_id: 'resp_doesnotexist' },
      overChat(),
    );
    expect(unknown.status).toBe(400);
    for (const key of [keyB, keyA2]) {
      const r = await callAs(
        gw,
        key,
        'POST',
        '/v1/responses',
        { model: 'claude-sonnet-4-20250514', input: 'what is it?', previous_response_id: first.body.id },
        overChat(),
      );
      expect(r.status).toBe(unknown.status);
      expect(r.body.error).toMatchObject({ code: unknown.body.error.code, param: 'previous_response_id' });
      expect(JSON.stringify(r.body)).not.toContain('swordfish');
    }
    const own = await callAs(
      gw,
      gw.adminKey,
      'POST',
      '/v1/responses',
      { model: 'claude-sonnet-4-20250514', input: 'what is it?', previous_response_id: first.body.id },
      overChat(),
    );
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(JSON.stringify(anthropic.lastRequest?.body)).toContain('swordfish');
  });
});

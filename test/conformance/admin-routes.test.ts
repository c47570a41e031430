import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { ADMIN_RESOURCES } from '../../src/control-plane/resources/index.js';
import type { Resource } from '../../src/control-plane/resource/define-resource.js';
import { PERMISSION_LIST, type Permission } from '../../src/kernel/permissions.js';
import { insertRequestLogs } from '../../src/infra/store/repos/request-logs.js';
import { randomId, uuid } from '../../src/foundation/lib/ids.js';

type Json = Record<string, any>;

/**
 * A valid create and update body per declared resource (and the body of each custom write action
 * that needs one, by verb): a resource without one fails the suite.
 */
const SAMPLES: Record<
  string,
  {
    create?: () => Json;
    update?: Json;
    /** A read-only resource's row, stored directly (its id). */ seed?: (gw: TestGateway) => Promise<string>;
    actions?: Record<string, Json>;
    /** A write action's status on a fresh row when not 200 (then it writes no audit row). */ refused?: Record<string, number>;
    /** Organisation owners and admins only: a workspace key is refused the list (403) rather than shown none. */ organisationAdminsOnly?: boolean;
  }
> = {
  // A fresh key has no pending value: reveal is 404 (its 200 is tested in test/e2e/control-plane/api-key-lifecycle.test.ts).
  api_key: {
    create: () => ({ name: `k-${randomId(6)}`, scopes: ['configs.read'] }),
    update: { name: 'renamed' },
    refused: { reveal: 404 },
  },
  config: {
    create: () => ({ name: `c-${randomId(6)}`, config: { provider: 'openai', api_key: 'sk-config-secret' } }),
    update: { name: 'renamed' },
  },
  virtual_key: { create: () => ({ name: `v-${randomId(6)}`, provider: 'openai', key: 'sk-vk-secret' }), update: { name: 'renamed' } },
  rate_limit_policy: { create: () => ({ type: 'requests', unit: 'rpm', value: 1000 }), update: { value: 2000 } },
  usage_limit_policy: {
    create: () => ({ type: 'requests', credit_limit: 1000, periodic_reset: 'monthly' }),
    update: { credit_limit: 2000 },
    actions: { reset: { group: {} } },
  },
  guardrail: {
    create: () => ({ name: `g-${randomId(6)}`, checks: [{ id: 'default.wordCount', parameters: { maxWords: 3 } }] }),
    update: { name: 'renamed' },
  },
  prompt: {
    create: () => ({ name: `p-${randomId(6)}`, string: 'Hello {{name}}' }),
    update: { name: 'renamed' },
    actions: { publish: { version: 1 } },
  },
  prompt_partial: {
    create: () => ({ name: `pp-${randomId(6)}`, string: 'Regards, {{agent}}' }),
    update: { string: 'Cheers, {{agent}}' },
    actions: { publish: { version: 2 } },
  },
  workspace: { create: () => ({ name: `w-${randomId(6)}` }), update: { description: 'changed' } },
  user: { create: () => ({ email: `u-${randomId(8)}@example.com` }), update: { name: 'renamed' } },
  // The user it adds is created in `beforeAll` (one per store), as the path's workspace is.
  workspace_member: { create: () => ({ user_id: memberUserId, role: 'member' }), update: { role: 'manager' } },
  // Read-only: rows come from the data plane's log pipeline; one is stored in the default workspace.
  log: { seed: seedLog },
  integration: {
    create: () => ({ name: `i-${randomId(6)}`, ai_provider_id: 'openai', key: 'sk-integration-secret', create_default_provider: false }),
    update: { name: 'renamed' },
    actions: {
      update_models: { allow_all_models: false, models: [{ slug: 'gpt-4o', enabled: true }] },
      update_workspaces: { workspaces: [] },
    },
  },
  scim_token: { create: () => ({}), organisationAdminsOnly: true },
  scim_workspace_mapping: {
    create: () => ({ workspace_id: 'default', role: 'member', scim_group_name: `g-${randomId(6)}` }),
    organisationAdminsOnly: true,
  },
  agent_server: {
    create: () => ({ name: `a-${randomId(6)}`, url: 'http://127.0.0.1:9/agent', headers: { authorization: 'Bearer agent-server-secret' } }),
    update: { name: 'renamed' },
  },
  mcp_integration: {
    create: () => ({
      name: `m-${randomId(6)}`,
      url: 'http://127.0.0.1:9/mcp',
      workspace_id: 'default',
      headers: { 'x-token': 'mcp-header-secret' },
    }),
    update: { name: 'renamed' },
  },
  // Uses the organisation-level integration made in beforeAll, which does not use OAuth: revoking a
  // connection is 409 there (test/e2e/mcp/mcp-oauth-flow.test.ts covers the OAuth case).
  mcp_server: {
    create: () => ({ name: `s-${randomId(6)}`, mcp_integration_id: 'conformance-mcp' }),
    update: { name: 'renamed' },
    refused: { revoke_connection: 409 },
  },
  // `test` reaches no Vault here (connection refused): it answers 200 `{ok: false}` and writes nothing.
  secret_reference: {
    create: () => ({
      name: `s-${randomId(6)}`,
      manager_type: 'hashicorp_vault',
      auth_config: { vault_addr: 'http://127.0.0.1:9', token: 'hvs.conformance-token' },
      secret_path: 'llm/key',
    }),
    update: { name: 'renamed' },
  },
};

/** Stores one request-log row of the default workspace (a service key's request); returns its id. */
async function seedLog(gw: TestGateway): Promise<string> {
  const rt = gw.gateway.deps.runtime.current;
  const id = `log_${randomId(16)}`;
  await insertRequestLogs(gw.gateway.deps.store, [
    {
      id,
      organisation_id: rt.defaultOrganisationId,
      workspace_id: rt.defaultWorkspaceId,
      api_key_id: null,
      user_id: null,
      trace_id: 't',
      endpoint: 'chat',
      provider: 'openai',
      model: 'm',
      status: 200,
      stream: 0,
      cache_status: null,
      config_id: null,
      prompt_id: null,
      target_path: null,
      retry_count: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
      cost: 0,
      latency_ms: 1,
      metadata: '{}',
      error: null,
      hook_results: null,
      created_at: Date.now(),
      unit_prices: null,
      cached_tokens: 0,
      cache_write_tokens: 0,
      reasoning_tokens: 0,
    },
  ]);
  return id;
}

/** The user the workspace_member sample adds (set in `beforeAll`). */
let memberUserId = '';

/** A resource's collection path with its workspace path parameter (if any) filled in. */
function collectionPath(res: Resource<unknown>, base: string, workspaceId: string): string {
  return res.pathWorkspace === undefined ? base : base.replace(`:${res.pathWorkspace}`, workspaceId);
}

interface RouteCase {
  method: string;
  path: (id: string) => string;
  permission: Permission;
  write: boolean;
  verb?: string;
  byId: boolean;
  body?: () => Json;
}

/** Every route a declaration mounts, as the mounting code builds them. */
function routesOf(res: Resource<unknown>, base: string): RouteCase[] {
  const sample = SAMPLES[res.name]!;
  const write = res.permissions.write;
  const routes: RouteCase[] = [];
  if (write && res.create)
    routes.push({ method: 'POST', path: () => base, permission: write, write: true, verb: 'create', byId: false, body: sample.create });
  routes.push({ method: 'GET', path: () => base, permission: res.permissions.read, write: false, byId: false });
  routes.push({ method: 'GET', path: (id) => `${base}/${id}`, permission: res.permissions.read, write: false, byId: true });
  if (write && res.update)
    routes.push({
      method: 'PUT',
      path: (id) => `${base}/${id}`,
      permission: write,
      write: true,
      verb: 'update',
      byId: true,
      body: () => sample.update!,
    });
  for (const a of res.actions ?? [])
    routes.push({
      method: a.method,
      path: (id) => `${base}/${id}${a.suffix}`,
      permission: a.permission,
      write: a.write,
      verb: a.verb,
      byId: true,
      body: a.method === 'GET' ? undefined : () => sample.actions?.[a.verb] ?? {},
    });
  if (write && res.removal)
    routes.push({ method: 'DELETE', path: (id) => `${base}/${id}`, permission: write, write: true, verb: res.removal, byId: true });
  return routes;
}

describe.each(['sqlite', 'postgres'] as const)('admin routes conformance on %s', (store) => {
  let gw: TestGateway;
  let otherWorkspaceKey: string;
  let otherOrganisationKey: string;
  const lacking = new Map<Permission, string>();

  async function call(method: string, path: string, key: string, body?: Json): Promise<{ status: number; body: Json }> {
    const res = await gw.fetch(path, {
      method,
      headers: { 'x-gateway-api-key': key },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Json };
  }

  async function auditCount(): Promise<number> {
    const row = await gw.gateway.deps.store.db
      .selectFrom('audit_logs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** A key of the default workspace holding every permission but `permission`. */
  async function keyLacking(permission: Permission): Promise<string> {
    let key = lacking.get(permission);
    if (!key) {
      const created = await call('POST', '/v1/api-keys', gw.adminKey, {
        name: `lacks-${permission}`,
        scopes: PERMISSION_LIST.filter((p) => p !== permission),
      });
      expect(created.status).toBe(201);
      key = created.body.key as string;
      lacking.set(permission, key);
    }
    return key;
  }

  beforeAll(async () => {
    gw = await startGateway({ store });
    const deps = gw.gateway.deps;
    const db = deps.store.db;
    const org = deps.runtime.current.defaultOrganisationId;
    const member = await call('POST', '/v1/users', gw.adminKey, { email: `member-${randomId(8)}@example.com` });
    expect(member.status).toBe(201);
    memberUserId = member.body.id;
    const wsB = uuid();
    await db
      .insertInto('workspaces')
      .values({ id: wsB, organisation_id: org, name: 'B', slug: 'b', status: 'active', settings: '{}', created_at: 1, updated_at: 1 })
      .execute();
    const org2 = await call('POST', '/v1/organisations', gw.adminKey, { name: 'Other', slug: 'other' });
    expect(org2.status).toBe(201);
    const org2Key = await call('POST', '/v1/api-keys', org2.body.admin_key, {
      name: 'org2',
      type: 'workspace-service',
      workspace_id: 'default',
      scopes: ['*'],
    });
    expect(org2Key.status).toBe(201);
    otherOrganisationKey = org2Key.body.key;
    await deps.runtime.changed();
    const b = await call('POST', '/v1/api-keys', gw.adminKey, {
      name: 'ws-b',
      type: 'workspace-service',
      workspace_id: wsB,
      scopes: ['*'],
    });
    expect(b.status).toBe(201);
    otherWorkspaceKey = b.body.key;
    expect(
      (
        await call('POST', '/v1/mcp-integrations', gw.adminKey, {
          name: 'conformance',
          slug: 'conformance-mcp',
          url: 'http://127.0.0.1:9/mcp',
        })
      ).status,
    ).toBe(201);
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('every declared resource has a sample and every route it declares is mounted', () => {
    for (const res of ADMIN_RESOURCES) {
      expect(SAMPLES[res.name], res.name).toBeDefined();
      for (const base of res.paths) {
        for (const r of routesOf(res, base)) {
          const url = r.path(`:${res.idParam ?? 'id'}`);
          expect(gw.gateway.app.hasRoute({ method: r.method as 'GET', url }), `${r.method} ${url}`).toBe(true);
        }
      }
    }
  });

  for (const res of ADMIN_RESOURCES) {
    for (const declared of res.paths) {
      it(`${declared}: 403 without the permission, 404 from another workspace or organisation, one audit row per write`, async () => {
        const base = collectionPath(res, declared, gw.gateway.deps.runtime.current.defaultWorkspaceId);
        const sample = SAMPLES[res.name]!;
        let id: string;
        if (sample.seed) id = await sample.seed(gw);
        else {
          const created = await call('POST', base, gw.adminKey, sample.create!());
          expect(created.status, JSON.stringify(created.body)).toBe(201);
          id = (created.body.id ?? created.body[res.idParam ?? 'id']) as string;
        }
        expect((await call('GET', `${base}/${id}`, gw.adminKey)).status, 'the admin key reads the row').toBe(200);
        const routes = routesOf(res, base);

        for (const r of routes) await keyLacking(r.permission);
        const before = await auditCount();
        for (const r of routes) {
          const denied = await call(r.method, r.path(id), await keyLacking(r.permission), r.body?.());
          expect(denied.status, `${r.method} ${r.path(id)} without ${r.permission}`).toBe(403);
          expect(denied.body.error).toMatchObject({ code: 'forbidden', message: expect.stringContaining(r.permission) });
        }
        for (const r of routes.filter((x) => x.byId)) {
          for (const [who, key] of [
            ['another workspace', otherWorkspaceKey],
            ['another organisation', otherOrganisationKey],
          ] as const) {
            const hidden = await call(r.method, r.path(id), key, r.body?.());
            expect(hidden.status, `${r.method} ${r.path(id)} from ${who}`).toBe(404);
            expect(hidden.body.error.code).toBe('not_found');
          }
        }
        for (const key of [otherWorkspaceKey, otherOrganisationKey]) {
          const list = await call('GET', `${base}?page_size=100`, key);
          if (res.pathWorkspace !== undefined) {
            // The collection itself belongs to a workspace out of reach.
            expect(list.status).toBe(404);
            continue;
          }
          if (sample.organisationAdminsOnly) {
            // Both other keys are workspace keys: refused outright, which shows them nothing either.
            expect(list.status).toBe(403);
            continue;
          }
          expect(list.status).toBe(200);
          expect(list.body.data.map((x: Json) => x.id)).not.toContain(id);
        }
        expect(await auditCount(), 'refused requests write no audit row').toBe(before);

        const createdRows = await gw.gateway.deps.store.db
          .selectFrom('audit_logs')
          .selectAll()
          .where('resource_id', '=', id)
          .where('resource_type', '=', res.name)
          .execute();
        expect(createdRows.map((r) => r.action)).toEqual(sample.seed ? [] : [`${res.name}.create`]);
        for (const r of routes.filter((x) => x.byId && x.write)) {
          const n = await auditCount();
          const ok = await call(r.method, r.path(id), gw.adminKey, r.body?.());
          const refused = r.verb === undefined ? undefined : SAMPLES[res.name]!.refused?.[r.verb];
          if (refused !== undefined) {
            expect(ok.status, `${r.method} ${r.path(id)}: ${JSON.stringify(ok.body)}`).toBe(refused);
            expect(await auditCount(), `${r.method} ${r.path(id)} refused writes no audit row`).toBe(n);
            continue;
          }
          expect(ok.status, `${r.method} ${r.path(id)}: ${JSON.stringify(ok.body)}`).toBe(200);
          expect(await auditCount(), `${r.method} ${r.path(id)} writes one audit row`).toBe(n + 1);
          const last = await gw.gateway.deps.store.db
            .selectFrom('audit_logs')
            .selectAll()
            .orderBy('created_at', 'desc')
            .orderBy('id', 'desc')
            .limit(10)
            .execute();
          expect(last.some((row) => row.action === `${res.name}.${r.verb}` && row.resource_id === id)).toBe(true);
        }
        const details = JSON.stringify(await gw.gateway.deps.store.db.selectFrom('audit_logs').select('details').execute());
        expect(details).not.toMatch(/sk-config-secret|sk-vk-secret|sk-integration-secret/);
      });
    }
  }

  // Hand-written: the console session routes act on the caller's own session (see session-routes.ts).
  it('/v1/auth/*: login is public (no gateway key needed), session and logout need a session (401 for a key), one audit row per write', async () => {
    expect(gw.gateway.app.hasRoute({ method: 'POST', url: '/v1/auth/login' })).toBe(true);
    expect(gw.gateway.app.hasRoute({ method: 'GET', url: '/v1/auth/session' })).toBe(true);
    expect(gw.gateway.app.hasRoute({ method: 'POST', url: '/v1/auth/logout' })).toBe(true);
    const before = await auditCount();
    const anonymous = await fetch(`${gw.url}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: 'unknown' }),
    });
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as Json).error).toMatchObject({ code: 'invalid_api_key', param: 'api_key' });
    for (const [method, path] of [
      ['GET', '/v1/auth/session'],
      ['POST', '/v1/auth/logout'],
    ] as const) {
      const res = await call(method, path, gw.adminKey);
      expect(res.status, `${method} ${path} with a key`).toBe(401);
      expect(res.body.error.code).toBe('invalid_api_key');
      expect((await fetch(gw.url + path, { method })).status, `${method} ${path} without a credential`).toBe(401);
    }
    expect(await auditCount()).toBe(before);
    const someone = await call('POST', '/v1/users', gw.adminKey, {
      email: `login-${randomId(8)}@example.com`,
      workspaces: [{ id: 'default', role: 'member' }],
    });
    expect(someone.status).toBe(201);
    const user = await call('POST', '/v1/api-keys', gw.adminKey, { name: 'login', type: 'workspace-user', user_id: someone.body.id });
    expect(user.status, JSON.stringify(user.body)).toBe(201);
    const afterKey = await auditCount();
    const login = await fetch(`${gw.url}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: user.body.key }),
    });
    expect(login.status).toBe(200);
    expect(await auditCount()).toBe(afterKey + 1);
    const cookies = login.headers.getSetCookie().map((l) => l.split(';')[0]!);
    const csrf = cookies.find((c) => c.startsWith('gw_csrf='))!.slice('gw_csrf='.length);
    const out = await fetch(`${gw.url}/v1/auth/logout`, {
      method: 'POST',
      headers: { cookie: cookies.join('; '), 'x-gateway-csrf': csrf },
    });
    expect(out.status).toBe(204);
    expect(await auditCount()).toBe(afterKey + 2);
  });

  // Hand-written: the organisation is a singleton (see organisation-routes.ts), so it is walked here.
  it('/v1/organisation: 403 without the permission, each organisation sees only its own, one audit row per write', async () => {
    const routes = [
      { method: 'GET', path: '/v1/organisation', permission: 'organisation.read' as Permission, body: undefined },
      {
        method: 'PUT',
        path: '/v1/organisation/settings',
        permission: 'organisation.write' as Permission,
        body: { membersViewAllData: false },
      },
    ];
    for (const r of routes) await keyLacking(r.permission);
    const before = await auditCount();
    for (const r of routes) {
      const denied = await call(r.method, r.path, await keyLacking(r.permission), r.body);
      expect(denied.status, `${r.method} ${r.path} without ${r.permission}`).toBe(403);
      expect(denied.body.error).toMatchObject({ code: 'forbidden', message: expect.stringContaining(r.permission) });
    }
    expect(await auditCount()).toBe(before);
    const mine = await call('GET', '/v1/organisation', gw.adminKey);
    const theirs = await call('GET', '/v1/organisation', otherOrganisationKey);
    expect(mine.body.id).toBe(gw.gateway.deps.runtime.current.defaultOrganisationId);
    expect(theirs.status).toBe(200);
    expect(theirs.body.id).not.toBe(mine.body.id);
    const ok = await call('PUT', '/v1/organisation/settings', gw.adminKey, { membersViewAllData: false });
    expect(ok.status).toBe(200);
    expect(await auditCount()).toBe(before + 1);
    expect((await call('GET', '/v1/organisation', otherOrganisationKey)).body.settings.membersViewAllData).toBe(true);
  });
});

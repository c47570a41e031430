import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { callAs, insertKey, createOrganisation, type JsonAnswer } from '../tenancy/tenant-helpers.js';
import { randomId } from '../../../src/foundation/lib/ids.js';

/**
 * `GET /v1/logs` visibility (control-plane.md §1, "logs and analytics"), over HTTP (the e2e suite runs on
 * SQLite and again on PostgreSQL): user keys of each role in a workspace, with the organisation's and workspace's settings
 * on and off, and service keys by their scopes; plus the list's filters and their bad input.
 */
type Who = 'member' | 'manager' | 'wsAdmin' | 'orgAdminMember' | 'orgAdminOutsider' | 'service';
interface Actor {
  key: string;
  keyId: string;
  userId: string | null;
}

describe('log visibility', () => {
  let gw: TestGateway;
  let fake: FakeOpenAI;
  let team: string;
  const actors = {} as Record<Who, Actor>;
  /** The log id of each actor's one request. */
  const logOf = {} as Record<Who, string>;
  const admin = (method: string, path: string, body?: unknown) => callAs(gw, gw.adminKey, method, path, body);

  function expectError(r: JsonAnswer, status: number, code: string, param?: string): void {
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    expect(r.body.error).toMatchObject({ code, message: expect.any(String), type: expect.any(String) });
    if (param !== undefined) expect(r.body.error.param ?? r.body.error.message).toContain(param);
  }

  async function userWithKey(name: string, orgRole: string, wsRole: string | null): Promise<Actor> {
    const user = await admin('POST', '/v1/users', {
      email: `${name}-${randomId(6)}@example.com`,
      role: orgRole,
      ...(wsRole ? { workspaces: [{ id: team, role: wsRole }] } : {}),
    });
    expect(user.status, JSON.stringify(user.body)).toBe(201);
    const key = await admin('POST', '/v1/api-keys', {
      name,
      type: 'workspace-user',
      workspace_id: team,
      user_id: user.body.id,
      scopes: ['*'],
    });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    return { key: key.body.key, keyId: key.body.id, userId: user.body.id };
  }

  /** One chat request of `who` (metadata names them); returns its log id. */
  async function request(who: Who): Promise<string> {
    const trace = `vis-${who}-${randomId(6)}`;
    const r = await callAs(
      gw,
      actors[who].key,
      'POST',
      '/v1/chat/completions',
      { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
      {
        'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: 'sk-fake', custom_host: fake.url }),
        'x-gateway-metadata': JSON.stringify({ who }),
        'x-gateway-trace-id': trace,
      },
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const logs = await admin('GET', `/v1/logs?trace_id=${trace}`);
    expect(logs.body.data).toHaveLength(1);
    return logs.body.data[0].id;
  }

  /** The actors whose requests `who` sees in the workspace's log (by the metadata of each row). */
  async function seenBy(who: Who): Promise<string[]> {
    const r = await callAs(gw, actors[who].key, 'GET', '/v1/logs?page_size=100');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.total).toBe(r.body.data.length);
    const ids = r.body.data.map((l: { id: string }) => l.id);
    return (Object.keys(logOf) as Who[]).filter((w) => ids.includes(logOf[w])).sort();
  }

  const everyone = (): string[] => (Object.keys(logOf) as Who[]).sort();
  const workspaceSettings = async (settings: Record<string, boolean>) =>
    expect((await admin('PUT', `/v1/workspaces/${team}`, { settings })).status).toBe(200);
  const organisationSettings = async (settings: Record<string, boolean>) =>
    expect((await admin('PUT', '/v1/organisation/settings', settings)).status).toBe(200);

  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-fake' });
    gw = await startGateway();
    team = (await admin('POST', '/v1/workspaces', { name: 'Team', slug: 'team' })).body.id;
    actors.member = await userWithKey('member', 'member', 'member');
    actors.manager = await userWithKey('manager', 'member', 'manager');
    actors.wsAdmin = await userWithKey('ws-admin', 'member', 'admin');
    actors.orgAdminMember = await userWithKey('org-admin-member', 'admin', 'member');
    actors.orgAdminOutsider = await userWithKey('org-admin-outsider', 'owner', null);
    const service = await admin('POST', '/v1/api-keys', {
      name: 'svc',
      type: 'workspace-service',
      workspace_id: team,
      scopes: ['completions.write', 'logs.read'],
    });
    expect(service.status, JSON.stringify(service.body)).toBe(201);
    actors.service = { key: service.body.key, keyId: service.body.id, userId: null };
    for (const who of Object.keys(actors) as Who[]) logOf[who] = await request(who);
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });

  it('records who made each request: the key and, for a user key, its user', async () => {
    for (const who of Object.keys(actors) as Who[]) {
      const r = await admin('GET', `/v1/logs/${logOf[who]}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body).toMatchObject({
        id: logOf[who],
        workspace_id: team,
        api_key_id: actors[who].keyId,
        user_id: actors[who].userId,
        metadata: { who },
        stream: false,
        status: 200,
      });
      expect(r.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    }
  });

  it('with the defaults (every setting true) every role sees every request of the workspace', async () => {
    for (const who of Object.keys(actors) as Who[]) expect(await seenBy(who), who).toEqual(everyone());
  });

  it('membersViewAllData false: a member sees only their own requests (list and by id); managers and admins still see all', async () => {
    await workspaceSettings({ membersViewAllData: false });
    expect(await seenBy('member')).toEqual(['member']);
    expect((await callAs(gw, actors.member.key, 'GET', `/v1/logs/${logOf.member}`)).status).toBe(200);
    expectError(await callAs(gw, actors.member.key, 'GET', `/v1/logs/${logOf.manager}`), 404, 'not_found');
    const filtered = await callAs(gw, actors.member.key, 'GET', `/v1/logs?user_id=${actors.manager.userId}`);
    expect(filtered.body).toMatchObject({ total: 0, data: [] });
    for (const who of ['manager', 'wsAdmin', 'orgAdminMember', 'orgAdminOutsider', 'service'] as const)
      expect(await seenBy(who), who).toEqual(everyone());
    await workspaceSettings({ membersViewAllData: true });
    expect(await seenBy('member')).toEqual(everyone());
  });

  it("managersViewAllData false (the organisation's, then overridden by the workspace): a manager sees only their own", async () => {
    await organisationSettings({ managersViewAllData: false });
    expect(await seenBy('manager')).toEqual(['manager']);
    expectError(await callAs(gw, actors.manager.key, 'GET', `/v1/logs/${logOf.service}`), 404, 'not_found');
    expect(await seenBy('member')).toEqual(everyone());
    expect(await seenBy('wsAdmin')).toEqual(everyone());
    await workspaceSettings({ managersViewAllData: true });
    expect(await seenBy('manager')).toEqual(everyone());
    await workspaceSettings({});
    await organisationSettings({ managersViewAllData: true });
  });

  it('organisationAdminsViewLogMetadata false hides metadata from an organisation admin outside the workspace only', async () => {
    await organisationSettings({ organisationAdminsViewLogMetadata: false, organisationAdminsViewLogs: false });
    expect(await seenBy('orgAdminOutsider')).toEqual(everyone());
    const outside = await callAs(gw, actors.orgAdminOutsider.key, 'GET', '/v1/logs?page_size=100');
    expect(outside.body.data.every((l: { metadata: unknown }) => l.metadata === null)).toBe(true);
    expect((await callAs(gw, actors.orgAdminOutsider.key, 'GET', `/v1/logs/${logOf.member}`)).body).toMatchObject({
      id: logOf.member,
      metadata: null,
      user_id: actors.member.userId,
    });
    for (const who of ['orgAdminMember', 'wsAdmin', 'member', 'service'] as const) {
      expect((await callAs(gw, actors[who].key, 'GET', `/v1/logs/${logOf.member}`)).body.metadata, who).toEqual({ who: 'member' });
    }
    await organisationSettings({ organisationAdminsViewLogMetadata: true });
    expect((await callAs(gw, actors.orgAdminOutsider.key, 'GET', `/v1/logs/${logOf.member}`)).body.metadata).toEqual({ who: 'member' });
    await organisationSettings({ organisationAdminsViewLogs: true });
  });

  it('service keys read by their scopes within their tenant: logs.read sees all, without it 403, another tenant 404', async () => {
    expect(await seenBy('service')).toEqual(everyone());
    const noLogs = await admin('POST', '/v1/api-keys', {
      name: 'no-logs',
      type: 'workspace-service',
      workspace_id: team,
      scopes: ['configs.read'],
    });
    expectError(await callAs(gw, noLogs.body.key, 'GET', '/v1/logs'), 403, 'forbidden', 'logs.read');
    expectError(await callAs(gw, noLogs.body.key, 'GET', `/v1/logs/${logOf.member}`), 403, 'forbidden', 'logs.read');
    const otherKey = (await createOrganisation(gw, `other-${randomId(6).toLowerCase()}`)).adminKey;
    expect((await callAs(gw, otherKey, 'GET', '/v1/logs?page_size=100')).body.data).toEqual([]);
    expectError(await callAs(gw, otherKey, 'GET', `/v1/logs/${logOf.member}`), 404, 'not_found');
    expectError(await callAs(gw, otherKey, 'GET', `/v1/logs?workspace_id=${team}`), 404, 'not_found', 'workspace_id');
    // A key of the default workspace does not see the team's rows either.
    const defaultKey = await admin('POST', '/v1/api-keys', { name: 'default-ws', type: 'workspace-service', scopes: ['logs.read'] });
    expectError(await callAs(gw, defaultKey.body.key, 'GET', `/v1/logs/${logOf.service}`), 404, 'not_found');
  });

  it('filters: user_id, api_key_id, model, provider, status_code, cache_status, time range, workspace_id', async () => {
    const ids = async (query: string) =>
      (await admin('GET', `/v1/logs?page_size=100&workspace_id=${team}&${query}`)).body.data.map((l: { id: string }) => l.id);
    expect(await ids(`user_id=${actors.manager.userId}`)).toEqual([logOf.manager]);
    expect(await ids(`api_key_id=${actors.service.keyId}`)).toEqual([logOf.service]);
    expect((await ids('model=gpt-4o-mini')).length).toBe(6);
    expect((await ids('provider=openai&status_code=200')).length).toBe(6);
    expect(await ids('status_code=500')).toEqual([]);
    expect(await ids('model=nope')).toEqual([]);
    expect(await ids('cache_status=HIT')).toEqual([]);
    const member = (await admin('GET', `/v1/logs/${logOf.member}`)).body;
    const at = Date.parse(member.created_at);
    expect(await ids(`start_time=${new Date(at).toISOString()}&end_time=${new Date(at + 1).toISOString()}`)).toContain(logOf.member);
    expect(await ids(`end_time=${new Date(at).toISOString()}`)).not.toContain(logOf.member);
    expect(await ids(`start_time=${Math.floor(at / 1000) + 3600}`)).toEqual([]);
    const page = await admin('GET', `/v1/logs?workspace_id=team&page_size=2&current_page=1`);
    expect(page.body).toMatchObject({ object: 'list', total: 6 });
    expect(page.body.data).toHaveLength(2);
  });

  it('bad input on the filters is 400 invalid_request naming the parameter; unknown ids 404', async () => {
    expectError(await admin('GET', '/v1/logs?start_time=yesterday'), 400, 'invalid_request', 'start_time');
    expectError(await admin('GET', '/v1/logs?end_time=2026-13-45T00:00:00Z'), 400, 'invalid_request', 'end_time');
    expectError(
      await admin('GET', '/v1/logs?start_time=2026-05-02T00:00:00Z&end_time=2026-05-01T00:00:00Z'),
      400,
      'invalid_request',
      'start_time',
    );
    expectError(await admin('GET', '/v1/logs?status_code=abc'), 400, 'invalid_request', 'status_code');
    expectError(await admin('GET', '/v1/logs?status_code=99'), 400, 'invalid_request', 'status_code');
    expectError(await admin('GET', '/v1/logs?page_size=0'), 400, 'invalid_request', 'page_size');
    expectError(await admin('GET', '/v1/logs?page_size=101'), 400, 'invalid_request', 'page_size');
    expectError(await admin('GET', '/v1/logs?current_page=-1'), 400, 'invalid_request', 'current_page');
    expectError(await admin('GET', '/v1/logs?colour=blue'), 400, 'invalid_request', 'colour');
    expectError(await admin('GET', '/v1/logs?trace_id='), 400, 'invalid_request', 'trace_id');
    expectError(await admin('GET', '/v1/logs?workspace_id=nowhere'), 404, 'not_found', 'workspace_id');
    expectError(await admin('GET', '/v1/logs/log_unknown'), 404, 'not_found');
    for (const method of ['POST', 'PUT', 'DELETE'])
      expect(
        (await admin(method, method === 'POST' ? '/v1/logs' : `/v1/logs/${logOf.member}`, method === 'DELETE' ? undefined : {})).status,
        method,
      ).toBe(404);
  });
});

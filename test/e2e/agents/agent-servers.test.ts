import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { callAs, insertKey, insertWorkspace } from '../tenancy/tenant-helpers.js';
import { startFakeAgent, type FakeAgent } from '../../fakes/a2a/agent-server.js';
import { startFakeCardServer, type FakeCardServer } from '../../fakes/a2a/card-server.js';
import { isSealed } from '../../../src/foundation/lib/secret-box.js';

const SECRET = 'Bearer upstream-secret-token-123';

/** Runs on SQLite and, in the postgres project, on PostgreSQL. */
describe('/v1/agent-servers and their cards', () => {
  let gw: TestGateway;
  let agent: FakeAgent;
  let cards: FakeCardServer;
  let otherKey: string;
  let otherWs: string;
  const admin = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    callAs(gw, gw.adminKey, method, path, body, headers);

  beforeAll(async () => {
    // The card advertises a URL other than where it is served (a peer behind a load balancer).
    agent = await startFakeAgent({ prefix: '/team/agent', advertisedUrl: 'https://agents.internal.example:8443/rpc/' });
    cards = await startFakeCardServer();
    gw = await startGateway({ env: { GATEWAY_AGENT_TIMEOUT_MS: '1500' } });
    const rt = gw.gateway.deps.runtime.current;
    otherWs = await insertWorkspace(gw, rt.defaultOrganisationId, 'team-b');
    otherKey = await insertKey(gw, { organisationId: rt.defaultOrganisationId, workspaceId: otherWs, type: 'workspace-service' });
    await gw.gateway.deps.runtime.changed();
  });
  afterAll(async () => {
    await gw?.close();
    await agent?.close();
    await cards?.close();
  });

  it('creates an agent server with sealed, masked headers; another workspace gets 404', async () => {
    const created = await admin('POST', '/v1/agent-servers', {
      name: 'Echo',
      slug: 'echo-card',
      url: `${agent.url}/`,
      headers: { Authorization: SECRET },
      skills: { allow: ['echo'] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      object: 'agent_server',
      slug: 'echo-card',
      url: `${agent.url}/`,
      headers: { authorization: 'Bea…-123' },
      skills: { allow: ['echo'] },
    });
    const db = gw.gateway.deps.store.db;
    const row = await db.selectFrom('agent_servers').selectAll().where('id', '=', created.body.id).executeTakeFirstOrThrow();
    expect(isSealed(row.headers_sealed)).toBe(true);
    for (const table of ['agent_servers', 'audit_logs'] as const)
      expect(JSON.stringify(await db.selectFrom(table).selectAll().execute())).not.toContain('upstream-secret');
    expect((await admin('GET', `/v1/agent-servers/${created.body.id}`)).body.headers).toEqual({ authorization: 'Bea…-123' });
    expect((await admin('GET', '/v1/agent-servers/echo-card')).body.id).toBe(created.body.id);
    const audit = await admin('GET', `/v1/audit-logs?resource_type=agent_server`);
    expect(audit.body.data[0]).toMatchObject({ action: 'agent_server.create', resource_id: created.body.id });

    expect((await callAs(gw, otherKey, 'GET', `/v1/agent-servers/${created.body.id}`)).status).toBe(404);
    expect((await callAs(gw, otherKey, 'GET', `/v1/agent-servers/${created.body.id}/agent-card`)).status).toBe(404);
    expect((await callAs(gw, otherKey, 'PUT', `/v1/agent-servers/${created.body.id}`, { name: 'x' })).status).toBe(404);
    expect((await callAs(gw, otherKey, 'GET', '/v1/agent-servers')).body.total).toBe(0);
    const otherInvoker = await insertKey(gw, {
      organisationId: gw.gateway.deps.runtime.current.defaultOrganisationId,
      workspaceId: otherWs,
      type: 'workspace-service',
      scopes: ['agents.invoke'],
    });
    await gw.gateway.deps.runtime.changed();
    const call = await callAs(
      gw,
      otherInvoker,
      'POST',
      '/v1/agents/echo-card',
      { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } },
      { 'a2a-version': '1.0' },
    );
    expect(call.status).toBe(404);
    expect(call.body.error.code).toBe('not_found');
  });

  it('refuses bad input with the error shape', async () => {
    const cases: Array<[unknown, number, string]> = [
      [{ name: 'x', url: 'not a url' }, 400, 'url'],
      [{ name: 'x', url: 'http://10.1.2.3/agent' }, 400, 'url'],
      [{ name: 'x', url: 'http://169.254.169.254/latest' }, 400, 'url'],
      [{ name: 'x', url: 'ftp://127.0.0.1/agent' }, 400, 'url'],
      [{ name: 'x', url: agent.url, headers: { 'content-type': 'text/plain' } }, 400, 'headers.content-type'],
      [{ name: 'x', url: agent.url, headers: { 'bad header': 'v' } }, 400, 'headers.bad header'],
      [{ name: 'x', url: agent.url, headers: { 'x-a': 'line\r\nbreak' } }, 400, 'headers.x-a'],
      [{ name: 'x', url: agent.url, skills: { allow: ['a', 'a'] } }, 400, 'skills.allow[1]'],
      [
        { name: 'x', url: agent.url, secret_mappings: [{ target_field: 'headers.X-Key', secret_reference_id: 'unknown-ref' }] },
        400,
        'secret_mappings[0].secret_reference_id',
      ],
      [{ name: 'x', url: agent.url, slug: 'Not A Slug' }, 400, 'slug'],
      [{ name: 'x', url: agent.url, slug: 'echo-card' }, 409, 'slug'],
    ];
    for (const [body, status, param] of cases) {
      const res = await admin('POST', '/v1/agent-servers', body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.error.param ?? res.body.error.message, JSON.stringify(res.body)).toContain(param);
    }
    expect((await admin('PUT', '/v1/agent-servers/echo-card', { url: 'http://192.168.0.1/' })).status).toBe(400);
    expect((await admin('PUT', '/v1/agent-servers/echo-card', {})).status).toBe(400);
  });

  it('serves the card with interface URLs at the gateway, signatures stripped, skills allow-listed, revalidated by ETag', async () => {
    const gatewayUrl = `${gw.url}/v1/agents/echo-card`;
    const res = await gw.fetch('/v1/agent-servers/echo-card/agent-card', { headers: { 'a2a-version': '1.0' } });
    expect(res.status).toBe(200);
    const card = (await res.json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(card.name).toBe('Echo agent');
    expect(card.signatures).toBeUndefined();
    // Only JSON-RPC interfaces, one per version, exactly at the gateway's URL: no doubled path, no upstream host.
    expect(card.supportedInterfaces).toEqual([
      { url: gatewayUrl, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url: gatewayUrl, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
    ]);
    expect(card.skills.map((s: { id: string }) => s.id)).toEqual(['echo']);
    expect(JSON.stringify(card)).not.toContain('agents.internal.example');
    // The upstream got the server's headers and the caller's version, at <url>/.well-known/agent-card.json.
    const first = agent.cardRequests.at(-1)!;
    expect(first.authorization).toBe(SECRET);
    expect(first['a2a-version']).toBe('1.0');

    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    const again = await gw.fetch('/v1/agent-servers/echo-card/agent-card', { headers: { 'a2a-version': '1.0', 'if-none-match': etag } });
    expect(again.status).toBe(304);
    // The gateway revalidated with the upstream's own ETag.
    expect(agent.cardRequests.at(-1)!['if-none-match']).toBeTruthy();

    const legacy = (await (await gw.fetch('/v1/agent-servers/echo-card/agent-card')).json()) as Record<string, unknown>;
    expect(legacy).toMatchObject({ name: 'Echo agent', url: gatewayUrl, preferredTransport: 'JSONRPC' });
    expect(legacy.signatures).toBeUndefined();
  });

  it('falls back to /.well-known/agent.json (a v0.3 card) and revalidates it with its ETag', async () => {
    const created = await admin('POST', '/v1/agent-servers', { name: 'Legacy', slug: 'legacy', url: `${cards.origin}/legacy` });
    expect(created.status).toBe(201);
    const res = await admin('GET', '/v1/agent-servers/legacy/agent-card');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Legacy agent',
      url: `${gw.url}/v1/agents/legacy`,
      preferredTransport: 'JSONRPC',
      supportsAuthenticatedExtendedCard: false,
    });
    expect(res.body.signatures).toBeUndefined();
    expect(cards.seen.slice(-2).map((s) => s.path)).toEqual(['/legacy/.well-known/agent-card.json', '/legacy/.well-known/agent.json']);
    expect((await admin('GET', '/v1/agent-servers/legacy/agent-card')).body.name).toBe('Legacy agent');
    expect(cards.seen.at(-1)).toEqual({ path: '/legacy/.well-known/agent.json', ifNoneMatch: '"legacy-v1"' });
  });

  it('refuses a card that is not JSON, too large, nameless, URL-less, failing or hanging', async () => {
    const cases: Array<[string, number, RegExp]> = [
      ['notjson', 502, /not JSON/],
      ['large', 502, /larger than 1048576 bytes/],
      ['noname', 502, /no name/],
      ['nourl', 502, /no URL/],
      ['status500', 502, /answered 500/],
      ['hang', 408, /within 1500 ms/],
      ['missing', 502, /no agent card/],
    ];
    for (const [which, status, message] of cases) {
      const created = await admin('POST', '/v1/agent-servers', { name: which, slug: `card-${which}`, url: `${cards.origin}/${which}` });
      expect(created.status).toBe(201);
      const started = Date.now();
      const res = await admin('GET', `/v1/agent-servers/card-${which}/agent-card`);
      expect(res.status, `${which}: ${JSON.stringify(res.body)}`).toBe(status);
      expect(res.body.error.message).toMatch(message);
      expect(Date.now() - started).toBeLessThan(5000);
    }
  });

  it('updates and deletes; the slug is gone afterwards', async () => {
    const created = await admin('POST', '/v1/agent-servers', { name: 'Temp', url: agent.url });
    expect(created.body.slug).toMatch(/^temp-[0-9a-f]{8}$/);
    const updated = await admin('PUT', `/v1/agent-servers/${created.body.id}`, { headers: {}, skills: { allow: null }, name: 'Renamed' });
    expect(updated.body).toMatchObject({ name: 'Renamed', headers: {}, skills: { allow: null } });
    expect((await admin('DELETE', `/v1/agent-servers/${created.body.id}`)).body).toEqual({
      id: created.body.id,
      object: 'agent_server',
      deleted: true,
    });
    expect((await admin('GET', `/v1/agent-servers/${created.body.id}`)).status).toBe(404);
  });
});

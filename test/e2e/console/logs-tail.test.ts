import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { callAs } from '../tenancy/tenant-helpers.js';
import { randomId } from '../../../src/foundation/lib/ids.js';
import { logRows, openTail, type Tail } from './tail-client.js';

/**
 * `GET /v1/logs/tail` over HTTP with a real SSE parser (the e2e suite runs on SQLite and again on
 * PostgreSQL): new rows arrive as `log` events, filters and visibility are those of `GET /v1/logs`,
 * `Last-Event-ID` resumes, a revoked key's stream ends, and bad input is a JSON 4xx before any stream.
 */
describe('log tail', () => {
  let gw: TestGateway;
  let fake: FakeOpenAI;
  let team: string;
  const tails: Tail[] = [];
  const admin = (method: string, path: string, body?: unknown) => callAs(gw, gw.adminKey, method, path, body);

  async function tail(query: string, key = gw.adminKey, headers: Record<string, string> = {}): Promise<Tail> {
    const t = await openTail(gw.url, query, { 'x-gateway-api-key': key, ...headers });
    tails.push(t);
    return t;
  }

  /** One chat request with `key` and a fresh trace id; returns the trace id. */
  async function request(key = gw.adminKey, model = 'gpt-4o-mini'): Promise<string> {
    const trace = `tail-${randomId(8)}`;
    const r = await callAs(
      gw,
      key,
      'POST',
      '/v1/chat/completions',
      { model, messages: [{ role: 'user', content: 'hi' }] },
      {
        'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: 'sk-fake', custom_host: fake.url }),
        'x-gateway-trace-id': trace,
      },
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return trace;
  }

  async function userKey(role: string): Promise<{ key: string; id: string }> {
    const user = await admin('POST', '/v1/users', { email: `tail-${randomId(6)}@example.com`, workspaces: [{ id: team, role }] });
    expect(user.status, JSON.stringify(user.body)).toBe(201);
    const key = await admin('POST', '/v1/api-keys', {
      name: 'u',
      type: 'workspace-user',
      workspace_id: team,
      user_id: user.body.id,
      scopes: ['*'],
    });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    return { key: key.body.key, id: key.body.id };
  }

  const traces = (t: Tail) => logRows(t.events).map((r) => r.trace_id);

  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-fake' });
    gw = await startGateway();
    team = (await admin('POST', '/v1/workspaces', { name: 'Tail team', slug: `tail-${randomId(5).toLowerCase()}` })).body.id;
  });
  afterAll(async () => {
    for (const t of tails) t.close();
    await gw?.close();
    await fake?.close();
  });

  it('streams new rows as log events, oldest first, in the shape of GET /v1/logs, with a resumable cursor', async () => {
    const before = await request();
    const t = await tail('');
    expect(t.status).toBe(200);
    await t.until((e) => e.some((x) => x.event === 'ready'));
    const a = await request();
    const b = await request();
    await t.until(() => traces(t).includes(a) && traces(t).includes(b));
    expect(traces(t)).not.toContain(before);
    expect(traces(t).indexOf(a)).toBeLessThan(traces(t).indexOf(b));
    const row = logRows(t.events).find((r) => r.trace_id === a)!;
    const listed = await admin('GET', `/v1/logs?trace_id=${a}`);
    expect(row).toEqual(listed.body.data[0]);
    const event = t.events.find((e) => e.event === 'log' && JSON.parse(e.data).trace_id === a)!;
    expect(event.id).toMatch(new RegExp(`^\\d+:${row.id}$`));

    // A reconnect with the cursor of `a` resumes after it: `b` comes again, `a` only if in the same millisecond.
    const resumed = await tail('', gw.adminKey, { 'last-event-id': event.id! });
    await resumed.until(() => traces(resumed).includes(b));
    expect(traces(resumed)).not.toContain(before);
  });

  it('applies the list filters', async () => {
    const t = await tail('?model=gpt-4o');
    await t.until((e) => e.some((x) => x.event === 'ready'));
    const other = await request(gw.adminKey, 'gpt-4o-mini');
    const wanted = await request(gw.adminKey, 'gpt-4o');
    await t.until(() => traces(t).includes(wanted));
    expect(traces(t)).not.toContain(other);
    expect(logRows(t.events).every((r) => r.model === 'gpt-4o')).toBe(true);
  });

  it('shows a member only what GET /v1/logs shows them (own rows when membersViewAllData is off; another workspace never)', async () => {
    expect((await admin('PUT', `/v1/workspaces/${team}`, { settings: { membersViewAllData: false } })).status).toBe(200);
    const member = await userKey('member');
    const colleague = await userKey('member');
    const t = await tail('', member.key);
    await t.until((e) => e.some((x) => x.event === 'ready'));
    const theirs = await request(colleague.key);
    const elsewhere = await request();
    const own = await request(member.key);
    await t.until(() => traces(t).includes(own));
    // One more poll after its own row: nothing else arrives.
    await new Promise((r) => setTimeout(r, 1500));
    expect(traces(t)).toEqual([own]);
    expect(traces(t)).not.toContain(theirs);
    expect(traces(t)).not.toContain(elsewhere);
  });

  it('ends the stream of a key revoked while it follows', async () => {
    const member = await userKey('admin');
    const t = await tail('', member.key);
    await t.until((e) => e.some((x) => x.event === 'ready'));
    expect((await admin('DELETE', `/v1/api-keys/${member.id}`)).status).toBe(200);
    const ended = await Promise.race([t.ended.then(() => 'ended'), new Promise((r) => setTimeout(() => r('open'), 5000))]);
    expect(ended).toBe('ended');
  });

  it('refuses bad input with a JSON 4xx before any stream', async () => {
    const cases: Array<[string, string | undefined, number, string, string | undefined]> = [
      ['?end_time=2026-01-01T00:00:00.000Z', undefined, 400, 'invalid_request', 'end_time'],
      ['?colour=red', undefined, 400, 'invalid_request', undefined],
      ['?status_code=abc', undefined, 400, 'invalid_request', undefined],
      ['?start_time=yesterday', undefined, 400, 'invalid_request', undefined],
      ['?workspace_id=no-such-workspace', undefined, 404, 'not_found', 'workspace_id'],
    ];
    for (const [query, key, status, code, param] of cases) {
      const t = await tail(query, key);
      expect(t.status, query).toBe(status);
      expect(t.error!.error.code, query).toBe(code);
      if (param) expect(t.error!.error.param ?? t.error!.error.message, query).toContain(param);
    }
    const noScope = await admin('POST', '/v1/api-keys', {
      name: 'no-logs',
      type: 'workspace-service',
      workspace_id: team,
      scopes: ['completions.write'],
    });
    const forbidden = await tail('', noScope.body.key);
    expect([forbidden.status, forbidden.error!.error.code]).toEqual([403, 'forbidden']);
    const teamKey = await admin('POST', '/v1/api-keys', {
      name: 'team-logs',
      type: 'workspace-service',
      workspace_id: team,
      scopes: ['logs.read'],
    });
    const otherWorkspace = await tail('?workspace_id=default', teamKey.body.key);
    expect([otherWorkspace.status, otherWorkspace.error!.error.code]).toEqual([404, 'not_found']);
    const jsonClient = await fetch(`${gw.url}/v1/logs/tail`, { headers: { 'x-gateway-api-key': gw.adminKey } });
    expect(jsonClient.status).toBe(400);
    expect(((await jsonClient.json()) as { error: { param: string } }).error.param).toBe('accept');
    const anonymous = await openTail(gw.url, '', {});
    expect([anonymous.status, anonymous.error!.error.code]).toEqual([401, 'invalid_api_key']);
  });
});

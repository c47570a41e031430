import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { createLogger } from '../../../src/infra/observability/logger.js';
import { insertKey } from '../tenancy/tenant-helpers.js';

interface LogRow {
  trace_id: string;
  endpoint: string;
  status: number;
  error: { code: string; message: string; param: string | null } | null;
}

/**
 * Every data-plane answer is accounted, refused ones included: a request refused before its handler
 * ran (validation, a bad gateway header, an unknown agent) gets a request-log row with the error's
 * code, message and param, is counted in `gateway_requests_total`, and its stdout line carries the
 * message and the param; an unauthenticated one (no tenant to log it in) is counted and has its line.
 * A failure the route accounted for itself is not accounted twice. Runs on SQLite and PostgreSQL.
 */
describe('refused data-plane requests are accounted', () => {
  const lines: Array<Record<string, unknown>> = [];
  let gw: TestGateway;
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-good' });
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    gw = await startGateway({ logger: createLogger('info', { destination }) });
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });

  const failureOf = (requestId: string | null) => lines.find((l) => l.msg === 'request failed' && l.requestId === requestId);
  async function rowsOf(traceId: string | null): Promise<LogRow[]> {
    await gw.gateway.deps.logs.flush();
    const res = await gw.fetch(`/v1/logs?trace_id=${traceId}`);
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: LogRow[] }).data;
  }
  async function requestsCounted(endpoint: string, status: number): Promise<number> {
    const text = await (await fetch(`${gw.url}/metrics`)).text();
    let sum = 0;
    for (const line of text.split('\n')) {
      if (line.startsWith('gateway_requests_total{') && line.includes(`endpoint="${endpoint}"`) && line.includes(`status="${status}"`))
        sum += Number(line.split(' ').at(-1));
    }
    return sum;
  }
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    gw.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  it('a body refused by validation: log row with code, message and param; counted; stdout line with message and param', async () => {
    const before = await requestsCounted('chat', 400);
    const res = await post('/v1/chat/completions', { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }], temperature: 7 });
    expect(res.status).toBe(400);
    const answer = ((await res.json()) as { error: { message: string; param: string } }).error;
    expect(answer.param).toBe('body.temperature');
    const rows = await rowsOf(res.headers.get('x-gateway-trace-id'));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      endpoint: 'chat',
      status: 400,
      error: { code: 'invalid_request', message: answer.message, param: 'body.temperature' },
    });
    expect(await requestsCounted('chat', 400)).toBe(before + 1);
    expect(failureOf(res.headers.get('x-gateway-request-id'))).toMatchObject({
      status: 400,
      code: 'invalid_request',
      message: answer.message,
      param: 'body.temperature',
      model: 'gpt-4o',
    });
  });

  it('a bad gateway header, a Messages body and an unknown agent are accounted under their endpoints', async () => {
    const header = await post(
      '/v1/chat/completions',
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] },
      { 'x-gateway-request-timeout': 'soon' },
    );
    expect(header.status).toBe(400);
    expect(await rowsOf(header.headers.get('x-gateway-trace-id'))).toMatchObject([
      { endpoint: 'chat', status: 400, error: { param: 'x-gateway-request-timeout' } },
    ]);
    const messages = await post('/v1/messages', { model: 'claude-x', messages: [] });
    expect(messages.status).toBe(400);
    expect(await rowsOf(messages.headers.get('x-gateway-trace-id'))).toMatchObject([
      { endpoint: 'messages', status: 400, error: { code: 'invalid_request' } },
    ]);
    const agent = await post('/v1/agents/nobody', { jsonrpc: '2.0', id: 1, method: 'message/send', params: {} });
    expect(agent.status).toBe(404);
    expect(await rowsOf(agent.headers.get('x-gateway-trace-id'))).toMatchObject([
      { endpoint: 'agents', status: 404, error: { code: 'not_found', param: 'slug' } },
    ]);
  });

  it('a key without the scope is refused with 403 and logged in its workspace under that key', async () => {
    const rt = gw.gateway.deps.runtime.current;
    const key = await insertKey(gw, {
      organisationId: rt.defaultOrganisationId,
      workspaceId: rt.defaultWorkspaceId,
      type: 'workspace-service',
      scopes: ['agents.invoke'],
    });
    await gw.gateway.deps.runtime.changed();
    const res = await post(
      '/v1/chat/completions',
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] },
      { 'x-gateway-api-key': key },
    );
    expect(res.status).toBe(403);
    const rows = await rowsOf(res.headers.get('x-gateway-trace-id'));
    expect(rows).toMatchObject([{ endpoint: 'chat', status: 403, error: { code: 'forbidden' } }]);
  });

  it('an unauthenticated request is counted and has its stdout line, with no log row (it has no tenant)', async () => {
    const before = await requestsCounted('embeddings', 401);
    const res = await fetch(`${gw.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': 'nope', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'e', input: 'x' }),
    });
    expect(res.status).toBe(401);
    expect(await requestsCounted('embeddings', 401)).toBe(before + 1);
    expect(failureOf(res.headers.get('x-gateway-request-id'))).toMatchObject({
      status: 401,
      code: 'invalid_api_key',
      message: expect.any(String),
    });
    expect(await rowsOf(res.headers.get('x-gateway-trace-id'))).toHaveLength(0);
  });

  it('a provider failure the route accounted for is logged and counted once', async () => {
    const before = await requestsCounted('chat', 401);
    const config = JSON.stringify({ provider: 'openai', api_key: 'sk-bad', custom_host: fake.url });
    const res = await post(
      '/v1/chat/completions',
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] },
      { 'x-gateway-config': config },
    );
    expect(res.status).toBe(401);
    expect(await rowsOf(res.headers.get('x-gateway-trace-id'))).toMatchObject([
      { endpoint: 'chat', status: 401, error: { code: 'provider_authentication_error' } },
    ]);
    expect(await requestsCounted('chat', 401)).toBe(before + 1);
    expect(JSON.stringify(failureOf(res.headers.get('x-gateway-request-id')))).not.toContain('sk-bad');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { callAs, insertKey, createOrganisation, type JsonAnswer } from '../tenancy/tenant-helpers.js';
import { insertRequestLogs, type RequestLogRow } from '../../../src/infra/store/repos/request-logs.js';
import { randomId } from '../../../src/foundation/lib/ids.js';

/**
 * `GET /v1/logs/{id}` (attempts, timings, pricing, bodies with `log_bodies`), the list's filters
 * (`metadata.<key>` included, with injection attempts) and `GET /v1/logs/export` (NDJSON), over HTTP
 * with the openai SDK; the e2e suite runs on SQLite and again on PostgreSQL.
 */
describe('log detail, filters and export', () => {
  let gw: TestGateway;
  let fake: FakeOpenAI;
  let workspaceId: string;
  const admin = (method: string, path: string, body?: unknown) => callAs(gw, gw.adminKey, method, path, body);

  function expectError(r: JsonAnswer, status: number, code: string, param: string): void {
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    expect(r.body.error).toMatchObject({ code, message: expect.any(String), type: expect.any(String) });
    expect(r.body.error.param ?? r.body.error.message).toContain(param);
  }

  /** A fallback config: a first target with a wrong key (401), then the good one. */
  const fallback = () =>
    JSON.stringify({
      strategy: { mode: 'fallback' },
      targets: [
        { provider: 'openai', api_key: 'sk-wrong-key-000000', custom_host: fake.url },
        { provider: 'openai', api_key: 'sk-fake', custom_host: fake.url },
      ],
    });

  async function logOf(trace: string): Promise<string> {
    const list = await admin('GET', `/v1/logs?trace_id=${trace}`);
    expect(list.body.data, JSON.stringify(list.body)).toHaveLength(1);
    return list.body.data[0].id;
  }

  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-fake' });
    gw = await startGateway();
    workspaceId = gw.gateway.deps.runtime.current.defaultWorkspaceId;
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });

  it('the detail shows every attempt of the route, the timings and the pricing; no bodies while log_bodies is off', async () => {
    const trace = `detail-${randomId(6)}`;
    const answer = await gw
      .openai({ 'x-gateway-config': fallback(), 'x-gateway-trace-id': trace, 'x-gateway-metadata': JSON.stringify({ team: 'alpha' }) })
      .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] });
    expect(answer.choices[0]!.message.content).toBeTruthy();
    const id = await logOf(trace);
    const list = await admin('GET', `/v1/logs?trace_id=${trace}`);
    expect(list.body.data[0]).not.toHaveProperty('attempts');
    const detail = await admin('GET', `/v1/logs/${id}`);
    expect(detail.status, JSON.stringify(detail.body)).toBe(200);
    expect(detail.body.attempts).toEqual([
      { target_path: 'config.targets[0]', provider: 'openai', status: 401, latency_ms: expect.any(Number) },
      { target_path: 'config.targets[1]', provider: 'openai', status: 200, latency_ms: expect.any(Number) },
    ]);
    expect(detail.body.target_path).toBe('config.targets[1]');
    expect(detail.body.timings.total_ms).toBe(detail.body.latency_ms);
    expect(detail.body.timings.ttfb_ms).toBeGreaterThanOrEqual(0);
    expect(detail.body.timings.ttfb_ms).toBeLessThanOrEqual(detail.body.timings.total_ms);
    expect(detail.body.pricing).toMatchObject({ cost: detail.body.cost });
    expect(detail.body.request_body).toBeNull();
    expect(detail.body.response_body).toBeNull();
    expect(detail.body.metadata).toMatchObject({ team: 'alpha' });
  });

  it('with log_bodies on, bodies are logged with secrets redacted (JSON and streamed answers); off again, none', async () => {
    expect((await admin('PUT', `/v1/workspaces/${workspaceId}`, { settings: { log_bodies: true } })).status).toBe(200);
    const secret = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123';
    const trace = `bodies-${randomId(6)}`;
    const client = gw.openai({ 'x-gateway-config': fallback(), 'x-gateway-trace-id': trace });
    await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: `my key is ${secret}` }],
      user: 'u-1',
    });
    const detail = (await admin('GET', `/v1/logs/${await logOf(trace)}`)).body;
    expect(detail.request_body.model).toBe('gpt-4o-mini');
    expect(detail.request_body.messages[0].content).toBe('my key is [REDACTED]');
    expect(JSON.stringify(detail)).not.toContain(secret);
    expect(detail.response_body.choices[0].message.content).toBeTruthy();

    const streamTrace = `stream-${randomId(6)}`;
    const stream = await gw
      .openai({ 'x-gateway-config': fallback(), 'x-gateway-trace-id': streamTrace })
      .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'stream please' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    const streamed = (await admin('GET', `/v1/logs/${await logOf(streamTrace)}`)).body;
    expect(streamed.stream).toBe(true);
    expect(streamed.request_body.stream).toBe(true);
    const logged = (streamed.response_body.chunks as Array<{ choices?: Array<{ delta?: { content?: string } }> }>)
      .map((c) => c.choices?.[0]?.delta?.content ?? '')
      .join('');
    expect(logged).toBe(text);

    expect((await admin('PUT', `/v1/workspaces/${workspaceId}`, { settings: { log_bodies: false } })).status).toBe(200);
    const offTrace = `off-${randomId(6)}`;
    await gw
      .openai({ 'x-gateway-config': fallback(), 'x-gateway-trace-id': offTrace })
      .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'quiet' }] });
    expect((await admin('GET', `/v1/logs/${await logOf(offTrace)}`)).body.request_body).toBeNull();
  });

  it('filters on metadata.<key> with bound parameters; injection attempts are 400 or match nothing', async () => {
    const tag = randomId(6);
    for (const team of ['red', 'red', 'blue']) {
      await gw
        .openai({ 'x-gateway-config': fallback(), 'x-gateway-metadata': JSON.stringify({ team, tag }) })
        .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] });
    }
    expect((await admin('GET', `/v1/logs?metadata.tag=${tag}&metadata.team=red`)).body.total).toBe(2);
    expect((await admin('GET', `/v1/logs?metadata.tag=${tag}&metadata.team=blue`)).body.total).toBe(1);
    expect((await admin('GET', `/v1/logs?metadata.tag=${tag}&status_code=200&provider=openai&model=gpt-4o-mini`)).body.total).toBe(3);
    expect((await admin('GET', `/v1/logs?metadata.tag=${encodeURIComponent(`${tag}' or '1'='1`)}`)).body.total).toBe(0);
    expect((await admin('GET', `/v1/logs?metadata.team=${encodeURIComponent("red') or 1=1 --")}`)).body.total).toBe(0);
    expectError(await admin('GET', `/v1/logs?${encodeURIComponent("metadata.team') or 1=1 --")}=x`), 400, 'invalid_request', 'metadata.');
    expectError(await admin('GET', `/v1/logs?${encodeURIComponent('metadata.a"b')}=x`), 400, 'invalid_request', 'metadata.');
    expectError(await admin('GET', '/v1/logs?metadata.=x'), 400, 'invalid_request', 'metadata.');
    expectError(await admin('GET', '/v1/logs?metadatax=1'), 400, 'invalid_request', 'metadatax');
    expectError(await admin('GET', '/v1/logs?cache_status=SOMETIMES'), 400, 'invalid_request', 'cache_status');
    expectError(
      await admin('GET', '/v1/logs?start_time=2026-05-02T00:00:00Z&end_time=2026-05-01T00:00:00Z'),
      400,
      'invalid_request',
      'start_time',
    );
    expectError(await admin('GET', '/v1/logs?page_size=101'), 400, 'invalid_request', 'page_size');
    expectError(await admin('GET', '/v1/logs/export?status_code=99'), 400, 'invalid_request', 'status_code');
    expectError(await admin('GET', '/v1/logs/export?unknown=1'), 400, 'invalid_request', 'unknown');
  });

  it('exports every matching row as NDJSON, newest first, across many keyset pages; visibility and tenancy apply', async () => {
    const store = gw.gateway.deps.store;
    const organisationId = gw.gateway.deps.runtime.current.defaultOrganisationId;
    const trace = `bulk-${randomId(6)}`;
    const base = Date.parse('2026-01-01T00:00:00Z');
    const rows: RequestLogRow[] = Array.from({ length: 1234 }, (_, i) => ({
      id: `log_bulk_${trace}_${String(i).padStart(5, '0')}`,
      organisation_id: organisationId,
      workspace_id: workspaceId,
      api_key_id: null,
      user_id: null,
      trace_id: trace,
      endpoint: 'chat',
      provider: 'openai',
      model: 'gpt-4o-mini',
      // Several rows share a millisecond: the keyset cursor orders by (created_at, id).
      status: i % 10 === 0 ? 500 : 200,
      stream: 0,
      cache_status: 'MISS',
      config_id: null,
      prompt_id: null,
      target_path: 'config',
      retry_count: 0,
      prompt_tokens: 1,
      completion_tokens: 2,
      total_tokens: 3,
      cost: 0.001,
      latency_ms: i,
      metadata: '{}',
      error: null,
      hook_results: null,
      created_at: base + Math.floor(i / 3),
    }));
    await insertRequestLogs(store, rows);
    const res = await gw.fetch(`/v1/logs/export?trace_id=${trace}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = (await res.text())
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1234);
    expect(new Set(lines.map((l) => l.id)).size).toBe(1234);
    expect(lines[0].latency_ms).toBe(1233);
    for (let i = 1; i < lines.length; i++)
      expect(Date.parse(lines[i - 1].created_at)).toBeGreaterThanOrEqual(Date.parse(lines[i].created_at));
    const failed = (await (await gw.fetch(`/v1/logs/export?trace_id=${trace}&status_code=500`)).text()).split('\n').filter(Boolean);
    expect(failed).toHaveLength(124);
    expect((await admin('GET', `/v1/logs?trace_id=${trace}&status_code=500`)).body.total).toBe(124);
    // `status` is an alias of `status_code` on the list, the export and analytics; both at once must agree.
    expect((await admin('GET', `/v1/logs?trace_id=${trace}&status=500`)).body.total).toBe(124);
    expect((await (await gw.fetch(`/v1/logs/export?trace_id=${trace}&status=500`)).text()).split('\n').filter(Boolean)).toHaveLength(124);
    expect((await admin('GET', `/v1/logs?trace_id=${trace}&status=500&status_code=500`)).body.total).toBe(124);
    expectError(await admin('GET', `/v1/logs?trace_id=${trace}&status=500&status_code=200`), 400, 'invalid_request', 'status');
    expectError(await admin('GET', '/v1/logs?status=99'), 400, 'invalid_request', 'status');

    const other = await createOrganisation(gw, `other-${randomId(6).toLowerCase()}`);
    const outsider = await insertKey(gw, {
      organisationId: other.organisationId,
      workspaceId: other.workspaceId,
      type: 'workspace-service',
    });
    const noLogs = await insertKey(gw, { organisationId, workspaceId, type: 'workspace-service', scopes: ['completions.write'] });
    await gw.gateway.deps.runtime.changed();
    const outsiderExport = await gw.fetch(`/v1/logs/export?trace_id=${trace}`, { headers: { 'x-gateway-api-key': outsider } });
    expect(outsiderExport.status).toBe(200);
    expect(await outsiderExport.text()).toBe('');
    expect((await callAs(gw, outsider, 'GET', `/v1/logs/${rows[0]!.id}`)).status).toBe(404);
    expectError(await callAs(gw, outsider, 'GET', `/v1/logs/export?workspace_id=${workspaceId}`), 404, 'not_found', 'workspace');
    expectError(await callAs(gw, noLogs, 'GET', '/v1/logs/export'), 403, 'forbidden', 'logs.read');
  });
});

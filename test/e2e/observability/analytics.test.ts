import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { callAs, insertKey, createOrganisation, type JsonAnswer } from '../tenancy/tenant-helpers.js';
import { insertRequestLogs, type RequestLogRow } from '../../../src/infra/store/repos/request-logs.js';
import { randomId } from '../../../src/foundation/lib/ids.js';

/**
 * Grouped analytics and graphs (control-plane.md §8) over HTTP, on SQLite and again on PostgreSQL:
 * every column computed independently here from the rows written, percentiles within 1% (these
 * whole-day ranges are served from the rollups; analytics-rollups.test.ts compares with the exact
 * path), totals that reconcile with `GET /v1/logs`, strict validation (injection attempts included), permissions, tenancy
 * and the retention bound.
 */
const START = Date.parse('2026-03-02T00:00:00.000Z');
const HOUR = 3_600_000;
const RANGE = `start_time=2026-03-02T00:00:00.000Z&end_time=2026-03-03T00:00:00.000Z`;

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.ceil((p * sorted.length) / 100) - 1]!;
}

/** A percentile served from the rollups (these ranges are whole days): within 1% of the exact one. */
function expectNear(actual: number, exact: number): void {
  expect(Math.abs(actual - exact), `${actual} vs exact ${exact}`).toBeLessThanOrEqual(exact * 0.01);
}

describe('analytics', () => {
  let gw: TestGateway;
  let rows: RequestLogRow[];
  const admin = (path: string) => callAs(gw, gw.adminKey, 'GET', path);

  function expectError(r: JsonAnswer, status: number, code: string, param: string): void {
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    expect(r.body.error).toMatchObject({ code, message: expect.any(String), type: expect.any(String) });
    expect(r.body.error.param ?? r.body.error.message).toContain(param);
  }

  beforeAll(async () => {
    gw = await startGateway();
    const { defaultOrganisationId: organisation_id, defaultWorkspaceId: workspace_id } = gw.gateway.deps.runtime.current;
    const models = ['gpt-4o', 'gpt-4o-mini', 'claude-3-5-sonnet'];
    rows = Array.from({ length: 600 }, (_, i) => ({
      id: `log_an_${String(i).padStart(4, '0')}_${randomId(6)}`,
      organisation_id,
      workspace_id,
      api_key_id: `key-${i % 4}`,
      user_id: null,
      trace_id: `an-${i}`,
      endpoint: i % 5 === 0 ? 'embeddings' : 'chat',
      provider: i % 3 === 2 ? 'anthropic' : 'openai',
      model: models[i % 3]!,
      status: i % 7 === 0 ? 500 : i % 11 === 0 ? 429 : 200,
      stream: 0,
      cache_status: i % 4 === 0 ? 'HIT' : i % 4 === 1 ? 'SEMANTIC HIT' : 'MISS',
      config_id: i % 2 ? 'cfg-a' : null,
      prompt_id: null,
      target_path: 'config',
      retry_count: 0,
      prompt_tokens: i % 13,
      completion_tokens: (i * 7) % 17,
      total_tokens: (i % 13) + ((i * 7) % 17),
      cost: ((i * 37) % 101) / 1000,
      latency_ms: (i * 7919) % 4001,
      metadata: JSON.stringify({ team: i % 2 ? 'red' : 'blue' }),
      error: null,
      hook_results: null,
      created_at: START + ((i * 1013) % (24 * HOUR - 1)),
    }));
    await insertRequestLogs(gw.gateway.deps.store, rows);
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('groups by model with every column, computed exactly (percentiles within 1%); /v1/logs/groups answers the same', async () => {
    const columns =
      'cost,total_tokens,avg_tokens,avg_input_tokens,avg_output_tokens,avg_latency,p95_latency,p99_latency,success_rate,error_count,cache_hit_rate,last_seen,first_seen';
    const r = await admin(`/v1/analytics/groups/model?${RANGE}&columns=${columns}&order_by=requests&order=desc`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.object).toBe('list');
    expect(r.body.total).toBe(3);
    for (const group of r.body.data) {
      const mine = rows.filter((x) => x.model === group.model);
      const latencies = mine.map((x) => x.latency_ms).sort((a, b) => a - b);
      const sum = (f: (x: RequestLogRow) => number) => mine.reduce((a, x) => a + f(x), 0);
      expect(group.requests).toBe(mine.length);
      expect(group.cost).toBeCloseTo(
        sum((x) => x.cost),
        9,
      );
      expect(group.total_tokens).toBe(sum((x) => x.total_tokens));
      expect(group.avg_tokens).toBeCloseTo(sum((x) => x.total_tokens) / mine.length, 6);
      expect(group.avg_input_tokens).toBeCloseTo(sum((x) => x.prompt_tokens) / mine.length, 6);
      expect(group.avg_output_tokens).toBeCloseTo(sum((x) => x.completion_tokens) / mine.length, 6);
      expect(group.avg_latency).toBeCloseTo(sum((x) => x.latency_ms) / mine.length, 6);
      expectNear(group.p95_latency, percentile(latencies, 95));
      expectNear(group.p99_latency, percentile(latencies, 99));
      expect(group.error_count).toBe(mine.filter((x) => x.status >= 400).length);
      expect(group.success_rate).toBeCloseTo(mine.filter((x) => x.status < 400).length / mine.length, 9);
      expect(group.cache_hit_rate).toBeCloseTo(
        mine.filter((x) => x.cache_status === 'HIT' || x.cache_status === 'SEMANTIC HIT').length / mine.length,
        9,
      );
      expect(group.first_seen).toBe(new Date(Math.min(...mine.map((x) => x.created_at))).toISOString());
      expect(group.last_seen).toBe(new Date(Math.max(...mine.map((x) => x.created_at))).toISOString());
    }
    const twin = await admin(`/v1/logs/groups/model?${RANGE}&columns=${columns}&order_by=requests&order=desc`);
    expect(twin.body).toEqual(r.body);
    const plain = await admin(`/v1/analytics/groups/model?${RANGE}`);
    expect(Object.keys(plain.body.data[0]).sort()).toEqual(['model', 'requests']);
  });

  it('totals reconcile with /v1/logs under the same filters; every groupBy; order_by and paging', async () => {
    for (const filter of ['', '&status_code=500', '&provider=anthropic', '&metadata.team=red', '&cache_status=HIT&api_key_id=key-0']) {
      const logs = await admin(`/v1/logs?${RANGE}${filter}&page_size=1`);
      for (const groupBy of ['ai_service', 'model', 'status_code', 'api_key', 'config', 'workspace', 'provider', 'prompt']) {
        const g = await admin(`/v1/analytics/groups/${groupBy}?${RANGE}${filter}&columns=cost&page_size=100`);
        expect(g.status, JSON.stringify(g.body)).toBe(200);
        expect(g.body.data.reduce((a: number, x: { requests: number }) => a + x.requests, 0)).toBe(logs.body.total);
      }
    }
    const statuses = await admin(`/v1/analytics/groups/status_code?${RANGE}`);
    expect(statuses.body.data.map((x: { status_code: number }) => x.status_code).sort()).toEqual([200, 429, 500]);
    const configs = await admin(`/v1/analytics/groups/config?${RANGE}`);
    expect(configs.body.data.map((x: { config: string | null }) => x.config).sort()).toEqual(['cfg-a', null]);
    const byP99 = await admin(`/v1/analytics/groups/api_key?${RANGE}&columns=p99_latency&order_by=p99_latency&order=asc`);
    const p99s = byP99.body.data.map((x: { p99_latency: number }) => x.p99_latency);
    expect(p99s).toEqual([...p99s].sort((a, b) => a - b));
    const second = await admin(
      `/v1/analytics/groups/api_key?${RANGE}&columns=p99_latency&order_by=p99_latency&order=asc&page_size=1&current_page=1`,
    );
    expect(second.body.total).toBe(4);
    expect(second.body.data).toEqual([byP99.body.data[1]]);
  });

  it('graphs: buckets over the range, filled with zeros, adding up to the summary; latency percentiles per point', async () => {
    const r = await admin(`/v1/analytics/graphs/requests?${RANGE}&interval=hour`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ object: 'analytics-graph', metric: 'requests', interval: 'hour' });
    expect(r.body.data_points).toHaveLength(24);
    expect(r.body.data_points[0].timestamp).toBe('2026-03-02T00:00:00.000Z');
    for (let h = 0; h < 24; h++)
      expect(r.body.data_points[h].value).toBe(rows.filter((x) => Math.floor((x.created_at - START) / HOUR) === h).length);
    expect(r.body.summary.total).toBe(600);
    const latency = await admin(`/v1/analytics/graphs/latency?${RANGE}&interval=hour&model=gpt-4o`);
    const first = rows
      .filter((x) => x.model === 'gpt-4o' && x.created_at < START + HOUR)
      .map((x) => x.latency_ms)
      .sort((a, b) => a - b);
    for (const p of [50, 95, 99] as const) expectNear(latency.body.data_points[0][`p${p}`], percentile(first, p));
    const all = rows
      .filter((x) => x.model === 'gpt-4o')
      .map((x) => x.latency_ms)
      .sort((a, b) => a - b);
    for (const p of [50, 95, 99] as const) expectNear(latency.body.summary[`p${p}`], percentile(all, p));
    expect(latency.body.summary.requests).toBe(200);
    const errors = await admin(`/v1/analytics/graphs/errors?${RANGE}`);
    expect(errors.body.interval).toBe('hour');
    expect(errors.body.summary.total).toBe(rows.filter((x) => x.status >= 400).length);
    const cost = await admin(`/v1/analytics/graphs/cost?${RANGE}&interval=day`);
    expect(cost.body.data_points).toHaveLength(1);
    expect(cost.body.data_points[0].value).toBeCloseTo(
      rows.reduce((a, x) => a + x.cost, 0),
      9,
    );
    const hits = await admin(`/v1/analytics/graphs/cache_hit_rate?${RANGE}&interval=day`);
    expect(hits.body.summary.rate).toBeCloseTo(0.5, 9);
    const tokens = await admin(`/v1/analytics/graphs/tokens?${RANGE}&interval=day`);
    expect(tokens.body.summary.total).toBe(rows.reduce((a, x) => a + x.total_tokens, 0));
    const empty = await admin('/v1/analytics/graphs/requests?start_time=2026-01-01T00:00:00Z&end_time=2026-01-01T00:05:00Z');
    expect(empty.body.interval).toBe('minute');
    expect(empty.body.data_points.map((p: { value: number }) => p.value)).toEqual([0, 0, 0, 0, 0]);
  });

  it('bad input is 400 naming the parameter; SQL in order_by, columns and metadata keys goes nowhere', async () => {
    expectError(await admin(`/v1/analytics/groups/colour?${RANGE}`), 400, 'invalid_request', 'groupBy');
    expectError(await admin(`/v1/analytics/groups/model?columns=cost,colour`), 400, 'invalid_request', 'columns');
    expectError(
      await admin(`/v1/analytics/groups/model?columns=${encodeURIComponent('cost) from request_logs; --')}`),
      400,
      'invalid_request',
      'columns',
    );
    expectError(
      await admin(`/v1/analytics/groups/model?order_by=${encodeURIComponent('cost; drop table request_logs')}`),
      400,
      'invalid_request',
      'order_by',
    );
    expectError(await admin(`/v1/analytics/groups/model?order_by=${encodeURIComponent('(select 1)')}`), 400, 'invalid_request', 'order_by');
    expectError(await admin('/v1/analytics/groups/model?order=sideways'), 400, 'invalid_request', 'order');
    expectError(
      await admin('/v1/analytics/groups/model?start_time=2026-03-03T00:00:00Z&end_time=2026-03-02T00:00:00Z'),
      400,
      'invalid_request',
      'start_time',
    );
    expectError(await admin('/v1/analytics/groups/model?start_time=yesterday'), 400, 'invalid_request', 'start_time');
    expectError(await admin('/v1/analytics/groups/model?page_size=0'), 400, 'invalid_request', 'page_size');
    expectError(await admin('/v1/analytics/groups/model?page_size=101'), 400, 'invalid_request', 'page_size');
    expectError(await admin('/v1/analytics/groups/model?colour=red'), 400, 'invalid_request', 'colour');
    expectError(
      await admin(`/v1/analytics/groups/model?${encodeURIComponent("metadata.team' or 1=1 --")}=x`),
      400,
      'invalid_request',
      'metadata.',
    );
    expectError(await admin('/v1/analytics/graphs/happiness'), 400, 'invalid_request', 'metric');
    expectError(
      await admin('/v1/analytics/graphs/requests?start_time=2026-01-01T00:00:00Z&end_time=2026-03-01T00:00:00Z&interval=minute'),
      400,
      'invalid_request',
      'interval',
    );
    expectError(await admin('/v1/analytics/graphs/requests?interval=fortnight'), 400, 'invalid_request', 'interval');
    const injected = await admin(`/v1/analytics/groups/model?${RANGE}&metadata.team=${encodeURIComponent("red' or '1'='1")}`);
    expect(injected.body).toEqual({ object: 'list', total: 0, data: [] });
    expect((await admin(`/v1/logs?${RANGE}&page_size=1`)).body.total).toBe(600);
  });

  it('permissions and tenancy: analytics.read for /v1/analytics, logs.read for /v1/logs/groups; another tenant sees nothing of ours', async () => {
    const { defaultOrganisationId: organisationId, defaultWorkspaceId: workspaceId } = gw.gateway.deps.runtime.current;
    const logsOnly = await insertKey(gw, { organisationId, workspaceId, type: 'workspace-service', scopes: ['logs.read'] });
    const analyticsOnly = await insertKey(gw, { organisationId, workspaceId, type: 'workspace-service', scopes: ['analytics.read'] });
    await gw.gateway.deps.runtime.changed();
    const outsider = (await createOrganisation(gw, `an-${randomId(6).toLowerCase()}`)).adminKey;
    expectError(await callAs(gw, logsOnly, 'GET', `/v1/analytics/groups/model?${RANGE}`), 403, 'forbidden', 'analytics.read');
    expect((await callAs(gw, logsOnly, 'GET', `/v1/logs/groups/model?${RANGE}`)).body.total).toBe(3);
    expect((await callAs(gw, analyticsOnly, 'GET', `/v1/analytics/graphs/requests?${RANGE}`)).body.summary.total).toBe(600);
    expectError(await callAs(gw, analyticsOnly, 'GET', `/v1/logs/groups/model?${RANGE}`), 403, 'forbidden', 'logs.read');
    expect((await callAs(gw, outsider, 'GET', `/v1/analytics/groups/model?${RANGE}`)).body).toEqual({ object: 'list', total: 0, data: [] });
    expect((await callAs(gw, outsider, 'GET', `/v1/analytics/graphs/requests?${RANGE}`)).body.summary.total).toBe(0);
    expectError(await callAs(gw, outsider, 'GET', `/v1/analytics/groups/model?workspace_id=${workspaceId}`), 404, 'not_found', 'workspace');
  });
});

describe('analytics and logs within the retention', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ env: { GATEWAY_LOG_RETENTION_DAYS: '30' } });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('a start_time older than GATEWAY_LOG_RETENTION_DAYS is 400 naming start_time; the retention job deletes the older rows', async () => {
    const old = new Date(Date.now() - 31 * 86_400_000).toISOString();
    for (const path of ['/v1/logs', '/v1/logs/export', '/v1/analytics/groups/model', '/v1/analytics/graphs/requests']) {
      const r = await callAs(gw, gw.adminKey, 'GET', `${path}?start_time=${old}`);
      expect(r.status, path).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'invalid_request', param: 'start_time' });
    }
    const { defaultOrganisationId: organisation_id, defaultWorkspaceId: workspace_id } = gw.gateway.deps.runtime.current;
    const row = (id: string, created_at: number): RequestLogRow => ({
      id,
      organisation_id,
      workspace_id,
      api_key_id: null,
      user_id: null,
      trace_id: 'ret',
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
      created_at,
    });
    await insertRequestLogs(gw.gateway.deps.store, [
      row('log_ret_old', Date.now() - 40 * 86_400_000),
      row('log_ret_new', Date.now() - 86_400_000),
    ]);
    await gw.gateway.scheduler.runAll();
    const left = await gw.gateway.deps.store.db.selectFrom('request_logs').select('id').where('trace_id', '=', 'ret').execute();
    expect(left.map((r) => r.id)).toEqual(['log_ret_new']);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { callAs } from '../tenancy/tenant-helpers.js';
import { insertRequestLogs, type RequestLogRow } from '../../../src/infra/store/repos/request-logs.js';
import {
  graphRequestLogs,
  groupRequestLogs,
  type AnalyticsColumn,
  type GroupBy,
} from '../../../src/infra/store/repos/request-log-analytics.js';
import { FULL_VISIBILITY } from '../../../src/kernel/data-visibility.js';
import type { TenantScope } from '../../../src/kernel/tenant-scope.js';
import { randomId } from '../../../src/foundation/lib/ids.js';

/**
 * Analytics served from the rollups (docs/observability.md#rollups) against the exact path over the
 * same rows, over HTTP, on SQLite and again on PostgreSQL: a range with whole days, hours, minutes and
 * partial minutes at both ends; counts and sums equal, percentiles within 1%; queries the rollups
 * cannot answer still exact; own-rows visibility on the rollup path; and proof that the answer came
 * from the rollups.
 */
const T = Date.parse('2026-03-02T00:00:00.000Z');
const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const START = T + 7 * MIN + 13_250;
const END = T + 2 * DAY + 5 * HOUR + 3 * MIN + 500;
const range = (start = START, end = END) => `start_time=${new Date(start).toISOString()}&end_time=${new Date(end).toISOString()}`;
const COLUMNS: AnalyticsColumn[] = [
  'cost',
  'total_tokens',
  'avg_tokens',
  'avg_input_tokens',
  'avg_output_tokens',
  'avg_latency',
  'p95_latency',
  'p99_latency',
  'success_rate',
  'error_count',
  'cache_hit_rate',
  'last_seen',
  'first_seen',
];

function expectNear(actual: number | null, exact: number | null, what: string): void {
  expect(actual === null, what).toBe(exact === null);
  if (exact !== null) expect(Math.abs(actual! - exact), `${what}: ${actual} vs exact ${exact}`).toBeLessThanOrEqual(exact * 0.01);
}

describe('analytics from the rollups', () => {
  let gw: TestGateway;
  let scope: TenantScope;
  let member: { key: string; keyId: string; userId: string };
  let rows: RequestLogRow[];
  const admin = (method: string, path: string, body?: unknown) => callAs(gw, gw.adminKey, method, path, body);

  beforeAll(async () => {
    gw = await startGateway();
    const { defaultOrganisationId: organisation_id, defaultWorkspaceId } = gw.gateway.deps.runtime.current;
    const team = (
      await admin('POST', '/v1/workspaces', {
        name: 'Rollups',
        slug: `rollups-${randomId(4).toLowerCase()}`,
        settings: { membersViewAllData: false },
      })
    ).body.id as string;
    const user = await admin('POST', '/v1/users', {
      email: `m-${randomId(6)}@example.com`,
      role: 'member',
      workspaces: [{ id: team, role: 'member' }],
    });
    const key = await admin('POST', '/v1/api-keys', {
      name: 'member',
      type: 'workspace-user',
      workspace_id: team,
      user_id: user.body.id,
      scopes: ['*'],
    });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    member = { key: key.body.key, keyId: key.body.id, userId: user.body.id };
    scope = { organisationId: organisation_id, workspaceIds: [defaultWorkspaceId, team], organisationWide: true };
    const models = ['gpt-4o', 'gpt-4o-mini', 'claude-3-5-sonnet', 'text-embedding-3-small'];
    const n = 3000;
    rows = Array.from({ length: n }, (_, i) => {
      const mine = i % 6 === 0;
      return {
        id: `log_ro_${String(i).padStart(5, '0')}_${randomId(6)}`,
        organisation_id,
        workspace_id: mine || i % 6 === 1 ? team : defaultWorkspaceId,
        api_key_id: mine ? member.keyId : `key-${i % 5}`,
        user_id: mine ? member.userId : null,
        trace_id: `ro-${i}`,
        endpoint: i % 4 === 3 ? 'embeddings' : 'chat',
        provider: i % 4 === 2 ? 'anthropic' : 'openai',
        model: models[i % 4]!,
        status: i % 13 === 0 ? 500 : i % 17 === 0 ? 429 : 200,
        stream: 0,
        cache_status: i % 5 === 0 ? 'HIT' : i % 5 === 1 ? null : 'MISS',
        config_id: i % 3 ? 'cfg-a' : null,
        prompt_id: i % 7 ? null : 'prm-1',
        target_path: null,
        retry_count: 0,
        prompt_tokens: i % 29,
        completion_tokens: (i * 3) % 31,
        total_tokens: (i % 29) + ((i * 3) % 31),
        cost: ((i * 37) % 101) / 10_000,
        latency_ms: Math.round(20 + Math.exp(((i * 7919) % 1000) / 125)),
        metadata: '{}',
        error: null,
        hook_results: null,
        // Spread over [T, T + 3 days), thicker near the range's edges.
        created_at:
          i % 10 === 0
            ? START - 40_000 + ((i * 997) % 120_000)
            : i % 10 === 1
              ? END - 60_000 + ((i * 991) % 120_000)
              : T + ((i * 104_729) % (3 * DAY)),
      };
    });
    for (let i = 0; i < n; i += 500) await insertRequestLogs(gw.gateway.deps.store, rows.slice(i, i + 500));
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('grouped: every groupBy with every column matches the exact path (counts and sums equal, p95/p99 within 1%); totals reconcile with /v1/logs', async () => {
    const logs = await admin('GET', `/v1/logs?${range()}&page_size=1`);
    const inRange = rows.filter((r) => r.created_at >= START && r.created_at < END).length;
    expect(logs.body.total).toBe(inRange);
    for (const groupBy of ['model', 'api_key', 'workspace', 'status_code', 'provider', 'ai_service', 'config', 'prompt'] as GroupBy[]) {
      const r = await admin('GET', `/v1/analytics/groups/${groupBy}?${range()}&columns=${COLUMNS.join(',')}&page_size=100`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const exact = await groupRequestLogs(
        gw.gateway.deps.store.db,
        scope,
        { userId: null, visibility: FULL_VISIBILITY },
        { startTime: START, endTime: END },
        { groupBy, columns: COLUMNS, orderBy: 'requests', order: 'desc', limit: 100, offset: 0 },
      );
      expect(r.body.total).toBe(exact.total);
      expect(r.body.data.reduce((a: number, g: { requests: number }) => a + g.requests, 0)).toBe(inRange);
      for (const e of exact.rows) {
        const g = r.body.data.find((x: Record<string, unknown>) => x[groupBy] === e.group);
        expect(g, `${groupBy} ${e.group}`).toBeDefined();
        expect(g.requests).toBe(e.requests);
        expect(g.error_count).toBe(e.error_count);
        expect(g.total_tokens).toBe(e.total_tokens);
        for (const c of [
          'cost',
          'avg_tokens',
          'avg_input_tokens',
          'avg_output_tokens',
          'avg_latency',
          'success_rate',
          'cache_hit_rate',
        ] as const)
          expect(g[c], `${groupBy} ${c}`).toBeCloseTo(e[c]!, 6);
        expect(g.first_seen).toBe(new Date(e.first_seen!).toISOString());
        expect(g.last_seen).toBe(new Date(e.last_seen!).toISOString());
        expectNear(g.p95_latency, e.p95_latency!, `${groupBy} ${e.group} p95`);
        expectNear(g.p99_latency, e.p99_latency!, `${groupBy} ${e.group} p99`);
      }
    }
    const filtered = await admin('GET', `/v1/analytics/groups/model?${range()}&model=gpt-4o&columns=p99_latency,cost`);
    const exactFiltered = rows.filter((r) => r.created_at >= START && r.created_at < END && r.model === 'gpt-4o');
    expect(filtered.body.data).toHaveLength(1);
    expect(filtered.body.data[0].requests).toBe(exactFiltered.length);
    const byP99 = await admin('GET', `/v1/analytics/groups/api_key?${range()}&columns=p99_latency&order_by=p99_latency&order=asc`);
    const p99s = byP99.body.data.map((x: { p99_latency: number }) => x.p99_latency);
    expect(p99s).toEqual([...p99s].sort((a, b) => a - b));
  });

  it('queries the rollups cannot answer are exact: percentiles under conditions on two dimensions, metadata filters', async () => {
    const q = `${range()}&provider=openai&columns=p95_latency,p99_latency`;
    const r = await admin('GET', `/v1/analytics/groups/model?${q}`);
    const exact = await groupRequestLogs(
      gw.gateway.deps.store.db,
      scope,
      { userId: null, visibility: FULL_VISIBILITY },
      { startTime: START, endTime: END, provider: 'openai' },
      { groupBy: 'model', columns: ['p95_latency', 'p99_latency'], orderBy: 'requests', order: 'desc', limit: 50, offset: 0 },
    );
    expect(r.body.data).toEqual(exact.rows.map(({ group, ...v }) => ({ model: group, ...v })));
  });

  it('graphs: points of whole buckets and a partial last one match the exact path; latency percentiles within 1%', async () => {
    const start = T + HOUR;
    for (const [interval, step] of [
      ['hour', HOUR],
      ['day', DAY],
      ['minute', MIN],
    ] as const) {
      const end = interval === 'minute' ? start + 3 * HOUR + 30_000 : END;
      const requests = await admin('GET', `/v1/analytics/graphs/requests?${range(start, end)}&interval=${interval}`);
      expect(requests.status, JSON.stringify(requests.body)).toBe(200);
      const exact = await graphRequestLogs(
        gw.gateway.deps.store.db,
        scope,
        { userId: null, visibility: FULL_VISIBILITY },
        { startTime: start, endTime: end },
        'requests',
        step,
      );
      const byTime = new Map(exact.points.map((p) => [p.timestamp, p.value]));
      for (const p of requests.body.data_points) expect(p.value, p.timestamp).toBe(byTime.get(Date.parse(p.timestamp)) ?? 0);
      expect(requests.body.summary.total).toBe(exact.summary.requests);
      const latency = await admin('GET', `/v1/analytics/graphs/latency?${range(start, end)}&interval=${interval}&model=gpt-4o-mini`);
      const exactLatency = await graphRequestLogs(
        gw.gateway.deps.store.db,
        scope,
        { userId: null, visibility: FULL_VISIBILITY },
        { startTime: start, endTime: end, model: 'gpt-4o-mini' },
        'latency',
        step,
      );
      const points = new Map(exactLatency.points.map((p) => [p.timestamp, p]));
      for (const p of latency.body.data_points) {
        const e = points.get(Date.parse(p.timestamp));
        expectNear(p.value, e?.value ?? null, `${interval} ${p.timestamp} avg`);
        for (const k of ['p50', 'p95', 'p99'] as const) expectNear(p[k], e?.[k] ?? null, `${interval} ${p.timestamp} ${k}`);
      }
      for (const k of ['p50', 'p95', 'p99'] as const)
        expectNear(latency.body.summary[k], exactLatency.summary[k], `${interval} summary ${k}`);
      expect(latency.body.summary.requests).toBe(exactLatency.summary.requests);
    }
    const cost = await admin('GET', `/v1/analytics/graphs/cost?${range(T, T + 3 * DAY)}&interval=day`);
    expect(cost.body.summary.total).toBeCloseTo(
      rows.reduce((a, r) => a + r.cost, 0),
      9,
    );
  });

  it('own-rows visibility holds on the rollup path: a member who may not see all data counts only their rows', async () => {
    const mine = rows.filter((r) => r.user_id === member.userId && r.created_at >= START && r.created_at < END);
    const groups = await callAs(gw, member.key, 'GET', `/v1/analytics/groups/model?${range()}&columns=cost,avg_latency`);
    expect(groups.status, JSON.stringify(groups.body)).toBe(200);
    expect(groups.body.data.reduce((a: number, g: { requests: number }) => a + g.requests, 0)).toBe(mine.length);
    const withPercentiles = await callAs(gw, member.key, 'GET', `/v1/analytics/groups/model?${range()}&columns=p99_latency`);
    expect(withPercentiles.body.data.reduce((a: number, g: { requests: number }) => a + g.requests, 0)).toBe(mine.length);
    const graph = await callAs(gw, member.key, 'GET', `/v1/analytics/graphs/errors?${range(T + HOUR, END)}&interval=hour`);
    expect(graph.body.summary).toMatchObject({
      requests: mine.filter((r) => r.created_at >= T + HOUR).length,
      total: mine.filter((r) => r.created_at >= T + HOUR && r.status >= 400).length,
    });
    const all = await admin('GET', `/v1/analytics/groups/model?${range()}&columns=cost`);
    expect(all.body.data.reduce((a: number, g: { requests: number }) => a + g.requests, 0)).toBeGreaterThan(mine.length);
  });

  it('the answer comes from the rollups: rows removed behind their back still count where whole buckets cover them', async () => {
    const day = { from: T + DAY, to: T + 2 * DAY };
    const before = await admin('GET', `/v1/analytics/groups/workspace?${range()}&columns=p99_latency,cost`);
    await gw.gateway.deps.store.db
      .deleteFrom('request_logs')
      .where('created_at', '>=', day.from)
      .where('created_at', '<', day.to)
      .execute();
    const after = await admin('GET', `/v1/analytics/groups/workspace?${range()}&columns=p99_latency,cost`);
    expect(after.body).toEqual(before.body);
    const raw = await admin('GET', `/v1/logs?${range()}&page_size=1`);
    expect(raw.body.total).toBeLessThan(before.body.data.reduce((a: number, g: { requests: number }) => a + g.requests, 0));
  });
});

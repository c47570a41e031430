#!/usr/bin/env node
/**
 * Analytics at scale: generates request-log rows (10 million in PostgreSQL, in a schema of their own;
 * 1 million in SQLite, in a temporary file) spread over the last 7 days, builds their rollups with the
 * gateway's own backfill (`backfillRollups`, the job that adds rows written without rollups), then
 * measures through the gateway's HTTP API, sequentially: a 7-day grouped query with p95/p99 by model
 * and by api key, and 7-day graphs of latency and requests (hour points). Cleans up after itself.
 *
 *   npm run bench:analytics              # build, then both stores
 *   node bench/analytics.mjs [--sqlite-only | --postgres-only]
 *
 * Settings (environment): BENCH_ANALYTICS_PG_ROWS (10000000), BENCH_ANALYTICS_SQLITE_ROWS (1000000),
 * BENCH_ANALYTICS_RUNS (20 measured requests per query, after 3 unmeasured), BENCH_DATABASE_URL.
 * Method: bench/README.md. Output: Markdown on stdout and in bench/results/analytics-latest.md.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';
import { execSync } from 'node:child_process';
import pg from 'pg';
import { sql } from 'kysely';
import { percentile } from './lib/stats.mjs';

const BENCH = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(BENCH);
const env = process.env;
const num = (name, dflt) => (env[name] ? Number(env[name]) : dflt);
const PG_ROWS = num('BENCH_ANALYTICS_PG_ROWS', 10_000_000);
const SQLITE_ROWS = num('BENCH_ANALYTICS_SQLITE_ROWS', 1_000_000);
const RUNS = num('BENCH_ANALYTICS_RUNS', 20);
const WARMUP = 3;
const PG_URL = env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SPAN_MS = 7 * 86_400_000;
const BACKFILL_BATCH = 20_000;
const argv = process.argv.slice(2);

const dist = (p) => import(pathToFileURL(join(ROOT, 'dist', p)).href);
const { createGateway } = await dist('server/create-gateway.js');
const { readSettings } = await dist('data-plane/pipeline/settings.js');
const { createLogger } = await dist('infra/observability/logger.js');
const { backfillRollups } = await dist('infra/store/repos/request-log-rollups.js');

const MODELS = [
  'gpt-4o',
  'gpt-4o-mini',
  'claude-3-5-sonnet',
  'claude-3-5-haiku',
  'gemini-1.5-pro',
  'gemini-1.5-flash',
  'mistral-large',
  'text-embedding-3-small',
];
const PROVIDERS = ['openai', 'openai', 'anthropic', 'anthropic', 'google', 'google', 'mistral', 'openai'];
const KEYS = 40;

/**
 * The generated rows, as one INSERT … SELECT over the integers `g` from `from` to `to` (`series`
 * yields them). 40 keys in 4 workspaces (the first 16 belong to users); each key calls 2 of 8 models;
 * 96% 200, the rest 429 (2/5), 500 (2/5) and 400; cache MISS 75%, HIT 15%, off 10%; 5% with a prompt; latency
 * log-normal (median ≈ 400 ms); rows evenly spread over the 7 days before `now`.
 */
function generateSql({ pgsql, organisation, workspaces, now, rows, series }) {
  const pick = (list, index) =>
    pgsql
      ? `(array[${list.map((x) => `'${x}'`).join(',')}])[(${index}) + 1]`
      : `json_extract('${JSON.stringify(list)}', '$[' || (${index}) || ']')`;
  const u = pgsql ? 'random()' : '((abs(random()) % 1000000) + 1) / 1000001.0';
  const k = `(g * 7919 % ${KEYS})`;
  const m = `((${k} + (g % 2) * 3) % 8)`;
  const ws = pick(workspaces, `${k} % 4`);
  const status = `(case when ${u} < 0.96 then 200 else (case (g % 5) when 0 then 400 when 1 then 429 when 2 then 429 else 500 end) end)`;
  const latency = `cast(${pgsql ? 'least' : 'min'}(600000, round(exp(6 + 0.9 * sqrt(-2 * ln(${u})) * cos(2 * pi() * ${u})))) as integer)`;
  const created = `(${now - SPAN_MS} + cast((g - 1) as bigint) * ${SPAN_MS} / ${rows})`;
  return `insert into request_logs (id, organisation_id, workspace_id, api_key_id, user_id, trace_id, endpoint, provider, model, status, stream, cache_status, config_id, prompt_id,
      target_path, retry_count, prompt_tokens, completion_tokens, total_tokens, cost, latency_ms, metadata, error, hook_results, created_at)
    select 'log_bench_' || g, '${organisation}', ${ws}, 'key-' || ${k}, case when ${k} < 16 then 'user-' || ${k} else null end, 'tr' || g,
      case when ${m} = 7 then 'embeddings' else 'chat' end, ${pick(PROVIDERS, m)}, ${pick(MODELS, m)}, ${status}, 0,
      case when g % 20 < 15 then 'MISS' when g % 20 < 18 then 'HIT' else null end, case when ${k} % 3 = 0 then null else 'cfg-' || (${k} % 4) end,
      case when g % 20 = 7 then 'prm-' || (${k} % 4) else null end, 'config', 0, 50 + g * 13 % 2000, g * 7 % 800, 50 + g * 13 % 2000 + g * 7 % 800,
      (50 + g * 13 % 2000 + g * 7 % 800) * 0.000002, ${latency}, '{}', null, null, ${created}
    from ${series}`;
}

async function startOn(store) {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-bench-analytics-'));
  const adminKey = 'bench-admin-' + randomBytes(12).toString('hex');
  const schema = store === 'postgres' ? `bench_analytics_${randomBytes(4).toString('hex')}` : undefined;
  const settings = readSettings({
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_ADMIN_KEY: adminKey,
    PORT: '0',
    LOG_LEVEL: 'silent',
    GATEWAY_SCHEDULER_INTERVAL_MS: '3600000',
    ...(schema ? { DATABASE_URL: PG_URL, DATABASE_SCHEMA: schema, GATEWAY_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64') } : {}),
  });
  const gateway = await createGateway(settings, { logger: createLogger('silent') });
  await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${gateway.app.server.address().port}`;
  const call = async (method, path, body) => {
    const init = {
      method,
      headers: { 'x-gateway-api-key': adminKey, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    };
    // A kept-alive connection the server closed while the rows were generated resets once: retry on a new one.
    const r = await fetch(url + path, init).catch(() => fetch(url + path, init));
    const json = await r.json();
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
    return json;
  };
  const { defaultOrganisationId, defaultWorkspaceId } = gateway.deps.runtime.current;
  const workspaces = [defaultWorkspaceId];
  for (let i = 1; i < 4; i++) workspaces.push((await call('POST', '/v1/workspaces', { name: `Bench ${i}`, slug: `bench-${i}` })).id);
  return {
    gateway,
    url,
    call,
    schema,
    workspaces,
    organisation: defaultOrganisationId,
    async close() {
      await gateway.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (schema) {
        const c = new pg.Client({ connectionString: PG_URL });
        await c.connect();
        await c.query(`drop schema if exists ${schema} cascade`);
        await c.end();
      }
    },
  };
}

const seconds = (t0) => ((performance.now() - t0) / 1000).toFixed(1);

async function build(gw, store, rows, now) {
  const t0 = performance.now();
  if (store === 'postgres') {
    const c = new pg.Client({ connectionString: PG_URL, options: `-c search_path=${gw.schema}` });
    await c.connect();
    const chunk = 1_000_000;
    for (let from = 1; from <= rows; from += chunk) {
      const to = Math.min(rows, from + chunk - 1);
      await c.query(
        generateSql({
          pgsql: true,
          organisation: gw.organisation,
          workspaces: gw.workspaces,
          now,
          rows,
          series: `generate_series(${from}::bigint, ${to}::bigint) as s(g)`,
        }),
      );
      process.stderr.write(`  generated ${to.toLocaleString('en')} rows (${seconds(t0)} s)\n`);
    }
    await c.query('analyze request_logs');
    await c.end();
  } else {
    gw.gateway.deps.store.sqlite.exec(
      generateSql({
        pgsql: false,
        organisation: gw.organisation,
        workspaces: gw.workspaces,
        now,
        rows,
        series: `(with recursive s(g) as (select 1 union all select g + 1 from s where g < ${rows}) select g from s)`,
      }),
    );
  }
  const generated = seconds(t0);
  const t1 = performance.now();
  let added = 0;
  for (let n = BACKFILL_BATCH; n === BACKFILL_BATCH;) {
    n = await backfillRollups(gw.gateway.deps.store, BACKFILL_BATCH);
    added += n;
    if (added % 1_000_000 < BACKFILL_BATCH && n > 0)
      process.stderr.write(`  rolled up ${added.toLocaleString('en')} rows (${seconds(t1)} s)\n`);
  }
  if (added !== rows) throw new Error(`backfill added ${added} rows of ${rows}`);
  const db = gw.gateway.deps.store.db;
  if (store === 'postgres') for (const t of ['request_log_rollups', 'request_log_latency']) await sql`analyze ${sql.table(t)}`.execute(db);
  else gw.gateway.deps.store.sqlite.exec('analyze');
  const sizes = {};
  for (const t of ['request_log_rollups', 'request_log_latency']) {
    const r = await db
      .selectFrom(t)
      .select(['bucket_ms', db.fn.countAll().as('n')])
      .groupBy('bucket_ms')
      .orderBy('bucket_ms')
      .execute();
    sizes[t] = r
      .map((x) => `${{ 60000: 'minute', 3600000: 'hour', 86400000: 'day' }[x.bucket_ms]} ${Number(x.n).toLocaleString('en')}`)
      .join(', ');
  }
  return { generated, backfill: seconds(t1), sizes };
}

async function measure(gw, now) {
  const start = new Date(now - SPAN_MS - ((now - SPAN_MS) % 3_600_000)).toISOString();
  const queries = [
    ['grouped by model, 7 days, p95/p99', '/v1/analytics/groups/model?columns=p95_latency,p99_latency,cost,avg_latency,error_count'],
    [
      'grouped by api_key, 7 days, p95/p99',
      '/v1/analytics/groups/api_key?columns=p95_latency,p99_latency,cost,avg_latency,error_count&page_size=100',
    ],
    ['graph latency, 7 days, hourly (p50/p95/p99)', `/v1/analytics/graphs/latency?start_time=${start}&interval=hour`],
    ['graph requests, 7 days, hourly', `/v1/analytics/graphs/requests?start_time=${start}&interval=hour`],
  ];
  const out = [];
  for (const [name, path] of queries) {
    const times = [];
    let answer;
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const t0 = performance.now();
      answer = await gw.call('GET', path);
      if (i >= WARMUP) times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const requests = answer.data ? answer.data.reduce((a, g) => a + g.requests, 0) : (answer.summary.total ?? answer.summary.requests);
    out.push({ name, p50: percentile(times, 50), p95: percentile(times, 95), requests });
  }
  return out;
}

async function run(store, rows) {
  process.stderr.write(`${store}: ${rows.toLocaleString('en')} rows\n`);
  const gw = await startOn(store);
  try {
    const now = Date.now();
    const built = await build(gw, store, rows, now);
    const results = await measure(gw, Date.now());
    return { store, rows, ...built, results };
  } finally {
    await gw.close();
  }
}

const runs = [];
if (!argv.includes('--postgres-only')) runs.push(await run('sqlite', SQLITE_ROWS));
if (!argv.includes('--sqlite-only')) runs.push(await run('postgres', PG_ROWS));

const commit = (() => {
  try {
    return execSync('git rev-parse --short HEAD', { cwd: ROOT }).toString().trim();
  } catch {
    return 'unknown';
  }
})();
const lines = [
  `# Analytics benchmark`,
  '',
  `${new Date().toISOString()} · commit ${commit} · ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'} · ${(totalmem() / 2 ** 30).toFixed(1)} GiB · Node ${process.version}`,
  '',
];
for (const r of runs) {
  lines.push(
    `## ${r.store}: ${r.rows.toLocaleString('en')} rows over 7 days`,
    '',
    `Generated in ${r.generated} s; rollups built by the backfill in ${r.backfill} s.`,
    '',
  );
  for (const [t, s] of Object.entries(r.sizes)) lines.push(`- \`${t}\`: ${s}`);
  lines.push('', '| query | rows counted | p50 ms | p95 ms |', '|---|---:|---:|---:|');
  for (const q of r.results) lines.push(`| ${q.name} | ${q.requests.toLocaleString('en')} | ${q.p50.toFixed(1)} | ${q.p95.toFixed(1)} |`);
  lines.push('');
}
const report = lines.join('\n');
console.log(report);
mkdirSync(join(BENCH, 'results'), { recursive: true });
writeFileSync(join(BENCH, 'results', 'analytics-latest.md'), report + '\n');

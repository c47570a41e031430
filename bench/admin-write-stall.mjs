#!/usr/bin/env node
/**
 * Does an admin write stall the data plane? Seeds a store with many API keys, configs and virtual
 * keys, starts the built gateway, keeps a steady stream of data-plane requests going against the fake
 * upstream, performs admin writes during it (create a config, revoke a key) and reports, per write,
 * the latency the concurrent data-plane requests gained, and how long the write took to be visible
 * (on a second replica with `--postgres`: two gateway processes sharing PostgreSQL and Redis).
 *
 *   node bench/admin-write-stall.mjs [--postgres] [--dist <dir>]
 *
 * Settings (environment): BENCH_STALL_ROWS (10000 of each), BENCH_STALL_WORKSPACES (100),
 * BENCH_STALL_WRITES (10), BENCH_STALL_CONNECTIONS (4), BENCH_STALL_GAP_MS (2500), BENCH_STALL_REQUEST_LOG (false),
 * BENCH_DATABASE_URL, BENCH_REDIS_URL. Method: bench/README.md. Output: Markdown on stdout and in
 * bench/results/admin-write-stall-<sqlite|postgres>-latest.md.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { request } from 'undici';
import { freePort, machineBusyTicks, startService } from './lib/procs.mjs';
import { percentile } from './lib/stats.mjs';
import { CHAT_BODY } from './lib/scenarios.mjs';

const BENCH = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(BENCH);
const argv = process.argv.slice(2);
const env = process.env;
const num = (name, dflt) => (env[name] ? Number(env[name]) : dflt);
const POSTGRES = argv.includes('--postgres');
const DIST = resolve(argv.includes('--dist') ? argv[argv.indexOf('--dist') + 1] : join(ROOT, 'dist'));
const ROWS = num('BENCH_STALL_ROWS', 10_000);
const WORKSPACES = num('BENCH_STALL_WORKSPACES', 100);
const WRITES = num('BENCH_STALL_WRITES', 10);
const CONNECTIONS = num('BENCH_STALL_CONNECTIONS', 4);
const GAP_MS = num('BENCH_STALL_GAP_MS', 2500);
const PG_URL = env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ADMIN_KEY = 'gw-bench-admin-key-0123456789abcdef';
// Replicas sharing PostgreSQL seal stored secrets with one key.
const ENCRYPTION_KEY = randomBytes(32).toString('base64');
const HZ = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;
const log = (...a) => console.error('stall:', ...a);
const dist = (path) => import(pathToFileURL(join(DIST, path)).href);
const keyValue = (i) => `bench-key-${i}`;

/** Writes the store the gateways will open: workspaces, keys, configs and virtual keys, spread over the workspaces. */
async function seed(storeOptions, fakeUrl) {
  const { openStore } = await dist('infra/store/store.js');
  const { ensureDefaultTenant } = await dist('infra/store/repos/organisations.js');
  const { sha256Hex } = await dist('foundation/lib/hash.js');
  const store = await openStore(storeOptions);
  const now = Date.now();
  const { organisation, workspace } = await ensureDefaultTenant(store, now);
  const org = organisation.id;
  const ws = [workspace.id];
  for (let i = 1; i < WORKSPACES; i++) ws.push(`bench-ws-${String(i).padStart(4, '0')}`);
  const insert = async (table, rows) => {
    for (let i = 0; i < rows.length; i += 500)
      await store.db
        .insertInto(table)
        .values(rows.slice(i, i + 500))
        .execute();
  };
  await insert(
    'workspaces',
    ws.slice(1).map((id, i) => ({
      id,
      organisation_id: org,
      name: id,
      slug: `ws-${i + 1}`,
      status: 'active',
      settings: '{}',
      created_at: now,
      updated_at: now,
    })),
  );
  const key = (id, workspaceId, value, type, scopes = '[]') => ({
    id,
    organisation_id: org,
    workspace_id: workspaceId,
    name: id,
    type,
    key_hash: sha256Hex(value),
    key_hint: value.slice(0, 4),
    scopes,
    status: 'active',
    expires_at: null,
    rotation_policy: null,
    metadata: '{}',
    created_at: now,
    updated_at: now,
  });
  // The admin key holds `*` (a key without scopes gets only its type's data-plane and read defaults).
  const keys = [key('bench-admin', null, ADMIN_KEY, 'organisation-service', '["*"]')];
  const configs = [];
  const versions = [];
  const virtualKeys = [];
  const body = JSON.stringify({ provider: 'openai', api_key: 'sk-bench', custom_host: `${fakeUrl}/v1` });
  for (let i = 0; i < ROWS; i++) {
    const w = ws[i % WORKSPACES];
    const n = String(i).padStart(6, '0');
    keys.push(key(`bench-key-${n}`, w, keyValue(i), 'workspace-service'));
    configs.push({
      id: `bench-config-${n}`,
      organisation_id: org,
      workspace_id: w,
      name: `c${i}`,
      slug: `c${i}`,
      status: 'active',
      version: 1,
      created_at: now,
      updated_at: now,
    });
    versions.push({ config_id: `bench-config-${n}`, version: 1, config: body, created_at: now });
    virtualKeys.push({
      id: `bench-vk-${n}`,
      workspace_id: w,
      name: `vk${i}`,
      slug: `vk${i}`,
      provider: 'openai',
      secret: 'sk-bench',
      config: '{}',
      status: 'active',
      created_at: now,
      updated_at: now,
    });
  }
  await insert('api_keys', keys);
  await insert('configs', configs);
  await insert('config_versions', versions);
  await insert('virtual_keys', virtualKeys);
  await store.close();
  return { ws };
}

/** One data-plane chat request with a stored config (looked up in the runtime snapshot) and a workspace key. */
async function chat(origin, keyIndex, config) {
  const res = await request(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gateway-api-key': keyValue(keyIndex), 'x-gateway-config': config },
    body: CHAT_BODY,
  });
  await res.body.text();
  return res.statusCode;
}

async function admin(origin, method, path, body) {
  const res = await request(`${origin}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), 'x-gateway-api-key': ADMIN_KEY },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

/** Polls `probe` every 5 ms until it returns true; resolves with the time it became true. */
async function until(probe, limitMs = 30_000) {
  const start = performance.now();
  for (;;) {
    if (await probe()) return performance.now();
    if (performance.now() - start > limitMs) throw new Error(`write not visible within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** `nodejs_eventloop_lag_max_seconds` of a gateway in ms: the longest event-loop delay since the previous scrape (prom-client resets it on each). */
async function loopLagMaxMs(origin) {
  const res = await request(`${origin}/metrics`, { headers: { 'x-gateway-api-key': ADMIN_KEY } });
  const text = await res.body.text();
  const m = /^nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? ([0-9.e+-]+)$/m.exec(text);
  return m ? Number(m[1]) * 1000 : NaN;
}

/**
 * Watches this process's event loop with a 1 ms timer: the longest wall-clock gap between two ticks
 * (what a request waiting behind the work would see here) and the most CPU time the process spent
 * between two ticks (the longest piece of work that did not yield; unlike the wall gap, it does not
 * grow when a busy machine deschedules the process).
 */
function watchLoop() {
  let wall = performance.now();
  let cpu = process.cpuUsage();
  let maxWall = 0;
  let maxCpu = 0;
  let on = true;
  const tick = () => {
    const w = performance.now();
    const c = process.cpuUsage();
    maxWall = Math.max(maxWall, w - wall);
    maxCpu = Math.max(maxCpu, (c.user - cpu.user + c.system - cpu.system) / 1000);
    wall = w;
    cpu = c;
    if (on) setTimeout(tick, 1);
  };
  setTimeout(tick, 1);
  return () => {
    on = false;
    tick();
    return { maxWall, maxCpu };
  };
}

/**
 * The runtime alone, in this process, on the seeded store: how long the event loop goes without
 * yielding during a full reload and during one-workspace changes, and (PostgreSQL + Redis) how long a
 * change takes to reach a second Runtime. The same calls run on an older build, where every change is
 * a full rebuild.
 */
async function inProcess(storeOptions, ws) {
  const { openStore } = await dist('infra/store/store.js');
  const { Runtime } = await dist('runtime/runtime.js');
  const { MemoryPubSub, RedisPubSub } = await dist('infra/state/pubsub.js');
  const { createLogger } = await dist('infra/observability/logger.js');
  const { ensureDefaultTenant } = await dist('infra/store/repos/organisations.js');
  const { Redis } = await import('ioredis');
  const stores = [await openStore(storeOptions), ...(POSTGRES ? [await openStore(storeOptions)] : [])];
  const redis = [];
  const pubsubs = [];
  const pubsub = () => {
    if (!POSTGRES) return new MemoryPubSub();
    const r = new Redis(REDIS_URL);
    redis.push(r);
    const ps = new RedisPubSub(r, `${storeOptions.schema}-in-process:`);
    pubsubs.push(ps);
    return ps;
  };
  const t = await ensureDefaultTenant(stores[0], Date.now());
  const tenant = { organisationId: t.organisation.id, workspaceId: t.workspace.id };
  const runtimes = stores.map((store) => new Runtime(store, pubsub(), createLogger('silent'), tenant, 60_000));
  const results = [];
  const measure = async (name, op, visible) => {
    const stop = watchLoop();
    const start = performance.now();
    await op();
    const done = performance.now();
    const reached = visible ? await until(async () => visible()) : undefined;
    const { maxWall, maxCpu } = stop();
    results.push({ name, ms: done - start, reached: reached === undefined ? undefined : reached - start, maxWall, maxCpu });
    // The next operation starts once every runtime caught up with this one (its reach is then its own).
    await until(async () => runtimes.every((r) => r.current.version >= runtimes[0].current.version), 120_000);
  };
  try {
    await measure('start (load everything)', () => Promise.all(runtimes.map((r) => r.start())));
    const [writer, other] = [runtimes[0], runtimes.at(-1)];
    for (let i = 0; i < 3; i++) {
      await measure('full reload (`changed()`)', () => writer.changed());
      const id = `bench-in-process-${i}`;
      const w = ws[1 + i];
      const now = Date.now();
      await stores[0].db
        .insertInto('configs')
        .values({
          id,
          organisation_id: tenant.organisationId,
          workspace_id: w,
          name: id,
          slug: id,
          status: 'active',
          version: 1,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await stores[0].db
        .insertInto('config_versions')
        .values({ config_id: id, version: 1, config: JSON.stringify({ provider: 'openai', api_key: 'sk' }), created_at: now })
        .execute();
      await measure(
        'one workspace of `configs`',
        () => writer.changed([{ section: 'configs', workspaceId: w }]),
        POSTGRES ? () => other.current.configs.has(`${w}:${id}`) : undefined,
      );
      await stores[0].db
        .updateTable('api_keys')
        .set({ status: 'revoked' })
        .where('id', '=', `bench-key-${String(ROWS - 100 - i).padStart(6, '0')}`)
        .execute();
      await measure('one workspace of `api-keys`', () =>
        writer.changed([{ section: 'api-keys', workspaceId: ws[(ROWS - 100 - i) % WORKSPACES] }]),
      );
    }
  } finally {
    for (const r of runtimes) r.stop();
    // The subscriber connections too, or the process would not exit.
    for (const ps of pubsubs) await ps.close();
    for (const r of redis) r.disconnect();
    for (const s of stores) await s.close();
  }
  return [
    '',
    `## The runtime alone, in the bench process (${DIST})`,
    '',
    'max CPU without yielding = the most CPU time this process spent between two ticks of a 1 ms timer (the longest piece of work that did not yield, whatever the machine load); max loop gap = the same in wall-clock time.',
    '',
    `| operation | done after ms |${POSTGRES ? ' visible on runtime 2 after ms |' : ''} max CPU without yielding ms | max loop gap ms |`,
    `|---|---|${POSTGRES ? '---|' : ''}---|---|`,
    ...results.map((r) => `| ${r.name} | ${fmt(r.ms)} |${POSTGRES ? ` ${fmt(r.reached)} |` : ''} ${fmt(r.maxCpu)} | ${fmt(r.maxWall)} |`),
    '',
  ].join('\n');
}

const fmt = (ms) => (ms === undefined || Number.isNaN(ms) ? '–' : ms.toFixed(1));

async function main() {
  const services = [];
  const dirs = [];
  const schema = POSTGRES ? `bench_stall_${randomBytes(4).toString('hex')}` : undefined;
  try {
    const fakePort = await freePort();
    const fakeUrl = `http://127.0.0.1:${fakePort}`;
    services.push(
      await startService({
        name: 'fake',
        command: process.execPath,
        args: [join(BENCH, 'fake-upstream.mjs'), String(fakePort)],
        readyUrl: `${fakeUrl}/health`,
      }),
    );
    const dataDirs = [0, 1].map(() => mkdtempSync(join(tmpdir(), 'gw-stall-')));
    dirs.push(...dataDirs);
    const storeOptions = POSTGRES ? { kind: 'postgres', url: PG_URL, schema } : { kind: 'sqlite', path: join(dataDirs[0], 'gateway.db') };
    let t = performance.now();
    const { ws } = await seed(storeOptions, fakeUrl);
    log(
      `seeded ${ROWS} keys, configs and virtual keys in ${WORKSPACES} workspaces (${POSTGRES ? 'PostgreSQL' : 'SQLite'}) in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );
    const gatewayEnv = {
      GATEWAY_ADMIN_KEY: ADMIN_KEY,
      // Off by default, so that a write's stall is the write's own; `BENCH_STALL_REQUEST_LOG=true` measures it with the log's writes going on.
      GATEWAY_REQUEST_LOG: env.BENCH_STALL_REQUEST_LOG === 'true' ? 'true' : 'false',
      LOG_LEVEL: 'warn',
      ...(POSTGRES
        ? { DATABASE_URL: PG_URL, GATEWAY_ENCRYPTION_KEY: ENCRYPTION_KEY, DATABASE_SCHEMA: schema, REDIS_URL, REDIS_PREFIX: `${schema}:` }
        : {}),
    };
    const origins = [];
    for (let r = 0; r < (POSTGRES ? 2 : 1); r++) {
      const port = await freePort();
      t = performance.now();
      services.push(
        await startService({
          name: `gateway ${r}`,
          command: process.execPath,
          args: [join(DIST, 'main.js')],
          env: { PORT: String(port), HOST: '127.0.0.1', GATEWAY_DATA_DIR: dataDirs[r], ...gatewayEnv },
          cwd: ROOT,
          readyUrl: `http://127.0.0.1:${port}/health`,
          timeoutMs: 120_000,
        }),
      );
      origins.push(`http://127.0.0.1:${port}`);
      log(`gateway ${r} ready in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    }
    const [writer, observer] = [origins[0], origins.at(-1)];
    for (const o of origins) if ((await chat(o, 0, 'c0')) !== 200) throw new Error(`data-plane request to ${o} failed`);

    // Steady data-plane load: CONNECTIONS closed loops, spread over the replicas.
    const samples = [];
    let running = true;
    const loops = Array.from({ length: CONNECTIONS }, async (_, c) => {
      const origin = origins[c % origins.length];
      while (running) {
        const start = performance.now();
        const status = await chat(origin, 0, 'c0').catch(() => 0);
        samples.push({ start, end: performance.now(), status });
      }
    });
    await new Promise((r) => setTimeout(r, 3000));
    const busyBefore = machineBusyTicks();
    const wallBefore = performance.now();
    const writes = [];
    const quietLag = [];
    for (let i = 0; i < WRITES; i++) {
      await Promise.all(origins.map(loopLagMaxMs));
      await new Promise((r) => setTimeout(r, GAP_MS));
      quietLag.push(Math.max(...(await Promise.all(origins.map(loopLagMaxMs)))));
      const start = performance.now();
      if (i % 2 === 0) {
        const w = 1 + (i % (WORKSPACES - 1));
        const created = await admin(writer, 'POST', '/v1/configs', {
          name: `bench-new-${i}`,
          workspace_id: ws[w],
          config: { provider: 'openai', api_key: 'sk-bench', custom_host: `${fakeUrl}/v1` },
        });
        const end = performance.now();
        const visible = await until(async () => (await chat(observer, w, created.id)) === 200);
        writes.push({ kind: 'create config', start, end, visible, lag: Math.max(...(await Promise.all(origins.map(loopLagMaxMs)))) });
      } else {
        const k = ROWS - i;
        await admin(writer, 'DELETE', `/v1/api-keys/bench-key-${String(k).padStart(6, '0')}`);
        const end = performance.now();
        const visible = await until(async () => (await chat(observer, k, `c${k}`)) === 401);
        writes.push({ kind: 'revoke key', start, end, visible, lag: Math.max(...(await Promise.all(origins.map(loopLagMaxMs)))) });
      }
    }
    await new Promise((r) => setTimeout(r, 1000));
    running = false;
    await Promise.all(loops);
    const busyShare = (machineBusyTicks() - busyBefore) / HZ / ((performance.now() - wallBefore) / 1000);

    const windows = writes.map((w) => [w.start, Math.max(w.end, w.visible) + 20]);
    const overlaps = (s, [a, b]) => s.start < b && s.end > a;
    const quiet = samples
      .filter((s) => s.start > samples[0].start + 1000 && !windows.some((win) => overlaps(s, win)))
      .map((s) => s.end - s.start)
      .sort((a, b) => a - b);
    const quietP50 = percentile(quiet, 50);
    const failed = samples.filter((s) => s.status !== 200).length;
    const rows = writes.map((w, i) => {
      const during = samples
        .filter((s) => overlaps(s, windows[i]))
        .map((s) => s.end - s.start)
        .sort((a, b) => a - b);
      return { ...w, n: during.length, p99: percentile(during, 99) - quietP50, max: (during.at(-1) ?? NaN) - quietP50 };
    });
    const allDuring = samples
      .filter((s) => windows.some((win) => overlaps(s, win)))
      .map((s) => s.end - s.start)
      .sort((a, b) => a - b);
    const lines = [
      `# Admin write stall (${POSTGRES ? 'PostgreSQL + Redis, two replicas' : 'SQLite, one replica'})`,
      '',
      `- ${new Date().toISOString()}, gateway from \`${DIST}\`, ${ROWS} API keys, configs and virtual keys over ${WORKSPACES} workspaces`,
      `- data plane: ${CONNECTIONS} closed-loop connections${POSTGRES ? ' (half to each replica)' : ''}, stored config by slug, workspace key; ${samples.length} requests, ${failed} not 200`,
      `- quiet data-plane latency (requests overlapping no write): p50 ${fmt(quietP50)} ms, p99 ${fmt(percentile(quiet, 99))} ms, max ${fmt(quiet.at(-1))} ms`,
      `- machine busy (all processes, from /proc/stat): ${busyShare.toFixed(2)} cores of the measured period — a shared machine is noisy`,
      `- added latency = latency of a data-plane request overlapping the write (from the admin request until the change is visible${POSTGRES ? ' on the other replica' : ''}) minus the quiet p50`,
      '',
      `- event-loop delay: the gateways' \`nodejs_eventloop_lag_max_seconds\` (10 ms resolution) over the write, and over the ${GAP_MS} ms quiet gap before it`,
      '',
      `| # | write | admin request ms | visible${POSTGRES ? ' on replica 2' : ''} after ms | concurrent requests | added p99 ms | added max ms | loop delay max ms (quiet before) |`,
      '|---|---|---|---|---|---|---|---|',
      ...rows.map(
        (r, i) =>
          `| ${i + 1} | ${r.kind} | ${fmt(r.end - r.start)} | ${fmt(r.visible - r.start)} | ${r.n} | ${fmt(r.p99)} | ${fmt(r.max)} | ${fmt(r.lag)} (${fmt(quietLag[i])}) |`,
      ),
      '',
      `Over all writes: added p99 ${fmt(percentile(allDuring, 99) - quietP50)} ms, added max ${fmt((allDuring.at(-1) ?? NaN) - quietP50)} ms, visible after at most ${fmt(Math.max(...rows.map((r) => r.visible - r.start)))} ms, event-loop delay max ${fmt(Math.max(...rows.map((r) => r.lag)))} ms (quiet gaps: ${fmt(Math.max(...quietLag))} ms).`,
      '',
    ];
    log('HTTP part done; the runtime alone next');
    const report = lines.join('\n') + (await inProcess(storeOptions, ws));
    process.stdout.write(report);
    mkdirSync(join(BENCH, 'results'), { recursive: true });
    writeFileSync(join(BENCH, 'results', `admin-write-stall-${POSTGRES ? 'postgres' : 'sqlite'}-latest.md`), report);
  } finally {
    for (const s of services.reverse()) await s.stop().catch(() => {});
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    if (schema) await (await dist('infra/store/store.js')).dropPostgresSchema(PG_URL, schema).catch(() => {});
  }
}

await main();

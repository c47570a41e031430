#!/usr/bin/env node
/**
 * The benchmark runner (`npm run bench`). In one run: the fake upstream alone, our gateway and
 * @portkey-ai/gateway (the reference), each scenario at each connection count, then unloaded
 * sequential probes; prints a Markdown report and writes bench/results/latest.md.
 * With `BENCH_SOAK=<seconds>` it runs only the soak (128 connections, RSS sampled every 10 s).
 * Settings: see bench/README.md.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCH = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(BENCH);
const REF_START = join(BENCH, 'node_modules/@portkey-ai/gateway/build/start-server.js');

// Install the bench's own dependencies (the reference gateway) before importing anything that needs them;
// not when the run leaves the reference out (BENCH_TARGETS without `reference`).
const WANTS_REFERENCE = (process.env.BENCH_TARGETS ?? 'reference').split(',').includes('reference');
if (WANTS_REFERENCE && !existsSync(REF_START)) {
  console.error('bench: installing bench/ dependencies (npm install --prefix bench) ...');
  const r = spawnSync('npm', ['install', '--prefix', BENCH, '--no-audit', '--no-fund', '--silent'], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const { canPin, freePort, startService, statusMb, sampleRss, machineBusyTicks, processTicks, mainThreadTicks } =
  await import('./lib/procs.mjs');
const { runAutocannon, runStreamLoad, sequentialProbe } = await import('./lib/load.mjs');
const { pairedSummary, renderReport } = await import('./lib/report.mjs');
const { summarize, memoryGrowth } = await import('./lib/stats.mjs');
const { SCENARIOS, CHAT_BODY, STREAM_BODY } = await import('./lib/scenarios.mjs');
const { startOtlpReceiver } = await import('./lib/otlp-receiver.mjs');
const { setupProduction } = await import('./lib/production.mjs');
const { request } = await import('undici');

const env = process.env;
const num = (name, dflt) => (env[name] !== undefined && env[name] !== '' ? Number(env[name]) : dflt);
const DURATION = num('BENCH_DURATION', 10);
const WARMUP = num('BENCH_WARMUP', 2);
/**
 * Seconds of load a gateway gets before its first measured run (on top of WARMUP). V8 compiles a process's hot code
 * while it serves: under chat @32 on one core the floor reached its steady CPU per request after ~3 s of load, ours
 * after ~9 s (272 → 174 → 132 µs per request in 3 s slices, then flat; bench/README.md, "Session 14"), so a 2 s
 * warm-up measured ours while it was still compiling.
 */
const FIRST_WARMUP = num('BENCH_FIRST_WARMUP', 15);
const CONNECTIONS = (env.BENCH_CONNECTIONS ?? '32,128').split(',').map(Number);
const PROBE_N = num('BENCH_PROBE_N', 2000);
const SOAK = num('BENCH_SOAK', 0);
const PAIRS = num('BENCH_PAIRS', 5);
const PAIR_S = num('BENCH_PAIR_S', 4);
const ONLY = env.BENCH_SCENARIOS ? new Set(env.BENCH_SCENARIOS.split(',')) : null;
const TARGETS = new Set((env.BENCH_TARGETS ?? 'direct,floor,ours,reference').split(','));
const PIN = !env.BENCH_NO_PIN && canPin(cpus().length);
const PAUSE_MS = 300;
const HZ = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

// The runner and its load generator run on core 0; re-exec pinned once.
if (PIN && !env.BENCH_PINNED) {
  const r = spawnSync(
    'taskset',
    ['-c', '0', process.execPath, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    {
      stdio: 'inherit',
      env: { ...env, BENCH_PINNED: '1' },
    },
  );
  process.exit(r.status ?? 1);
}

const notes = [];
const log = (...a) => console.error('bench:', ...a);
const adminKey = 'gw-bench-admin-key-0123456789abcdef';
const services = [];
const tmpDirs = [];
/** The OTLP/HTTP receiver the production instance exports its traces to (started with that scenario). */
let otlp;
/** The production instance, once its scenario started it (the interleaved pairs compare it with bare). */
let production;

/** The build of ours to run: `dist/`, or `BENCH_DIST` (another build, e.g. of an older commit in a worktree, for A/B runs). */
const DIST = process.env.BENCH_DIST ? resolve(process.env.BENCH_DIST) : join(ROOT, 'dist');

async function startOurs(name, extraEnv) {
  if (!existsSync(join(DIST, 'main.js'))) {
    notes.push(`${name}: dist/main.js does not exist (gateway not built yet), skipped.`);
    return null;
  }
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-bench-'));
  tmpDirs.push(dataDir);
  const profile = profileArgs();
  try {
    const svc = await startService({
      name,
      command: process.execPath,
      args: [...profile, join(DIST, 'main.js')],
      env: { PORT: String(port), HOST: '127.0.0.1', GATEWAY_DATA_DIR: dataDir, GATEWAY_ADMIN_KEY: adminKey, ...extraEnv },
      cwd: ROOT,
      core: 1,
      pin: PIN,
      readyUrl: `http://127.0.0.1:${port}/health`,
    });
    services.push(svc);
    return { kind: 'ours', origin: `http://127.0.0.1:${port}`, adminKey, svc };
  } catch (err) {
    notes.push(`${name}: did not start: ${String(err.message).split('\n')[0]}`);
    return null;
  }
}

/** `--cpu-prof` arguments for our gateway and the floor when BENCH_PROFILE is set (profiles named by process id). */
function profileArgs() {
  return env.BENCH_PROFILE ? [`--cpu-prof`, `--cpu-prof-dir=${join(BENCH, 'results/profiles')}`] : [];
}

/** The floor (bench/floor-proxy.mjs): Fastify + undici forwarding to the fake, no gateway logic. */
async function startFloor(fakeUrl) {
  const port = await freePort();
  const svc = await startService({
    name: 'floor',
    command: process.execPath,
    args: [...profileArgs(), join(BENCH, 'floor-proxy.mjs'), String(port), fakeUrl],
    core: 1,
    pin: PIN,
    readyUrl: `http://127.0.0.1:${port}/health`,
  });
  services.push(svc);
  return { kind: 'floor', origin: `http://127.0.0.1:${port}`, svc };
}

async function startReference() {
  const port = await freePort();
  const cwd = mkdtempSync(join(tmpdir(), 'ref-bench-'));
  tmpDirs.push(cwd);
  const svc = await startService({
    name: 'reference',
    command: process.execPath,
    args: ['--import', join(BENCH, 'lib/loopback-only.mjs'), REF_START, `--port=${port}`, '--headless'],
    env: { NODE_ENV: 'production' },
    cwd,
    core: 1,
    pin: PIN,
    readyUrl: `http://127.0.0.1:${port}/`,
  });
  services.push(svc);
  return { kind: 'reference', origin: `http://127.0.0.1:${port}`, svc };
}

/** One request; returns status, headers and body text (for checks before measuring). */
async function once(call) {
  const res = await request(call.origin + call.path, { method: 'POST', headers: call.headers, body: call.body });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

async function check(scenario, target, call) {
  const first = await once(call);
  if (first.status !== 200) return `answered ${first.status}: ${first.text.slice(0, 160)}`;
  if (scenario.stream && !first.text.includes('data: [DONE]')) return 'stream did not end with [DONE]';
  if (scenario.cache) {
    const second = await once(call);
    const status = second.headers['x-gateway-cache-status'] ?? second.headers['x-portkey-cache-status'];
    if (status !== 'HIT') return `no cache hit on a repeated request (cache status: ${status ?? 'absent'})`;
  }
  return null;
}

/** The gateways that had their first warm-up. */
const warmed = new Set();

/** `seconds` of the scenario's closed-loop load on `call` with `conns` connections (streams read to their end). */
function runLoad(scenario, call, conns, seconds) {
  return scenario.stream
    ? runStreamLoad({ ...call, connections: conns, durationS: seconds })
    : runAutocannon({ url: call.origin + call.path, connections: conns, duration: seconds, headers: call.headers, body: call.body });
}

async function measure(scenario, conns, target, call) {
  const run = (seconds) => runLoad(scenario, call, conns, seconds);
  if (FIRST_WARMUP > 0 && target.svc && !warmed.has(target.svc)) {
    warmed.add(target.svc);
    await run(FIRST_WARMUP);
  }
  if (WARMUP > 0) await run(WARMUP);
  const pid = target.svc?.pid;
  const rss = pid ? sampleRss(pid) : null;
  const before = {
    at: Date.now(),
    gw: pid ? processTicks(pid) : NaN,
    main: pid ? mainThreadTicks(pid) : NaN,
    self: processTicks(process.pid),
  };
  const r = await run(DURATION);
  const seconds = (Date.now() - before.at) / 1000;
  const gwCpuS = (processTicks(pid) - before.gw) / HZ;
  const mainCpuS = (mainThreadTicks(pid) - before.main) / HZ;
  const mem = rss?.stop();
  return {
    scenario: scenario.name,
    directScenario: scenario.directScenario,
    conns,
    target: target.kind,
    ...r,
    rssPeakMb: mem?.peakMb,
    gwCpu: gwCpuS / seconds,
    loadgenCpu: (processTicks(process.pid) - before.self) / HZ / seconds,
    cpuUsPerReq: r.requests > 0 ? (gwCpuS * 1e6) / r.requests : NaN,
    mainCpuUsPerReq: r.requests > 0 ? (mainCpuS * 1e6) / r.requests : NaN,
  };
}

/** One slice of load on `target`: answered requests, wall seconds, the gateway's CPU seconds. */
async function slice(scenario, target, call, seconds) {
  const pid = target.svc.pid;
  const at = Date.now();
  const cpu = processTicks(pid);
  const r = await runLoad(scenario, call, 32, seconds);
  return { requests: r.requests, seconds: (Date.now() - at) / 1000, cpuS: (processTicks(pid) - cpu) / HZ };
}

/**
 * Issue 25's ratios measured interleaved (BENCH_PAIRS rounds of BENCH_PAIR_S seconds per side, 32 connections):
 * chat and streams, ours against the floor; chat, production against bare. Each round runs the two sides back to
 * back, in alternating order, so a machine whose speed drifts over the run (this kind of VM swings by 2× within
 * minutes) moves both sides alike; the sequential runs above measure each target minutes apart.
 */
async function pairedRuns(targets, fakeUrl) {
  const floor = targets.find((t) => t.kind === 'floor' && t.svc);
  const ours = targets.find((t) => t.kind === 'ours' && t.svc);
  const chat = SCENARIOS.find((s) => s.name === 'chat');
  const stream = SCENARIOS.find((s) => s.name === 'stream');
  const comparisons = [];
  if (floor && ours) {
    comparisons.push({ name: 'chat @32: ours / floor', scenario: chat, a: floor, b: ours });
    comparisons.push({ name: 'stream @32: ours / floor', scenario: stream, a: floor, b: ours });
  }
  if (ours && production) comparisons.push({ name: 'production @32: production / bare', scenario: chat, a: ours, b: production });
  const out = [];
  for (const c of comparisons) {
    if (ONLY && !ONLY.has(c.scenario.name) && !(c.b === production && ONLY.has('production'))) continue;
    log(`interleaved: ${c.name}, ${PAIRS} rounds of ${PAIR_S} s per side`);
    const callA = c.scenario.call(c.a, fakeUrl);
    const callB = c.scenario.call(c.b, fakeUrl);
    const rounds = [];
    for (let i = 0; i < PAIRS; i++) {
      if (i % 2 === 0) {
        const a = await slice(c.scenario, c.a, callA, PAIR_S);
        const b = await slice(c.scenario, c.b, callB, PAIR_S);
        rounds.push({ a, b });
      } else {
        const b = await slice(c.scenario, c.b, callB, PAIR_S);
        const a = await slice(c.scenario, c.a, callA, PAIR_S);
        rounds.push({ a, b });
      }
    }
    out.push({ name: c.name, sliceS: PAIR_S, rounds, summary: pairedSummary(rounds) });
  }
  return out;
}

function meta() {
  const git = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout?.trim();
  const version = (pkg) =>
    existsSync(join(BENCH, `node_modules/${pkg}/package.json`))
      ? JSON.parse(readFileSync(join(BENCH, `node_modules/${pkg}/package.json`), 'utf8')).version
      : 'not installed';
  const refVersion = version('@portkey-ai/gateway');
  const nodeServer = version('@hono/node-server');
  return {
    date: new Date().toISOString(),
    machine: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}`,
    node: process.version,
    pinning: PIN ? 'taskset: gateways on core 1; load generator and fake upstream on core 0' : 'none (taskset missing or one CPU)',
    'duration per run': `${DURATION} s after ${WARMUP} s warm-up (and ${FIRST_WARMUP} s of load before a gateway's first run)`,
    'unloaded probe': `${PROBE_N} sequential requests after 200 warm-up`,
    reference: `@portkey-ai/gateway ${refVersion} with @hono/node-server ${nodeServer}`,
    'our commit': git || 'unknown',
    'ours (bare)': 'GATEWAY_REQUEST_LOG=false, LOG_LEVEL=warn, admin key as gateway key',
    'ours (production)':
      'request log on, default log level, a workspace-user key, one rate-limit and one usage-limit (cost) policy matching the requests, OTel traces exported to a local OTLP/HTTP receiver',
    floor: "bench/floor-proxy.mjs: Fastify + undici forwarding to the fake, no gateway logic (the stack's own cost)",
  };
}

async function loadRuns(targets, fakeUrl) {
  const load = [];
  for (const scenario of SCENARIOS) {
    if (ONLY && !ONLY.has(scenario.name)) continue;
    let runTargets = targets;
    if (scenario.production) {
      runTargets = [];
      otlp ??= await startOtlpReceiver();
      const prodEnv = { GATEWAY_REQUEST_LOG: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, ...JSON.parse(env.BENCH_PROD_ENV ?? '{}') };
      const prod = TARGETS.has('ours') ? await startOurs('ours (production)', prodEnv) : null;
      if (prod) {
        const why = await setupProduction(prod);
        if (why) {
          notes.push(`production: skipped — ${why}.`);
          await prod.svc.stop();
          services.splice(services.indexOf(prod.svc), 1);
        } else {
          runTargets = [prod];
          production = prod;
        }
      }
    }
    for (const target of runTargets) {
      const call = scenario.call(target, fakeUrl);
      if (!call) continue;
      const why = await check(scenario, target, call).catch((e) => `request failed: ${e.message}`);
      if (why) {
        notes.push(`${scenario.name} / ${target.kind}: skipped — ${why}`);
        continue;
      }
      for (const conns of CONNECTIONS) {
        log(`${scenario.name} @${conns} → ${target.kind}`);
        load.push(await measure(scenario, conns, target, call));
      }
      if (scenario.production && otlp) {
        // Spans are exported in batches (OTEL_BSP_SCHEDULE_DELAY, 1 s): wait for the last one before counting.
        await new Promise((r) => setTimeout(r, 1500));
        const s = otlp.stats;
        notes.push(
          `production: the OTLP receiver accepted ${s.requests.toLocaleString('en-US')} trace exports (${(s.bytes / 1e6).toFixed(1)} MB)${s.requests === 0 ? ' — none: tracing did not export' : ''}.`,
        );
      }
    }
  }
  return load;
}

async function probes(targets, fakeUrl) {
  const out = [];
  for (const target of targets) {
    const plain = SCENARIOS[0].call(target, fakeUrl);
    const streamed = SCENARIOS[1].call(target, fakeUrl);
    log(`sequential probes → ${target.kind}`);
    const a = await sequentialProbe({ ...plain, body: CHAT_BODY, n: PROBE_N });
    const b = await sequentialProbe({ ...streamed, body: STREAM_BODY, n: PROBE_N, stream: true });
    const row = (probe, samples, errors) => ({ probe, target: target.kind, n: samples.length, errors, ...summarize(samples) });
    out.push(
      row('chat sequential', a.total, a.errors),
      row('stream TTFB sequential', b.first, b.errors),
      row('stream TTLB sequential', b.total, b.errors),
    );
    // Pass-through: the upstream pauses PAUSE_MS after chunk 10; a gateway that buffers shows the first byte after it.
    // (The floor always forwards to the fake's plain path, so it has no paused probe.)
    if (target.kind === 'floor') continue;
    const paused = SCENARIOS[1].call(target, `${fakeUrl}/pause/${PAUSE_MS}`);
    if (target.kind === 'direct') paused.path = `/pause/${PAUSE_MS}${paused.path}`;
    const c = await sequentialProbe({ ...paused, n: 3, warmup: 0, stream: true });
    out.push({
      probe: `paused stream (${PAUSE_MS} ms pause)`,
      target: target.kind,
      n: c.first.length,
      errors: c.errors,
      ...summarize(c.first),
      last: summarize(c.total).p50,
    });
  }
  const order = ['chat sequential', 'stream TTFB sequential', 'stream TTLB sequential', `paused stream (${PAUSE_MS} ms pause)`];
  return out.sort((x, y) => order.indexOf(x.probe) - order.indexOf(y.probe));
}

async function soak(target, fakeUrl) {
  const call = SCENARIOS[0].call(target, fakeUrl);
  const intervalS = num('BENCH_SOAK_INTERVAL', 10);
  const warm = Math.max(WARMUP, Math.round(SOAK / 10));
  log(`soak: ${warm} s warm-up, then ${SOAK} s at 128 connections → ${target.kind}`);
  await runAutocannon({ url: call.origin + call.path, connections: 128, duration: warm, headers: call.headers, body: call.body });
  const rss = sampleRss(target.svc.pid, intervalS * 1000);
  const r = await runAutocannon({ url: call.origin + call.path, connections: 128, duration: SOAK, headers: call.headers, body: call.body });
  const samples = rss.stop().samples;
  return {
    target: target.kind,
    conns: 128,
    seconds: SOAK,
    warmupS: warm,
    intervalS,
    rps: r.rps,
    errors: r.errors,
    samples,
    growth: memoryGrowth(samples.slice(1)),
  };
}

/** CPU the run did not account for (other processes on the machine), as a share of one core. */
function foreignCpu(start) {
  const hz = HZ;
  const machine = machineBusyTicks() - start.machine;
  const ours = processTicks(process.pid) - start.self + services.reduce((a, s) => a + (processTicks(s.pid) || 0), 0);
  const seconds = (Date.now() - start.at) / 1000;
  return { coreSeconds: (machine - ours) / hz, share: (machine - ours) / hz / seconds };
}

async function main() {
  const start = { machine: machineBusyTicks(), self: processTicks(process.pid), at: Date.now() };
  const fakePort = await freePort();
  const fake = await startService({
    name: 'fake upstream',
    command: process.execPath,
    args: [join(BENCH, 'fake-upstream.mjs'), String(fakePort)],
    core: 0,
    pin: PIN,
    readyUrl: `http://127.0.0.1:${fakePort}/health`,
  });
  services.push(fake);
  const fakeUrl = `http://127.0.0.1:${fakePort}`;
  const targets = [];
  if (TARGETS.has('direct')) targets.push({ kind: 'direct', origin: fakeUrl });
  if (TARGETS.has('floor')) targets.push(await startFloor(fakeUrl));
  if (TARGETS.has('ours')) {
    // Bare: no request log, warnings only. The production instance keeps the gateway's defaults (log on).
    const ours = await startOurs('ours', { GATEWAY_REQUEST_LOG: 'false', LOG_LEVEL: 'warn', ...JSON.parse(env.BENCH_OURS_ENV ?? '{}') });
    if (ours) targets.push(ours);
  }
  if (TARGETS.has('reference')) targets.push(await startReference());

  const report = { meta: meta(), load: [], probes: [], memory: [], notes };
  if (SOAK > 0) {
    const target = targets.find((t) => t.kind === (env.BENCH_SOAK_TARGET ?? 'ours')) ?? targets.find((t) => t.svc);
    if (!target?.svc) throw new Error('soak: no gateway to soak');
    report.soak = await soak(target, fakeUrl);
  } else {
    report.load = await loadRuns(targets, fakeUrl);
    if (PAIRS > 0) report.paired = await pairedRuns(targets, fakeUrl);
    report.probes = await probes(targets, fakeUrl);
  }
  const foreign = foreignCpu(start);
  if (Number.isFinite(foreign.share)) {
    report.meta['CPU used by other processes'] =
      `${foreign.coreSeconds.toFixed(0)} core-seconds (${(100 * foreign.share).toFixed(0)}% of one core on average)`;
    if (foreign.share > 0.1)
      notes.push(
        `The machine was shared: other processes used ${(100 * foreign.share).toFixed(0)}% of a core on average during the run, so numbers are noisy (pinning does not keep them off the cores).`,
      );
  }
  for (const svc of services) {
    if (svc === fake) continue;
    report.memory.push({ target: svc.name, hwmMb: statusMb(svc.pid, 'VmHWM'), endMb: statusMb(svc.pid, 'VmRSS') });
  }
  const md = renderReport(report);
  mkdirSync(join(BENCH, 'results'), { recursive: true });
  const file = join(BENCH, 'results', SOAK > 0 ? 'soak-latest.md' : 'latest.md');
  writeFileSync(file, md);
  writeFileSync(file.replace(/\.md$/, '.json'), JSON.stringify(report, null, 2));
  process.stdout.write(md);
  log(`written to ${file}`);
}

try {
  await main();
} finally {
  await Promise.all(services.map((s) => s.stop()));
  await otlp?.close();
  for (const d of tmpDirs) rmSync(d, { recursive: true, force: true });
}

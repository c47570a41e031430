#!/usr/bin/env node
/**
 * The machine-independent gate (`npm run bench:instructions`): CPU instructions per request of our
 * gateway and of the floor (bench/floor-proxy.mjs), counted by `valgrind --tool=callgrind`.
 *
 * Each target runs under callgrind with instrumentation off (fast start-up), gets `WARMUP` requests,
 * then `callgrind_control -i on` and `-z` (count from zero), exactly `N` requests, and `-d` (dump):
 * start-up, warm-up and JIT compilation of the first requests are excluded, every thread of the
 * process (GC helpers included) is counted. Instructions do not depend on the clock, the CPU model's
 * speed or what else runs on the machine, so a regression shows on any machine; the ratio to the
 * floor is the figure to watch. The fake upstream and the load generator run outside valgrind.
 *
 * Settings (environment): BENCH_INSTR_N (1000 requests per round), BENCH_INSTR_ROUNDS (3), BENCH_INSTR_WARMUP (6000),
 * BENCH_INSTR_CONNECTIONS (8 concurrent requests), BENCH_INSTR_SCENARIOS (`chat,stream`),
 * BENCH_INSTR_TARGETS (`floor,ours`; `production` adds our production instance: request log, OTel export to a local
 * receiver, a workspace-user key, a rate-limit and a usage-limit policy, as run.mjs's production scenario), BENCH_INSTR_IDLE_S (10 s idle per target: its background timer work per second,
 * subtracted from each round's main-thread work), BENCH_INSTR_DIST (another build of ours, default dist/), BENCH_INSTR_KEEP=1 keeps the callgrind dumps in
 * bench/results/callgrind/ for `callgrind_annotate --inclusive=yes <file>`. BENCH_INSTR_SIM=1 also simulates the caches and
 * branch predictors (`--cache-sim=yes --branch-sim=yes`, about twice as slow) and adds a table of misses and mispredicted
 * branches per request: machine-independent figures for what makes one instruction cost more time than another.
 * BENCH_INSTR_NODE_ARGS: extra node arguments for both targets (`--perf-basic-prof`: dumps whose JavaScript
 * bench/callgrind-names.mjs can name).
 * Output: Markdown on stdout and in bench/results/instructions-latest.md. Not a timed test; `npm test`
 * never runs it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, copyFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { freePort, startService } from './lib/procs.mjs';
import { SCENARIOS } from './lib/scenarios.mjs';
import { startOtlpReceiver } from './lib/otlp-receiver.mjs';
import { setupProduction } from './lib/production.mjs';

const BENCH = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(BENCH);
const env = process.env;
const num = (name, dflt) => (env[name] ? Number(env[name]) : dflt);
/** `--gate`: the reduced run of CI (floor and ours, chat and stream, fewer requests); exits 1 above a limit. */
const GATE = process.argv.includes('--gate');
const N = num('BENCH_INSTR_N', GATE ? 500 : 1000);
const WARMUP = num('BENCH_INSTR_WARMUP', GATE ? 3000 : 6000);
const CONNECTIONS = num('BENCH_INSTR_CONNECTIONS', 8);
const ONLY = new Set((env.BENCH_INSTR_SCENARIOS ?? 'chat,stream').split(','));
const TARGETS = (GATE ? 'floor,ours' : (env.BENCH_INSTR_TARGETS ?? 'floor,ours')).split(',');
const ROUNDS = num('BENCH_INSTR_ROUNDS', GATE ? 1 : 3);
/** The gate's limits: work per request of ours over the floor's, per scenario (`BENCH_GATE_CHAT`, `BENCH_GATE_STREAM`). */
const LIMITS = { chat: num('BENCH_GATE_CHAT', 1.3), stream: num('BENCH_GATE_STREAM', 1.75) };
/**
 * V8 without helper threads (`--single-threaded`: no concurrent or parallel GC, optimising compiles on the main
 * thread when a function gets hot). Under valgrind the threads of a process take turns, and how much a helper
 * thread got done by the time a request ran depended on the wall-clock length of the main thread's waits, that
 * is on the machine's load; on one thread, compilation and collection happen at points fixed by the calls and
 * allocations. `BENCH_INSTR_CONCURRENT=1` keeps V8's helper threads (the process as deployed).
 */
const V8_ARGS = env.BENCH_INSTR_CONCURRENT ? [] : ['--single-threaded'];
const KEEP = Boolean(env.BENCH_INSTR_KEEP);
const SIM = Boolean(env.BENCH_INSTR_SIM);
/** Seconds of idle measurement per target (its background work per second, reported; 0: none). */
const IDLE_S = num('BENCH_INSTR_IDLE_S', GATE ? 0 : 5);
/** Another build of ours (e.g. a copy of an older commit's dist/ inside this checkout, so it finds node_modules). */
const DIST = env.BENCH_INSTR_DIST ? resolve(env.BENCH_INSTR_DIST) : join(ROOT, 'dist');
const adminKey = 'gw-bench-admin-key-0123456789abcdef';
const log = (...a) => console.error('bench:instructions:', ...a);

for (const tool of ['valgrind', 'callgrind_control']) {
  if (spawnSync('which', [tool], { stdio: 'ignore' }).status !== 0) {
    console.error(`bench:instructions: ${tool} is not installed (apt-get install valgrind)`);
    process.exit(2);
  }
}
if (TARGETS.includes('ours') && !existsSync(join(DIST, 'main.js'))) {
  console.error(`bench:instructions: ${join(DIST, 'main.js')} is missing; run \`npm run build\` first`);
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), 'bench-instr-'));
const services = [];
/** The production target's batches wait for no clock: the request log writes 500 rows at a time, the span processor exports 512 spans. */
const FULL_BATCHES = { GATEWAY_REQUEST_LOG_FLUSH_MS: '600000', OTEL_BSP_SCHEDULE_DELAY: '600000' };
/**
 * The gateway's work by the clock moved out of the measured window: the runtime version poll (every 0.5 s), the
 * batch worker's scan (0.2 s while batches run, 2 s idle), the scheduler's jobs and key last-use flushes (5 s)
 * and the event-loop delay monitor of the metrics (0.1 s) run every 10 minutes instead. Under valgrind a round lasts 5 s on an idle machine and minutes on a busy one;
 * with these clocks its instructions are the requests' alone, so no idle rate needs subtracting.
 */
const NO_CLOCK_WORK = {
  GATEWAY_RUNTIME_POLL_MS: '600000',
  GATEWAY_BATCH_POLL_MS: '600000',
  GATEWAY_SCHEDULER_INTERVAL_MS: '600000',
  GATEWAY_KEY_LAST_USED_FLUSH_MS: '600000',
  GATEWAY_EVENT_LOOP_MONITOR_MS: '600000',
};
/** The OTLP/HTTP receiver of the production target (started with it). */
let otlp;

/**
 * Valgrind names its control pipes after the target's $HOST (our gateway's listen address), so
 * callgrind_control must run with the same HOST to find them.
 */
function callgrindControl(target, ...args) {
  const host = target.env.HOST;
  const childEnv = { ...process.env };
  if (host === undefined) delete childEnv.HOST;
  else childEnv.HOST = host;
  const r = spawnSync('callgrind_control', [...args, String(target.svc.pid)], { encoding: 'utf8', timeout: 60_000, env: childEnv });
  if (r.status !== 0 || /error/i.test(r.stderr))
    throw new Error(`callgrind_control ${args.join(' ')} ${target.svc.pid} failed: ${r.stderr || r.stdout}`);
}

/** `count` requests, `CONNECTIONS` at a time; every answer must be 200 (and a stream must end with [DONE]). */
async function drive(pool, call, stream, count) {
  let next = 0;
  const one = async () => {
    while (next < count) {
      next++;
      const res = await pool.request({ path: call.path, method: 'POST', headers: call.headers, body: call.body });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}: ${text.slice(0, 300)}`);
      if (stream && !text.includes('data: [DONE]')) throw new Error('stream did not end with [DONE]');
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, one));
}

/**
 * The total Ir of dump number `part` of `pid` (callgrind writes it shortly after `-d` returns), and every
 * event's total by name (`Ir`, and with BENCH_INSTR_SIM `I1mr`, `D1mr`, `Bcm` ...).
 */
async function dumpTotal(dir, prefix, pid, part) {
  const file = join(dir, `${prefix}.${pid}.${part}`);
  for (let waited = 0; ; waited += 100) {
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    const m = /^totals:\s*([\d ]+)/m.exec(text);
    if (m) {
      const names = (/^events:\s*(.*)$/m.exec(text)?.[1] ?? 'Ir').trim().split(/\s+/);
      const values = m[1].trim().split(/\s+/).map(Number);
      const events = Object.fromEntries(names.map((n, i) => [n, values[i] ?? 0]));
      return { total: events.Ir ?? values[0], events, file };
    }
    if (waited > 120_000) throw new Error(`callgrind wrote no dump ${file}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** V8's garbage collector, by the names of its C++ (self costs; whichever thread ran it). */
const GC_CODE =
  /v8::internal::(?:Heap|Scavenger|ScavengerCollector|MarkCompactCollector|MinorMarkCompactCollector|MinorMarkSweepCollector|IncrementalMarking|MarkingBarrier|MarkingWorklist|MainMarkingVisitor|ConcurrentMarking|Sweeper|MemoryReducer|GCTracer|Evacuator|FullEvacuator|RecordMigratedSlotVisitor|LiveObjectVisitor|PointersUpdatingJob|RememberedSet|SlotSet|TypedSlotSet|ArrayBufferSweeper|GlobalHandles|EphemeronHashTable|YoungGenerationMarkingVisitor|MarkingVisitorBase|ScavengeVisitor|IterateAndScavengePromotedObjectsVisitor|EvacuateVisitorBase|EvacuateNewSpaceVisitor|EvacuateOldSpaceVisitor|MarkingState|NonAtomicMarkingState|AtomicMarkingState|BodyDescriptorBase|ExternalStringTable|StringTable::DropOldData|WeakObjectRetainer|PagedSpace|PagedSpaceBase|SemiSpace|SemiSpaceNewSpace|NewSpace|MemoryAllocator|MemoryChunk|BasicMemoryChunk|Page|LargeObjectSpace|FreeList|FreeListCategory|CodeFlushingCandidates|ObjectStatsCollector|HeapVisitor|ConcurrentMarkingVisitor|MarkCompactWeakObjectRetainer|ProcessingWorklist)(?:<[^(]*>)?::|v8::internal::\(anonymous namespace\)::(?:.*Scaveng|.*Marking|.*Sweep|.*Evacuat|.*Compaction)/;
/** V8's compilers (TurboFan, Maglev, Sparkplug, the bytecode generator and parser): self costs, whichever thread. */
const COMPILER_CODE =
  /v8::internal::(?:compiler::|maglev::|baseline::|turboshaft::|interpreter::Bytecode(?:Generator|ArrayBuilder|ArrayWriter|RegisterOptimizer|Analysis)|Parser|ParserBase|PreParser|Scanner|AstValueFactory|DeclarationScope|Scope::|OptimizedCompilationInfo|CodeAssembler|Assembler|MacroAssembler|TurboAssembler|OptimizingCompileDispatcher|Compiler::)/;

/**
 * A dump split by what the instructions were for, from self costs by function (`callgrind_annotate`, names of
 * the node binary), whichever thread ran them: `gc` is V8's garbage collector (its C++ by class name: heap,
 * scavenger, mark-compact, marking, sweeping, evacuation ...); `compiler` is V8's compilers (TurboFan, Sparkplug,
 * the parser and bytecode generator); `work` is the rest (JIT-compiled JavaScript, builtins, V8's runtime, Node,
 * llhttp, libuv, libc, and the request log's thread): the figure a code change moves. Self costs, not inclusive
 * ones: with V8 on one thread a collection can run inside a runtime call and a finaliser inside a collection, and
 * inclusive costs then count one inside the other. Instructions (`Ir`); `workEvents`: every event of `work`.
 */
function kinds(file, events) {
  const names = Object.keys(events);
  const self = spawnSync('callgrind_annotate', ['--auto=no', '--threshold=100', `--show=${names.join(',')}`, '--sort=Ir', file], {
    encoding: 'utf8',
    maxBuffer: 512 << 20,
  });
  const gc = names.map(() => 0);
  const compiler = names.map(() => 0);
  for (const line of self.stdout.split('\n')) {
    const m = /^((?:\s*[\d,]+ \(\s*[\d.]+%\))+)\s+(.*)$/.exec(line);
    if (!m || /PROGRAM TOTALS/.test(m[2])) continue;
    const into = GC_CODE.test(m[2]) ? gc : COMPILER_CODE.test(m[2]) ? compiler : undefined;
    if (!into) continue;
    [...m[1].matchAll(/([\d,]+) \(/g)].forEach((x, i) => (into[i] += Number(x[1].replaceAll(',', ''))));
  }
  const work = names.map((n, i) => events[n] - gc[i] - compiler[i]);
  const ir = names.indexOf('Ir');
  // Part of `work`: V8's runtime defining an object literal's computed keys. Node's `process.nextTick` builds
  // its tick object with two (`[async_id_symbol]`, `[trigger_async_id_symbol]`); in some processes its
  // compiled code calls the runtime for them, ~20k instructions per chat request (bench/README.md "Session 21").
  const inclusive = spawnSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', '--sort=Ir', file], {
    encoding: 'utf8',
    maxBuffer: 512 << 20,
  });
  let literalRuntime = 0;
  for (const line of inclusive.stdout.split('\n')) {
    const m = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$/.exec(line);
    if (m && /v8::internal::Runtime_DefineKeyedOwnPropertyInLiteral\(/.test(m[2]))
      literalRuntime = Math.max(literalRuntime, Number(m[1].replaceAll(',', '')));
  }
  return {
    compiler: compiler[ir],
    gc: gc[ir],
    work: work[ir],
    literalRuntime,
    workEvents: Object.fromEntries(names.map((n, i) => [n, work[i]])),
  };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function startTarget(kind, fakeUrl) {
  const port = await freePort();
  const prefix = `callgrind.${kind}`;
  const valgrind = [
    '--tool=callgrind',
    '--instr-atstart=no',
    ...(SIM ? ['--cache-sim=yes', '--branch-sim=yes'] : []),
    `--callgrind-out-file=${join(work, prefix)}.%p`,
  ];
  let args;
  let extraEnv = {};
  const nodeArgs = [...V8_ARGS, ...(env.BENCH_INSTR_NODE_ARGS ? env.BENCH_INSTR_NODE_ARGS.split(' ') : [])];
  if (kind === 'floor') args = [...valgrind, process.execPath, ...nodeArgs, join(BENCH, 'floor-proxy.mjs'), String(port), fakeUrl];
  else {
    const dataDir = mkdtempSync(join(work, 'data-'));
    args = [...valgrind, process.execPath, ...nodeArgs, join(DIST, 'main.js')];
    extraEnv = {
      PORT: String(port),
      HOST: '127.0.0.1',
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_ADMIN_KEY: adminKey,
      GATEWAY_REQUEST_LOG: 'false',
      LOG_LEVEL: 'warn',
      ...NO_CLOCK_WORK,
    };
    if (kind === 'production') {
      // As run.mjs's production instance: request log on, default log level, traces exported to a local receiver.
      otlp ??= await startOtlpReceiver();
      // Batches written when full (500 log rows, 512 spans), as under load: by the clock, valgrind's ~100 requests per second
      // would give a 250 ms log batch a few dozen rows, and the per-batch work would weigh per request as it never does natively.
      // BENCH_PROD_ENV (JSON) changes its settings, as in run.mjs: e.g. request log and tracing off to measure the key and policies alone.
      extraEnv = {
        ...extraEnv,
        GATEWAY_REQUEST_LOG: 'true',
        LOG_LEVEL: 'info',
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        ...FULL_BATCHES,
        ...JSON.parse(env.BENCH_PROD_ENV || '{}'),
      };
    }
  }
  const svc = await startService({
    name: kind,
    command: 'valgrind',
    args,
    env: extraEnv,
    cwd: ROOT,
    readyUrl: `http://127.0.0.1:${port}/health`,
    timeoutMs: 300_000,
  });
  services.push(svc);
  const target = { kind, origin: `http://127.0.0.1:${port}`, adminKey, svc, prefix, dumps: 0, env: extraEnv };
  if (kind === 'production') {
    // The workspace-user key, rate-limit and usage-limit policies of the production scenario (bench/lib/production.mjs).
    const why = await setupProduction(target);
    if (why) throw new Error(`production setup failed: ${why}`);
  }
  return target;
}

// Interrupted: stop the targets (valgrind would outlive us) before exiting.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    Promise.all(services.map((svc) => svc.stop().catch(() => {}))).finally(() => {
      rmSync(work, { recursive: true, force: true });
      process.exit(130);
    });
  });
}

const rows = [];
try {
  const fakePort = await freePort();
  const fake = await startService({
    name: 'fake upstream',
    command: process.execPath,
    args: [join(BENCH, 'fake-upstream.mjs'), String(fakePort)],
    readyUrl: `http://127.0.0.1:${fakePort}/health`,
  });
  services.push(fake);
  const fakeUrl = `http://127.0.0.1:${fakePort}`;
  for (const kind of TARGETS) {
    log(`starting ${kind} under callgrind ...`);
    const target = await startTarget(kind, fakeUrl);
    const pool = new Pool(target.origin, { connections: CONNECTIONS, pipelining: 1 });
    let instrumented = false;
    for (const scenario of SCENARIOS.filter((s) => ONLY.has(s.name))) {
      // The production target takes the bare scenarios with its own key and settings.
      const call = scenario.call(kind === 'production' ? { ...target, kind: 'ours' } : target, fakeUrl);
      if (!call) continue;
      log(`${kind} ${scenario.name}: ${WARMUP} warm-up requests`);
      await drive(pool, call, Boolean(scenario.stream), WARMUP);
      if (!instrumented) {
        callgrindControl(target, '-i', 'on');
        instrumented = true;
        await drive(pool, call, Boolean(scenario.stream), Math.min(WARMUP, 200));
      }
      if (target.idleWorkPerS === undefined && IDLE_S > 0) {
        // What the target does by the clock with no request (NO_CLOCK_WORK should leave next to nothing): reported, not subtracted.
        callgrindControl(target, '-z');
        const t0 = Date.now();
        await new Promise((r) => setTimeout(r, IDLE_S * 1000));
        callgrindControl(target, '-d');
        const idleS = (Date.now() - t0) / 1000;
        const { events, file } = await dumpTotal(work, target.prefix, target.svc.pid, ++target.dumps);
        target.idleWorkPerS = kinds(file, events).work / idleS;
        log(
          `${kind} idle: ${Math.round(target.idleWorkPerS).toLocaleString('en-US')} main-thread instructions per second of background work`,
        );
      }
      const rounds = [];
      for (let round = 1; round <= ROUNDS; round++) {
        callgrindControl(target, '-z');
        const t0 = Date.now();
        await drive(pool, call, Boolean(scenario.stream), N);
        callgrindControl(target, '-d');
        const seconds = (Date.now() - t0) / 1000;
        const { total, events, file } = await dumpTotal(work, target.prefix, target.svc.pid, ++target.dumps);
        log(`${kind} ${scenario.name} round ${round}: ${N} requests, ${total} instructions (${seconds.toFixed(1)} s under valgrind)`);
        const k = kinds(file, events);
        const perRequest = (...names) => names.reduce((sum, n) => sum + (k.workEvents[n] ?? 0), 0) / N;
        const sim = SIM
          ? {
              i1: perRequest('I1mr'),
              d1: perRequest('D1mr', 'D1mw'),
              ll: perRequest('ILmr', 'DLmr', 'DLmw'),
              branches: perRequest('Bc', 'Bi'),
              mispredicted: perRequest('Bcm', 'Bim'),
            }
          : undefined;
        rounds.push({
          total: total / N,
          work: k.work / N,
          seconds,
          gc: k.gc / N,
          compiler: k.compiler / N,
          literalRuntime: k.literalRuntime / N,
          sim,
        });
        if (KEEP) {
          const keepDir = join(BENCH, 'results/callgrind');
          mkdirSync(keepDir, { recursive: true });
          copyFileSync(file, join(keepDir, `${kind}-${scenario.name.replace(/\W+/g, '-')}-${round}.callgrind`));
        }
      }
      const pick = (key) => median(rounds.map((x) => x[key]));
      const pickSim = (key) => median(rounds.map((x) => x.sim[key]));
      const sim = SIM
        ? { i1: pickSim('i1'), d1: pickSim('d1'), ll: pickSim('ll'), branches: pickSim('branches'), mispredicted: pickSim('mispredicted') }
        : undefined;
      rows.push({
        target: kind,
        scenario: scenario.name,
        rounds,
        idlePerS: target.idleWorkPerS,
        total: pick('total'),
        work: pick('work'),
        seconds: pick('seconds'),
        gc: pick('gc'),
        compiler: pick('compiler'),
        literalRuntime: pick('literalRuntime'),
        sim,
      });
    }
    await pool.close();
  }
} finally {
  for (const svc of services.reverse()) await svc.stop().catch(() => {});
  await otlp?.close();
  rmSync(work, { recursive: true, force: true });
}

const fmt = (x) => Math.round(x).toLocaleString('en-US');
const ratio = (a, b) => (b ? (a / b).toFixed(2) + '×' : '—');
const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim()
  ? ' + uncommitted changes'
  : '';
const lines = [
  `## Instructions per request — ${new Date().toISOString()} (commit ${commit}${dirty}${env.BENCH_INSTR_DIST ? `; ours built in ${env.BENCH_INSTR_DIST}` : ''})`,
  '',
  `valgrind --tool=callgrind, node ${process.version} ${V8_ARGS.join(' ') || '(V8 helper threads on)'}; ${ROUNDS} round(s) of ${N} requests after ${WARMUP} warm-up, ${CONNECTIONS} concurrent;`,
  'every thread of the gateway process counted; medians over the rounds. "work": the process without the GC and the compiler (the main thread, and the',
  'request log\'s thread when on); "GC": the collector wherever it ran; "compiler": TurboFan (and Sparkplug batches); the gateway\'s clock-driven jobs are',
  'set to every 10 minutes, so none runs in a round ("idle / s": what the target still did per second with no request, before the rounds);',
  "\"literal runtime\": the part of work in V8's runtime defining object literals' computed keys (Node's nextTick in a slow state: compare work net of it).",
  '',
  '| Scenario | Target | total / request | × floor | work / request | × floor | GC / request | compiler / request | literal runtime / request | round s | idle / s | rounds (work / request) |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
];
for (const r of rows) {
  const f = rows.find((x) => x.target === 'floor' && x.scenario === r.scenario);
  lines.push(
    `| ${r.scenario} | ${r.target} | ${fmt(r.total)} | ${ratio(r.total, f?.total)} | ${fmt(r.work)} | ${ratio(r.work, f?.work)} | ${fmt(r.gc)} | ${fmt(r.compiler)} | ${fmt(r.literalRuntime)} | ${r.seconds.toFixed(0)} | ${r.idlePerS === undefined ? '—' : fmt(r.idlePerS)} | ${r.rounds.map((x) => fmt(x.work)).join(', ')} |`,
  );
}
if (SIM) {
  lines.push(
    '',
    "Simulated caches and branch predictors (valgrind's defaults: the host's L1 and last-level cache sizes), the main thread without the GC (timers included), per request (medians):",
    '',
    '| Scenario | Target | I1 misses | × floor | D1 misses | × floor | LL misses | × floor | branches | mispredicted | × floor |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  );
  for (const r of rows) {
    const f = rows.find((x) => x.target === 'floor' && x.scenario === r.scenario)?.sim;
    const s = r.sim;
    lines.push(
      `| ${r.scenario} | ${r.target} | ${fmt(s.i1)} | ${ratio(s.i1, f?.i1)} | ${fmt(s.d1)} | ${ratio(s.d1, f?.d1)} | ${fmt(s.ll)} | ${ratio(s.ll, f?.ll)} | ${fmt(s.branches)} | ${fmt(s.mispredicted)} | ${ratio(s.mispredicted, f?.mispredicted)} |`,
    );
  }
}
const report = lines.join('\n') + '\n';
mkdirSync(join(BENCH, 'results'), { recursive: true });
writeFileSync(join(BENCH, 'results/instructions-latest.md'), report);
process.stdout.write(report);

if (GATE) {
  // The CI gate: work per request of ours over the floor's, each scenario against its limit.
  let failed = false;
  for (const [scenario, limit] of Object.entries(LIMITS)) {
    const ours = rows.find((x) => x.target === 'ours' && x.scenario === scenario);
    const floor = rows.find((x) => x.target === 'floor' && x.scenario === scenario);
    if (!ours || !floor) {
      console.log(`gate ${scenario}: not measured`);
      failed = true;
      continue;
    }
    const r = ours.work / floor.work;
    const ok = r <= limit;
    failed ||= !ok;
    console.log(
      `gate ${scenario}: ours ${fmt(ours.work)} / floor ${fmt(floor.work)} instructions per request = ${r.toFixed(3)}× (limit ${limit}×) ${ok ? 'ok' : 'FAILED'}`,
    );
  }
  process.exit(failed ? 1 : 0);
}

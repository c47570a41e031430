#!/usr/bin/env node
/**
 * What does the gateway add? (`npm run bench:added`): non-streamed chat at fixed request rates (open loop:
 * autocannon's `overallRate`), once against the fake upstream alone and once through our gateway started as
 * `npm start` starts it (SQLite, request log on, default log level), in alternating slices; the added latency
 * is the gateway's percentile minus the upstream's, at each rate. This is how gateway vendors publish their
 * overhead (latency added at N requests per second), so the figures compare with theirs.
 *
 * Settings (environment): BENCH_ADDED_RATES (`1000,5000` requests per second), BENCH_ADDED_S (10 s measured
 * per slice), BENCH_ADDED_WARMUP_S (5 s at the rate before each gateway's first slice), BENCH_ADDED_SLICES (2
 * slices per side and rate, alternating), BENCH_ADDED_CONNECTIONS (64), BENCH_ADDED_ENV (JSON: extra gateway
 * environment, e.g. `{"GATEWAY_REQUEST_LOG":"false"}`). Output: Markdown on stdout and in
 * bench/results/added-latency-latest.md. Not a timed test; `npm test` never runs it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { freePort, machineBusyTicks, startBuiltGateway, startFakeUpstream } from './lib/procs.mjs';
import { summarize } from './lib/stats.mjs';
import { fmtMs } from './lib/report.mjs';
import { CHAT_BODY } from './lib/scenarios.mjs';

const BENCH = dirname(fileURLToPath(import.meta.url));
const env = process.env;
const num = (name, dflt) => (env[name] ? Number(env[name]) : dflt);
const RATES = (env.BENCH_ADDED_RATES ?? '1000,5000').split(',').map(Number);
const SECONDS = num('BENCH_ADDED_S', 10);
const WARMUP_S = num('BENCH_ADDED_WARMUP_S', 5);
const SLICES = num('BENCH_ADDED_SLICES', 2);
const CONNECTIONS = num('BENCH_ADDED_CONNECTIONS', 64);
const adminKey = 'gw-bench-admin-key-0123456789abcdef';
const log = (...a) => console.error('bench:added:', ...a);

/** `seconds` of chat at `rate` requests per second; the latency of every 2xx answer, in ms. */
async function slice(call, rate, seconds) {
  const latencies = [];
  const instance = autocannon({
    url: call.url,
    method: 'POST',
    headers: call.headers,
    body: CHAT_BODY,
    connections: CONNECTIONS,
    overallRate: rate,
    duration: seconds,
    timeout: 10,
  });
  instance.on('response', (_c, status, _b, ms) => {
    if (status >= 200 && status < 300) latencies.push(ms);
  });
  const r = await instance;
  return { latencies, ok: r['2xx'], errors: r.errors + r.timeouts + r.non2xx, seconds: r.duration };
}

const services = [];
const dataDir = mkdtempSync(join(tmpdir(), 'bench-added-'));
const rows = [];
const busy0 = machineBusyTicks();
const t0 = Date.now();
try {
  const fake = await startFakeUpstream();
  services.push(fake.service);
  const fakeUrl = fake.url;
  const port = await freePort();
  const gwEnv = {
    PORT: String(port),
    HOST: '127.0.0.1',
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_ADMIN_KEY: adminKey,
    ...JSON.parse(env.BENCH_ADDED_ENV || '{}'),
  };
  services.push(await startBuiltGateway(port, gwEnv));
  const calls = {
    upstream: { url: `${fakeUrl}/v1/chat/completions`, headers: { 'content-type': 'application/json' } },
    gateway: {
      url: `http://127.0.0.1:${port}/v1/chat/completions`,
      headers: {
        'content-type': 'application/json',
        authorization: 'Bearer sk-bench',
        'x-gateway-api-key': adminKey,
        'x-gateway-provider': 'openai',
        'x-gateway-custom-host': `${fakeUrl}/v1`,
      },
    },
  };
  for (const rate of RATES) {
    log(`${rate} requests/s: ${WARMUP_S} s warm-up each`);
    for (const side of ['upstream', 'gateway']) await slice(calls[side], rate, WARMUP_S);
    const got = { upstream: [], gateway: [] };
    for (let i = 0; i < SLICES; i++) {
      for (const side of i % 2 ? ['gateway', 'upstream'] : ['upstream', 'gateway']) {
        got[side].push(await slice(calls[side], rate, SECONDS));
        log(`${rate}/s ${side} slice ${i + 1}: ${got[side].at(-1).ok} answers`);
      }
    }
    const of = (side) => {
      const all = got[side];
      const s = summarize(all.flatMap((x) => x.latencies));
      const seconds = all.reduce((n, x) => n + x.seconds, 0);
      return { ...s, achieved: all.reduce((n, x) => n + x.ok, 0) / seconds, errors: all.reduce((n, x) => n + x.errors, 0) };
    };
    rows.push({ rate, upstream: of('upstream'), gateway: of('gateway') });
  }
} finally {
  for (const svc of services.reverse()) await svc.stop().catch(() => {});
  rmSync(dataDir, { recursive: true, force: true });
}

const otherCpu = (machineBusyTicks() - busy0) / 100 / ((Date.now() - t0) / 1000);
const lines = [
  `## What the gateway adds — ${new Date().toISOString()}`,
  '',
  `Non-streamed chat at fixed rates (open loop, ${CONNECTIONS} connections), ${SLICES} × ${SECONDS} s per side and rate, alternating; our gateway as \`npm start\` runs it`,
  `(SQLite, request log on${env.BENCH_ADDED_ENV ? `, ${env.BENCH_ADDED_ENV}` : ''}); the machine's ${cpus().length} CPUs were busy ${(otherCpu * 100).toFixed(0)} % of one core on average (load generator, upstream and gateway included).`,
  '',
  '| Rate (req/s) | Achieved: upstream / gateway | Upstream p50 / p99 (ms) | Gateway p50 / p99 (ms) | Added p50 / p99 (ms) | Errors |',
  '| --- | --- | --- | --- | --- | --- |',
  ...rows.map(
    (r) =>
      `| ${r.rate.toLocaleString('en-US')} | ${r.upstream.achieved.toFixed(0)} / ${r.gateway.achieved.toFixed(0)} | ${fmtMs(r.upstream.p50)} / ${fmtMs(r.upstream.p99)} | ${fmtMs(r.gateway.p50)} / ${fmtMs(r.gateway.p99)} | +${fmtMs(r.gateway.p50 - r.upstream.p50)} / +${fmtMs(r.gateway.p99 - r.upstream.p99)} | ${r.upstream.errors + r.gateway.errors} |`,
  ),
];
const report = lines.join('\n') + '\n';
mkdirSync(join(BENCH, 'results'), { recursive: true });
writeFileSync(join(BENCH, 'results/added-latency-latest.md'), report);
process.stdout.write(report);

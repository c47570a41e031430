#!/usr/bin/env node
/**
 * Memory soak (`npm run bench:soak`): our gateway as a user starts it (`node dist/main.js`, request log on,
 * default log level, no V8 flags) on PostgreSQL (a schema of its own, dropped after), non-streamed and streamed
 * chat at a steady rate against the fake upstream, its RSS sampled over time. Writes a chart of RSS over time
 * (`bench/results/soak-pg-<stamp>.svg`) and a Markdown report with the samples (`soak-pg-<stamp>.md`, also
 * `soak-pg-latest.md`/`.svg`), and says whether RSS grew: the peak of the last third of the samples against
 * the peak of the first third (after a warm-up of a tenth of the run), more than 10 % is growth.
 *
 * Settings (environment): BENCH_SOAK_S (1800 s), BENCH_SOAK_RATE (500 requests per second, in all),
 * BENCH_SOAK_STREAM_SHARE (0.5: the share of the requests that stream), BENCH_SOAK_CONNECTIONS (32),
 * BENCH_SOAK_SAMPLE_S (5 s between RSS samples), BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/test),
 * BENCH_SOAK_ENV (JSON: extra gateway environment). Not a timed test; `npm test` never runs it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import pg from 'pg';
import { freePort, startBuiltGateway, startFakeUpstream, statusMb } from './lib/procs.mjs';
import { memoryGrowth } from './lib/stats.mjs';
import { CHAT_BODY, STREAM_BODY } from './lib/scenarios.mjs';

const BENCH = dirname(fileURLToPath(import.meta.url));
const env = process.env;
const num = (name, dflt) => (env[name] ? Number(env[name]) : dflt);
const SECONDS = num('BENCH_SOAK_S', 1800);
const RATE = num('BENCH_SOAK_RATE', 500);
const STREAM_SHARE = num('BENCH_SOAK_STREAM_SHARE', 0.5);
const CONNECTIONS = num('BENCH_SOAK_CONNECTIONS', 32);
const SAMPLE_S = num('BENCH_SOAK_SAMPLE_S', 5);
const PG_URL = env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const adminKey = 'gw-bench-admin-key-0123456789abcdef';
const log = (...a) => console.error('bench:soak:', ...a);

/** A chart of `samples` ({t seconds, rss MB, hwm MB}) as SVG: RSS as a line, the high-water mark dashed. */
function rssChart(samples, title) {
  const W = 800;
  const H = 300;
  const pad = { l: 50, r: 20, t: 30, b: 35 };
  const tMax = Math.max(1, ...samples.map((s) => s.t));
  const yMax = Math.max(1, ...samples.map((s) => Math.max(s.rss, s.hwm))) * 1.1;
  const x = (t) => pad.l + (t / tMax) * (W - pad.l - pad.r);
  const y = (v) => H - pad.b - (v / yMax) * (H - pad.t - pad.b);
  const path = (key) => samples.map((s, i) => `${i ? 'L' : 'M'}${x(s.t).toFixed(1)},${y(s[key]).toFixed(1)}`).join(' ');
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const v = yMax * f;
    return `<line x1="${pad.l}" x2="${W - pad.r}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/><text x="${pad.l - 5}" y="${y(v) + 4}" text-anchor="end" font-size="11">${v.toFixed(0)}</text>`;
  });
  const tTicks = [0, 0.25, 0.5, 0.75, 1].map(
    (f) => `<text x="${x(tMax * f)}" y="${H - pad.b + 15}" text-anchor="middle" font-size="11">${Math.round(tMax * f)} s</text>`,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="${W / 2}" y="18" text-anchor="middle" font-size="13">${title}</text>
${ticks.join('\n')}
${tTicks.join('\n')}
<text x="12" y="${H / 2}" font-size="11" transform="rotate(-90 12 ${H / 2})" text-anchor="middle">MiB</text>
<path d="${path('hwm')}" fill="none" stroke="#c44" stroke-dasharray="4 3"/>
<path d="${path('rss')}" fill="none" stroke="#246" stroke-width="1.5"/>
<text x="${W - pad.r}" y="${pad.t + 12}" text-anchor="end" font-size="11" fill="#246">RSS</text>
<text x="${W - pad.r}" y="${pad.t + 26}" text-anchor="end" font-size="11" fill="#c44">high-water (VmHWM)</text>
</svg>
`;
}

/** One autocannon run at a fixed total rate for the whole soak. */
function load(origin, body, rate, connections) {
  const headers = {
    'content-type': 'application/json',
    authorization: 'Bearer sk-bench',
    'x-gateway-api-key': adminKey,
    'x-gateway-provider': 'openai',
    'x-gateway-custom-host': `${fakeUrl}/v1`,
  };
  return autocannon({
    url: `${origin}/v1/chat/completions`,
    method: 'POST',
    headers,
    body,
    connections,
    overallRate: rate,
    duration: SECONDS,
    timeout: 10,
  });
}

let fakeUrl;
const services = [];
const schema = `bench_soak_${randomBytes(4).toString('hex')}`;
const dataDir = mkdtempSync(join(tmpdir(), 'bench-soak-'));
const samples = [];
let result;
try {
  const fake = await startFakeUpstream();
  services.push(fake.service);
  fakeUrl = fake.url;
  const port = await freePort();
  const gwEnv = {
    PORT: String(port),
    HOST: '127.0.0.1',
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_ADMIN_KEY: adminKey,
    DATABASE_URL: PG_URL,
    DATABASE_SCHEMA: schema,
    GATEWAY_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    ...JSON.parse(env.BENCH_SOAK_ENV || '{}'),
  };
  // As `npm start`: the request log and the log level are the defaults.
  const gw = await startBuiltGateway(port, gwEnv);
  services.push(gw);
  const origin = `http://127.0.0.1:${port}`;
  log(
    `${SECONDS} s at ${RATE} requests/s (${Math.round(STREAM_SHARE * 100)} % streamed), ${CONNECTIONS} connections, PostgreSQL schema ${schema}`,
  );
  const t0 = Date.now();
  const take = () => samples.push({ t: (Date.now() - t0) / 1000, rss: statusMb(gw.pid, 'VmRSS'), hwm: statusMb(gw.pid, 'VmHWM') });
  take();
  const timer = setInterval(take, SAMPLE_S * 1000);
  const streamConnections = Math.max(1, Math.round(CONNECTIONS * STREAM_SHARE));
  const runs = [load(origin, CHAT_BODY, RATE * (1 - STREAM_SHARE), CONNECTIONS - streamConnections)];
  if (STREAM_SHARE > 0) runs.push(load(origin, STREAM_BODY, RATE * STREAM_SHARE, streamConnections));
  result = await Promise.all(runs);
  clearInterval(timer);
  take();
} finally {
  for (const svc of services.reverse()) await svc.stop().catch(() => {});
  const c = new pg.Client({ connectionString: PG_URL });
  await c
    .connect()
    .then(() => c.query(`drop schema if exists ${schema} cascade`))
    .finally(() => c.end())
    .catch((err) => log('schema not dropped:', err.message));
  rmSync(dataDir, { recursive: true, force: true });
}

const after = samples.filter((s) => s.t >= SECONDS / 10).map((s) => s.rss);
const growth = memoryGrowth(after);
const ok = result.reduce((n, r) => n + r['2xx'], 0);
const errors = result.reduce((n, r) => n + r.errors + r.timeouts + r.non2xx, 0);
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const lines = [
  `## Soak — ${new Date().toISOString()}`,
  '',
  `${SECONDS} s at ${RATE} requests/s (${Math.round(STREAM_SHARE * 100)} % streamed), ${CONNECTIONS} connections; PostgreSQL, request log on, default settings.`,
  `Answered: ${ok} (${(ok / SECONDS).toFixed(0)}/s), errors ${errors}. RSS: start ${samples[0].rss.toFixed(0)} MiB, end ${samples.at(-1).rss.toFixed(0)} MiB, high-water ${Math.max(...samples.map((s) => s.hwm)).toFixed(0)} MiB.`,
  `After the warm-up (${(SECONDS / 10).toFixed(0)} s): peak of the first third ${growth.firstPeak.toFixed(0)} MiB, of the last third ${growth.lastPeak.toFixed(0)} MiB (${(growth.change * 100).toFixed(1)} %): ${growth.grows ? '**grows**' : 'flat'}.`,
  '',
  `Chart: soak-pg-${stamp}.svg`,
  '',
  '| t (s) | RSS (MiB) | high-water (MiB) |',
  '| --- | --- | --- |',
  ...samples.map((s) => `| ${s.t.toFixed(0)} | ${s.rss.toFixed(1)} | ${s.hwm.toFixed(1)} |`),
];
const dir = join(BENCH, 'results');
mkdirSync(dir, { recursive: true });
writeFileSync(
  join(dir, `soak-pg-${stamp}.svg`),
  rssChart(samples, `Gateway RSS, ${SECONDS} s at ${RATE} req/s on PostgreSQL, request log on`),
);
writeFileSync(join(dir, `soak-pg-${stamp}.md`), lines.join('\n') + '\n');
copyFileSync(join(dir, `soak-pg-${stamp}.svg`), join(dir, 'soak-pg-latest.svg'));
copyFileSync(join(dir, `soak-pg-${stamp}.md`), join(dir, 'soak-pg-latest.md'));
process.stdout.write(lines.slice(0, 7).join('\n') + '\n');

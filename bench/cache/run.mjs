#!/usr/bin/env node
/**
 * Cache benchmark: latency and throughput of a cache HIT versus a MISS (and versus no cache at all),
 * non-streamed and streamed, with the in-process backend, (BENCH_CACHE_REDIS=1) the Redis backend or
 * (BENCH_CACHE_POSTGRES=1, BENCH_DATABASE_URL) the PostgreSQL backend (a store of its own in a fresh schema, no Redis).
 *
 *   npm run build && node bench/cache/run.mjs
 *
 * Starts a small upstream (OpenAI chat shape, BENCH_UPSTREAM_MS of latency per answer, default 20)
 * and `node dist/main.js`, each as a process of its own. For each case:
 * - probe: BENCH_PROBE_N sequential requests on one connection (after 100 warm-up) → p50 / p99 ms;
 * - load: autocannon, BENCH_CONNECTIONS connections for BENCH_DURATION seconds → requests/s.
 * A MISS uses a new question per request (so it also writes a new entry); a HIT repeats one question.
 * Results: a Markdown table on stdout.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { Pool } from 'undici';

const UPSTREAM_MS = Number(process.env.BENCH_UPSTREAM_MS ?? 20);
const PROBE_N = Number(process.env.BENCH_PROBE_N ?? 1000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const REDIS = process.env.BENCH_CACHE_REDIS === '1' ? (process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379') : undefined;
const PG_URL =
  process.env.BENCH_CACHE_POSTGRES === '1' ? (process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test') : undefined;
const PG_SCHEMA = `gwbench_${Date.now()}`;
const BACKEND = REDIS ? 'redis' : PG_URL ? 'postgres' : 'memory';
const ADMIN_KEY = 'bench-admin-' + Math.random().toString(36).slice(2);

function completion(text) {
  return {
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: 1700000000,
    model: 'gpt-4o-mini',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: `A fixed answer of moderate length to: ${text}`.padEnd(400, '.') },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: 20, completion_tokens: 100, total_tokens: 120 },
  };
}

/** An OpenAI-shaped upstream that answers after UPSTREAM_MS (JSON, or 20 SSE chunks when streamed). */
function startUpstream() {
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw || '{}');
      const text = body.messages?.at(-1)?.content ?? '';
      setTimeout(() => {
        if (!body.stream) {
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end(JSON.stringify(completion(text)));
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const base = { id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1700000000, model: 'gpt-4o-mini' };
        const frames = [{ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }];
        for (let i = 0; i < 18; i++)
          frames.push({ ...base, choices: [{ index: 0, delta: { content: `piece ${i} ` }, finish_reason: null }] });
        frames.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
        res.end(frames.map((f) => `data: ${JSON.stringify(f)}\n\n`).join('') + 'data: [DONE]\n\n');
      }, UPSTREAM_MS);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** A free port on 127.0.0.1 (asked from the OS, then released for the gateway to take). */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = http.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function startGateway(upstreamPort) {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-cache-bench-'));
  const port = await freePort();
  const env = {
    ...process.env,
    PORT: String(port),
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_ADMIN_KEY: ADMIN_KEY,
    LOG_LEVEL: 'error',
    GATEWAY_REQUEST_LOG: 'false',
  };
  if (REDIS) Object.assign(env, { REDIS_URL: REDIS, REDIS_PREFIX: `gwbench:${Date.now()}:` });
  if (PG_URL) Object.assign(env, { DATABASE_URL: PG_URL, DATABASE_SCHEMA: PG_SCHEMA });
  const child = spawn(process.execPath, ['dist/main.js'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(url + '/health')).ok) return { url, child, dataDir, upstreamPort };
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('gateway did not start');
}

let counter = 0;
function request(upstreamPort, cache, question, stream) {
  const config = {
    provider: 'openai',
    api_key: 'sk-bench',
    custom_host: `http://127.0.0.1:${upstreamPort}/v1`,
    ...(cache ? { cache: { mode: 'simple' } } : {}),
  };
  return {
    headers: { 'content-type': 'application/json', 'x-gateway-api-key': ADMIN_KEY, 'x-gateway-config': JSON.stringify(config) },
    body: JSON.stringify({
      model: 'gpt-4o-mini',
      stream,
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: question() },
      ],
    }),
  };
}

const CASES = [
  { name: 'no cache (DISABLED)', cache: false, question: () => 'same question', expect: 'DISABLED' },
  { name: 'MISS (new question each time)', cache: true, question: () => `question ${++counter} ${Math.random()}`, expect: 'MISS' },
  { name: 'HIT (same question)', cache: true, question: () => 'the repeated question', expect: 'HIT' },
];

function pct(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function probe(pool, c, upstreamPort, stream) {
  const times = [];
  for (let i = 0; i < PROBE_N + 100; i++) {
    const { headers, body } = request(upstreamPort, c.cache, c.question, stream);
    const t0 = performance.now();
    const res = await pool.request({ path: '/v1/chat/completions', method: 'POST', headers, body });
    const text = await res.body.text();
    const ms = performance.now() - t0;
    const status = res.headers['x-gateway-cache-status'];
    if (res.statusCode !== 200 || (i >= 100 && status !== c.expect) || (stream && !text.includes('[DONE]')))
      throw new Error(`${c.name}: ${res.statusCode} ${status} ${text.slice(0, 300)}`);
    if (i >= 100) times.push(ms);
  }
  times.sort((a, b) => a - b);
  return { p50: pct(times, 50), p99: pct(times, 99) };
}

async function load(url, c, upstreamPort, stream) {
  const statuses = {};
  const instance = autocannon({
    url: url + '/v1/chat/completions',
    method: 'POST',
    connections: CONNECTIONS,
    duration: DURATION,
    requests: [{ setupRequest: (req) => ({ ...req, ...request(upstreamPort, c.cache, c.question, stream) }) }],
  });
  instance.on('response', (client, code, bytes, ms) => {
    statuses[code] = (statuses[code] ?? 0) + 1;
  });
  const r = await instance;
  return { rps: r.requests.average, non2xx: r.non2xx + r.errors };
}

if (process.argv[2] === '--upstream') {
  const server = await startUpstream();
  process.stdout.write(`listening ${server.address().port}\n`);
  await new Promise(() => {});
}

/** The upstream runs in its own process, so it does not share a CPU with the load generator. */
const upstream = spawn(process.execPath, [new URL(import.meta.url).pathname, '--upstream'], { stdio: ['ignore', 'pipe', 'inherit'] });
const upstreamPort = await new Promise((resolve, reject) => {
  upstream.stdout.once('data', (d) => resolve(Number(String(d).split(' ')[1])));
  upstream.once('exit', () => reject(new Error('upstream exited')));
});
const gw = await startGateway(upstreamPort);
const pool = new Pool(gw.url, { connections: 1 });
const rows = [];
try {
  for (const stream of [false, true]) {
    for (const c of CASES) {
      const p = await probe(pool, c, upstreamPort, stream);
      const l = await load(gw.url, c, upstreamPort, stream);
      rows.push({ mode: stream ? 'stream' : 'json', name: c.name, ...p, ...l });
      process.stderr.write(
        `${stream ? 'stream' : 'json'} ${c.name}: p50 ${p.p50.toFixed(2)} ms, p99 ${p.p99.toFixed(2)} ms, ${l.rps.toFixed(0)} req/s\n`,
      );
    }
  }
} finally {
  await pool.close();
  gw.child.kill('SIGTERM');
  upstream.kill('SIGTERM');
  rmSync(gw.dataDir, { recursive: true, force: true });
  if (PG_URL) {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`drop schema if exists ${PG_SCHEMA} cascade`);
    await client.end();
  }
}

console.log(
  `Backend: ${BACKEND}; upstream latency ${UPSTREAM_MS} ms; probe ${PROBE_N} sequential requests; load ${CONNECTIONS} connections × ${DURATION} s; node ${process.version}\n`,
);
console.log('| answer | case | p50 ms (1 conn) | p99 ms (1 conn) | req/s (' + CONNECTIONS + ' conn) | errors |');
console.log('|---|---|---:|---:|---:|---:|');
for (const r of rows)
  console.log(`| ${r.mode} | ${r.name} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.rps.toFixed(0)} | ${r.non2xx} |`);

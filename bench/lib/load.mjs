/**
 * Load generators: autocannon for plain request/response scenarios (with float latencies recorded from
 * its `response` event), an undici closed-loop client for streams (time to first body byte and to the
 * last), and a sequential one-connection probe for unloaded added latency. Every loop is time-bounded.
 */
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { performance } from 'node:perf_hooks';
import { rowFromAutocannon } from './report.mjs';
import { summarize } from './stats.mjs';

/**
 * Runs autocannon against one URL for `duration` seconds.
 * @returns {Promise<{ rps: number, p50: number, p99: number, requests: number, errors: number, statusCodes: Record<string, number> }>}
 */
export async function runAutocannon({ url, connections, duration, headers, body }) {
  const samples = [];
  const instance = autocannon({ url, connections, duration, method: 'POST', headers, body, timeout: 10 });
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 300) samples.push(responseTime);
  });
  const result = await instance;
  return { ...rowFromAutocannon(result, samples), statusCodes: result.statusCodeStats ?? {} };
}

const DONE = Buffer.from('data: [DONE]');

/** One request read to its end: time to the first body byte and to the last, and whether it is complete. */
async function oneRequest(pool, path, headers, body, expectDone) {
  const t0 = performance.now();
  const res = await pool.request({ path, method: 'POST', headers, body });
  let ttfb = NaN;
  let last;
  for await (const chunk of res.body) {
    if (Number.isNaN(ttfb)) ttfb = performance.now() - t0;
    last = chunk;
  }
  const ttlb = performance.now() - t0;
  const ok = res.statusCode === 200 && last !== undefined && (!expectDone || last.includes(DONE));
  return { ok, ttfb, ttlb };
}

/**
 * Closed-loop streaming load: `connections` workers, each sending one streamed request after the other
 * for `durationS` seconds. A stream counts only when it answered 200 and ended with `data: [DONE]`.
 */
export async function runStreamLoad({ origin, path, headers, body, connections, durationS }) {
  const pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
  const ttfb = [];
  const ttlb = [];
  let errors = 0;
  const start = performance.now();
  const end = start + durationS * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      try {
        const r = await oneRequest(pool, path, headers, body, true);
        if (r.ok) {
          ttfb.push(r.ttfb);
          ttlb.push(r.ttlb);
        } else errors++;
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (performance.now() - start) / 1000;
  await pool.close();
  const a = summarize(ttfb);
  const b = summarize(ttlb);
  return { rps: ttlb.length / elapsed, p50: b.p50, p99: b.p99, ttfbP50: a.p50, ttfbP99: a.p99, requests: ttlb.length, errors };
}

/**
 * `n` requests one after the other on one keep-alive connection (after `warmup` unmeasured ones),
 * stopping early after `maxMs`. Returns latency samples in ms (and first-byte samples for streams).
 */
export async function sequentialProbe({ origin, path, headers, body, n, stream = false, warmup = 200, maxMs = 60_000 }) {
  const pool = new Pool(origin, { connections: 1, pipelining: 1, keepAliveTimeout: 60_000 });
  const total = [];
  const first = [];
  let errors = 0;
  const deadline = performance.now() + maxMs;
  for (let i = 0; i < warmup + n && performance.now() < deadline; i++) {
    try {
      const r = await oneRequest(pool, path, headers, body, stream);
      if (!r.ok) errors++;
      else if (i >= warmup) {
        total.push(r.ttlb);
        first.push(r.ttfb);
      }
    } catch {
      errors++;
    }
  }
  await pool.close();
  return { total, first, errors };
}

#!/usr/bin/env node
/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`): self time by function and by file/package.
 *
 *   node bench/lib/profile-summary.mjs <file.cpuprofile> [top=25]
 *   node bench/lib/profile-summary.mjs --diff <a.cpuprofile> <requests a> <b.cpuprofile> <requests b> [top=40]
 *
 * `--diff` compares two profiles per request (self time of each function divided by the requests each
 * process served, idle time left out), largest increase from a to b first: e.g. the bare and the
 * production instance of one `BENCH_PROFILE=1` run (requests: RPS × (duration + warm-up) + probes).
 */
import { readFileSync } from 'node:fs';

/**
 * Self time per node from the sample timeline, aggregated by function and by file.
 * @param {{ nodes: Array<{ id: number, callFrame: { functionName: string, url: string, lineNumber: number } }>, samples: number[], timeDeltas: number[] }} profile
 */
export function summarizeProfile(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i] ?? 0;
    total += dt;
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + dt);
  }
  const fn = new Map();
  const file = new Map();
  for (const [id, t] of self) {
    const { functionName, url, lineNumber } = byId.get(id).callFrame;
    const where = url ? url.replace(/^file:\/\//, '').replace(/.*\/node_modules\//, 'node_modules/') : '(native)';
    const f = `${functionName || '(anonymous)'} ${where}${url ? `:${lineNumber + 1}` : ''}`;
    fn.set(f, (fn.get(f) ?? 0) + t);
    const bucket = where.startsWith('node_modules/')
      ? where
          .split('/')
          .slice(0, where.split('/')[1].startsWith('@') ? 3 : 2)
          .join('/')
      : where;
    file.set(bucket, (file.get(bucket) ?? 0) + t);
  }
  const top = (m) => [...m].sort((a, b) => b[1] - a[1]).map(([name, us]) => ({ name, ms: us / 1000, share: total ? us / total : 0 }));
  return { totalMs: total / 1000, functions: top(fn), files: top(file) };
}

/** Self microseconds per request by function in b minus a, largest increase first, with both sides' totals. */
export function diffProfiles(a, requestsA, b, requestsB) {
  const perRequest = (s, n) => new Map(s.functions.filter((f) => !f.name.startsWith('(idle)')).map((f) => [f.name, (f.ms * 1000) / n]));
  const A = perRequest(summarizeProfile(a), requestsA);
  const B = perRequest(summarizeProfile(b), requestsB);
  const rows = [...new Set([...A.keys(), ...B.keys()])].map((name) => ({ name, a: A.get(name) ?? 0, b: B.get(name) ?? 0 }));
  rows.sort((x, y) => y.b - y.a - (x.b - x.a));
  const sum = (m) => [...m.values()].reduce((t, v) => t + v, 0);
  return { totalA: sum(A), totalB: sum(B), rows };
}

const isMain = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isMain && process.argv[2] === '--diff') {
  const [pa, na, pb, nb, n = '40'] = process.argv.slice(3);
  if (!pb || !(Number(na) > 0) || !(Number(nb) > 0)) {
    console.error('usage: node bench/lib/profile-summary.mjs --diff <a.cpuprofile> <requests a> <b.cpuprofile> <requests b> [top]');
    process.exit(2);
  }
  const load = (p) => JSON.parse(readFileSync(p, 'utf8'));
  const d = diffProfiles(load(pa), Number(na), load(pb), Number(nb));
  const us = (x) => x.toFixed(2).padStart(8);
  console.log(
    `self µs per request, idle left out: a ${d.totalA.toFixed(1)}, b ${d.totalB.toFixed(1)}\n\n       a        b    b - a  function`,
  );
  for (const r of d.rows.slice(0, Number(n))) console.log(`${us(r.a)} ${us(r.b)} ${us(r.b - r.a)}  ${r.name}`);
} else if (isMain) {
  const [path, n = '25'] = process.argv.slice(2);
  if (!path) {
    console.error('usage: node bench/lib/profile-summary.mjs <file.cpuprofile> [top]');
    process.exit(2);
  }
  const s = summarizeProfile(JSON.parse(readFileSync(path, 'utf8')));
  const pct = (x) => `${(100 * x.share).toFixed(1)}%`.padStart(6);
  console.log(`total ${s.totalMs.toFixed(0)} ms sampled\n\nself time by file / package:`);
  for (const f of s.files.slice(0, Number(n))) console.log(`${pct(f)}  ${f.name}`);
  console.log('\nself time by function:');
  for (const f of s.functions.slice(0, Number(n))) console.log(`${pct(f)}  ${f.name}`);
}

#!/usr/bin/env node
/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`): self time by function and by file/package.
 *
 *   node bench/lib/profile-summary.mjs <file.cpuprofile> [top=25]
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
    const bucket = where.startsWith('node_modules/') ? where.split('/').slice(0, where.split('/')[1].startsWith('@') ? 3 : 2).join('/') : where;
    file.set(bucket, (file.get(bucket) ?? 0) + t);
  }
  const top = (m) => [...m].sort((a, b) => b[1] - a[1]).map(([name, us]) => ({ name, ms: us / 1000, share: total ? us / total : 0 }));
  return { totalMs: total / 1000, functions: top(fn), files: top(file) };
}

const isMain = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isMain) {
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

#!/usr/bin/env node
/**
 * Micro-benchmarks of the gateway's hot-path pieces, on the built JavaScript (`npm run build` first):
 *
 *   node bench/micro/run.mjs [filter]     # BENCH_MICRO_TIME=ms per task (default 500)
 *
 * Prints a Markdown table and writes bench/results/micro-latest.md. A group whose modules are not in
 * dist/ is reported as missing, never faked.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Bench } from 'tinybench';
import { markdownTable } from '../lib/report.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '../..');
const DIST = join(ROOT, 'dist');
const dist = (path) => {
  const file = join(DIST, path);
  if (!existsSync(file)) throw new Error(`dist/${path} is missing (run npm run build)`);
  return import(pathToFileURL(file).href);
};

const GROUPS = readdirSync(HERE)
  .filter((f) => f.endsWith('.mjs') && f !== 'run.mjs')
  .map((f) => f.slice(0, -4))
  .sort();
const filter = process.argv[2];
const TIME = Number(process.env.BENCH_MICRO_TIME ?? 500);
const bench = new Bench({ time: TIME, warmupTime: 100 });
const notes = [];
for (const group of GROUPS) {
  const file = join(HERE, `${group}.mjs`);
  try {
    const mod = await import(pathToFileURL(file).href);
    notes.push(...(await mod.register(bench, dist, ROOT)).map((n) => `${group}: ${n}`));
  } catch (err) {
    notes.push(`${group}: not benched — ${err.message}`);
  }
}
if (filter) bench.tasks.splice(0, bench.tasks.length, ...bench.tasks.filter((t) => t.name.includes(filter)));
await bench.warmup();
await bench.run();

const us = (ms) => (ms * 1000).toFixed(ms * 1000 < 10 ? 2 : 1);
const rows = bench.tasks.map((t) => {
  const r = t.result;
  if (!r || r.error) return [t.name, 'error', r?.error?.message ?? '', '', ''];
  return [t.name, Math.round(r.hz).toLocaleString('en-US'), us(r.mean), us(r.p99), r.samples.length];
});
const md = [
  `# Micro-benchmarks — ${new Date().toISOString()}`,
  `node ${process.version}; at least ${TIME} ms per task; times in microseconds (P99 from tinybench's samples).`,
  markdownTable(['Task', 'ops/s', 'mean µs', 'P99 µs', 'samples'], rows),
  ...(notes.length ? ['Not benched:', notes.map((n) => `- ${n}`).join('\n')] : []),
].join('\n\n');
mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(join(ROOT, 'bench/results/micro-latest.md'), md + '\n');
process.stdout.write(md + '\n');

#!/usr/bin/env node
/**
 * Bytes allocated per request by function, from a profile of `alloc-sampling.mjs` (its file name ends in the
 * number of requests counted during the window):
 *
 *   node bench/lib/alloc-summary.mjs bench/results/alloc/main.js-1234-21145.heapprofile [top=40]
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const [file, top = '40'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/lib/alloc-summary.mjs <file.heapprofile> [top]');
  process.exit(2);
}
const requests = Number(/-(\d+)\.heapprofile$/.exec(basename(file))?.[1] ?? 0) || 1;
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byFunction = new Map();
let total = 0;
const walk = (node) => {
  const f = node.callFrame;
  const where = f.url.replace(/^file:\/\//, '').replace(/.*\/node_modules\//, '');
  const name = `${f.functionName || '(anonymous)'} ${where}${where ? `:${f.lineNumber + 1}` : ''}`;
  total += node.selfSize;
  byFunction.set(name, (byFunction.get(name) ?? 0) + node.selfSize);
  for (const child of node.children) walk(child);
};
walk(profile.head);
console.log(`${requests} requests, ${Math.round(total / requests)} bytes allocated per request (sampled), by function:`);
for (const [name, bytes] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(top)))
  console.log(`${String(Math.round(bytes / requests)).padStart(8)}  ${name}`);

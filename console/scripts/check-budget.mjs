/**
 * The console's JavaScript budget: every built script together, gzipped, stays under 300 kB
 * (docs/console.md). Run after `vite build`; exits non-zero when over.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const BUDGET = 300 * 1024;
const dir = new URL('../dist/assets/', import.meta.url);
let total = 0;
for (const name of readdirSync(dir)) {
  if (!name.endsWith('.js')) continue;
  total += gzipSync(readFileSync(join(dir.pathname, name)), { level: 9 }).length;
}
const kb = (n) => `${(n / 1024).toFixed(1)} kB`;
if (total > BUDGET) {
  console.error(`console JavaScript is ${kb(total)} gzipped: over the ${kb(BUDGET)} budget`);
  process.exit(1);
}
console.log(`console JavaScript: ${kb(total)} gzipped (budget ${kb(BUDGET)})`);

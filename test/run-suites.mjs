#!/usr/bin/env node
/**
 * The test step of `npm test`, after type checks, dependency rules, the formatter check and the build:
 * the main suite (vitest.config.ts) and the deployment suite (test/deploy/vitest.config.ts: container image,
 * Helm chart, rolling upgrade; slow, one file at a time) run side by side as two vitest processes.
 * Arguments are passed to the main suite (e.g. `--reporter=json --outputFile=…`). The deployment suite's
 * output is printed after the main suite's. Exit 0 only when both passed.
 * `GATEWAY_SKIP_DEPLOY_TESTS=1` runs the main suite alone, for a quick local run; CI never sets it.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

/** Runs one vitest process; resolves with its exit code and, when `capture`, its output. */
function run(args, capture) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [vitest, 'run', ...args], { stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let out = '';
    if (capture) {
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
    }
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), out }));
  });
}

const skipDeploy = process.env.GATEWAY_SKIP_DEPLOY_TESTS === '1';
if (skipDeploy && process.env.CI) {
  console.error('GATEWAY_SKIP_DEPLOY_TESTS is not honoured in CI');
  process.exit(1);
}
const deploy = skipDeploy
  ? Promise.resolve({ code: 0, out: 'deployment tests skipped (GATEWAY_SKIP_DEPLOY_TESTS=1)\n' })
  : run(['--config', 'test/deploy/vitest.config.ts'], true);
const main = await run(process.argv.slice(2), false);
const dep = await deploy;
console.log('--- deployment tests (test/deploy) ---');
process.stdout.write(dep.out);
if (dep.code !== 0) console.log(`deployment tests failed (exit ${dep.code})`);
process.exit(main.code !== 0 ? main.code : dep.code);

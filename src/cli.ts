#!/usr/bin/env node
import { buildInfo } from './foundation/lib/build-info.js';

/**
 * The `ai-gateway` command (operations.md §4): `--version` prints `ai-gateway <version> (<commit>)`;
 * `migrate` applies this build's migrations to the configured store under the migration lock and
 * prints what it applied (exit 0, also when nothing was due; the start-up exit codes otherwise);
 * `serve` (or no argument) runs the gateway as `node dist/main.js` does.
 */
async function cli(args: string[]): Promise<number | undefined> {
  const [command] = args;
  if (command === '--version' || command === '-v' || command === 'version') {
    const { version, commit } = buildInfo();
    process.stdout.write(`ai-gateway ${version} (${commit})\n`);
    return 0;
  }
  if (command === 'migrate') return (await import('./migrate-command.js')).migrate();
  if (command === undefined || command === 'serve') {
    await import('./main.js');
    return undefined;
  }
  process.stderr.write(`usage: ai-gateway [serve | migrate | --version]\nunknown command: ${command}\n`);
  return 2;
}

cli(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exit(code);
  },
  (err) => {
    process.stderr.write(`ai-gateway: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  },
);

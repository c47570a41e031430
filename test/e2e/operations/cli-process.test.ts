import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureBuilt } from '../../helpers/processes.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string> };

function run(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string }> {
  ensureBuilt();
  return new Promise((res) => {
    execFile(
      process.execPath,
      [join(ROOT, pkg.bin['ai-gateway']!), ...args],
      { env: { ...process.env, ...env }, cwd: tmpdir() },
      (err, stdout) => res({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout }),
    );
  });
}

describe('the ai-gateway command (operations.md §4)', () => {
  it('--version prints the version and the commit, exit 0', async () => {
    expect(await run(['--version'], { GATEWAY_COMMIT: '0123456789abcdef0123456789abcdef01234567' })).toEqual({
      code: 0,
      stdout: `ai-gateway ${pkg.version} (0123456789abcdef0123456789abcdef01234567)\n`,
    });
    // Without GATEWAY_COMMIT: the checkout's HEAD (or unknown outside one).
    const { stdout } = await run(['--version'], { GATEWAY_COMMIT: '' });
    expect(stdout).toMatch(new RegExp(`^ai-gateway ${pkg.version.replace(/\./g, '\\.')} \\(([0-9a-f]{7,40}|unknown)\\)\\n$`));
  });

  it('migrate applies the migrations, then finds none due; a malformed setting exits 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-cli-'));
    try {
      const first = await run(['migrate'], { GATEWAY_DATA_DIR: dir, DATABASE_URL: '' });
      expect(first.code).toBe(0);
      expect(first.stdout).toContain('0001-core');
      const second = await run(['migrate'], { GATEWAY_DATA_DIR: dir, DATABASE_URL: '' });
      expect(second.code).toBe(0);
      expect(second.stdout).toContain('no migrations due');
      const bad = await run(['migrate'], { GATEWAY_DATA_DIR: dir, GATEWAY_STORE_WAIT_MS: 'never' });
      expect(bad.code).toBe(2);
      expect(bad.stdout).toContain('GATEWAY_STORE_WAIT_MS');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

import { freePort } from './ports.js';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomId } from '../../src/foundation/lib/ids.js';
import { RequestLogThread } from '../../src/infra/store/request-log-worker.js';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(import.meta.dirname, '../..');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** Builds dist/ when it is missing or older than src/ (the test command builds first; this covers single-file runs). */
export function ensureBuilt(): void {
  const main = join(ROOT, 'dist/main.js');
  if (existsSync(main) && statSync(main).mtimeMs >= newestMtime(join(ROOT, 'src')) - 1) return;
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
}

/**
 * The request log's writer thread for a SQLite file, running the built script (dist/): a gateway run from
 * the sources under vitest has no compiled script of its own, so tests of the SQLite store give it this one.
 */
export function builtRequestLogThread(path: string): RequestLogThread {
  ensureBuilt();
  return new RequestLogThread(path, pathToFileURL(join(ROOT, 'dist/infra/store/request-log-thread.js')));
}

export interface GatewayProcess {
  url: string;
  adminKey: string;
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

/** Starts `node dist/main.js` as its own OS process and waits until /health answers. */
export async function spawnGateway(
  env: Record<string, string>,
  opts: {
    /** Reuse this data directory (a restart); it is kept on stop. */ dataDir?: string;
    /** Node options before the script (e.g. `--import`). */ nodeArgs?: string[];
  } = {},
): Promise<GatewayProcess> {
  ensureBuilt();
  const port = await freePort();
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'gw-proc-'));
  const adminKey = env.GATEWAY_ADMIN_KEY ?? 'proc-admin-' + randomId(20);
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), join(ROOT, 'dist/main.js')], {
    cwd: ROOT,
    // Every replica of a test shares one encryption key (required with DATABASE_URL).
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      GATEWAY_RETRY_BASE_MS: '5',
      GATEWAY_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_ADMIN_KEY: adminKey,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  const url = `http://127.0.0.1:${port}`;
  // Generous: a loaded 2-core CI machine running two test workers can take 20 s to start a process.
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gateway exited early:\n${out}`);
    try {
      const r = await fetch(url + '/health');
      if (r.ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`gateway did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    adminKey,
    child,
    output: () => out,
    exited,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs `node dist/main.js` with this environment until it exits (killed after `timeoutMs`): its exit code and output. */
export async function runGatewayToExit(env: Record<string, string>, timeoutMs = 30_000): Promise<{ code: number | null; output: string }> {
  ensureBuilt();
  const port = await freePort();
  const child = spawn(process.execPath, [join(ROOT, 'dist/main.js')], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', PORT: String(port), HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((res) => child.once('exit', (c) => res(c)));
  clearTimeout(timer);
  return { code, output };
}

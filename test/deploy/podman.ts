import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, copyFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The checkout's root. */
export const ROOT = resolve(import.meta.dirname, '../..');
/** The local base image (Debian 12 + Node 20 from npm), kept in podman's storage between runs. */
export const BASE_TAG = 'localhost/ai-gateway-test-base:20-bookworm';
const HARD_NOFILE = execFileSync('bash', ['-c', 'ulimit -Hn']).toString().trim();
/** The limits every podman build and run passes (the sandbox refuses runc's default rlimits). */
export const ULIMITS = ['--ulimit', `nofile=${HARD_NOFILE}:${HARD_NOFILE}`, '--ulimit', 'nproc=4096:4096'];

/** Runs a command; resolves with its exit code, its output (stdout and stderr) and its stdout alone, never rejects. */
export function run(cmd: string, args: string[], timeoutMs = 60_000): Promise<{ code: number; out: string; stdout: string }> {
  return new Promise((res) => {
    execFile(cmd, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      res({ code, out: `${stdout}${stderr}`, stdout });
    });
  });
}

/** Runs a command and throws with its output when it fails; resolves with its stdout. */
export async function must(cmd: string, args: string[], timeoutMs = 60_000): Promise<string> {
  const r = await run(cmd, args, timeoutMs);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.code}):\n${r.out.slice(-4000)}`);
  return r.stdout;
}

/**
 * Fails loudly, naming the reason, when this machine cannot build or run containers (podman missing, or
 * the runtime refusing to start one): the image tests never skip silently.
 */
export async function assertContainersWork(): Promise<void> {
  const which = await run('bash', ['-c', 'command -v podman && command -v runc && command -v debootstrap']);
  if (which.code !== 0)
    throw new Error(
      `this machine cannot build images: podman, runc or debootstrap is missing (.ci/run installs them from Debian: podman runc buildah debootstrap fuse-overlayfs uidmap)\n${which.out}`,
    );
  await must('bash', [join(ROOT, 'test/deploy/build-test-base.sh'), BASE_TAG], 15 * 60_000);
  const probe = await run('podman', [
    '--runtime',
    'runc',
    'run',
    '--rm',
    '--network',
    'host',
    ...ULIMITS,
    BASE_TAG,
    'node',
    '-e',
    'console.log("containers run")',
  ]);
  if (probe.code !== 0 || !probe.out.includes('containers run'))
    throw new Error(`this machine cannot run containers (podman --runtime runc run failed):\n${probe.out}`);
}

/**
 * The build context: `GATEWAY_IMAGE_CONTEXT` when CI staged one (a copy taken right after `npm run build`,
 * so the suite rebuilding dist/ meanwhile cannot tear it), else a copy of this checkout's build output.
 */
export function stageContext(): { dir: string; dispose(): void } {
  const given = process.env.GATEWAY_IMAGE_CONTEXT;
  if (given) return { dir: given, dispose() {} };
  if (!existsSync(join(ROOT, 'dist/cli.js')) || !existsSync(join(ROOT, 'console/dist/index.html')))
    throw new Error('run `npm run build` first: the image copies dist/ and console/dist/');
  const dir = mkdtempSync(join(tmpdir(), 'gw-image-'));
  stageInto(dir);
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Copies what the Dockerfile needs from the checkout into `dir`. */
export function stageInto(dir: string): void {
  for (const f of ['Dockerfile', '.dockerignore', 'package.json', 'package-lock.json']) copyFileSync(join(ROOT, f), join(dir, f));
  mkdirSync(join(dir, 'console'), { recursive: true });
  copyFileSync(join(ROOT, 'console/package.json'), join(dir, 'console/package.json'));
  cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
  cpSync(join(ROOT, 'console/dist'), join(dir, 'console/dist'), { recursive: true });
}

/** The git HEAD of the checkout (the image's GIT_COMMIT). */
export function headCommit(): string {
  return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT }).toString().trim();
}

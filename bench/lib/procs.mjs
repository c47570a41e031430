/**
 * Child processes of a bench run: free ports, CPU pinning with taskset, readiness, RSS sampling.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import net from 'node:net';
import http from 'node:http';

/** True when `taskset` runs and the machine has at least two CPUs. */
export function canPin(cpus) {
  if (cpus < 2) return false;
  const r = spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' });
  return r.status === 0;
}

/** A port free on 127.0.0.1 right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** One GET; resolves with the status code or rejects. */
function probe(url, timeoutMs) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { timeout: timeoutMs, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

/**
 * Spawns a service (pinned to `core` when given and pinning is on) and waits until `readyUrl` answers
 * with any status below 500, at most `timeoutMs`.
 * @returns {Promise<{ name: string, pid: number, proc: import('node:child_process').ChildProcess, output(): string, stop(): Promise<void> }>}
 */
export async function startService({ name, command, args, env, cwd, core, pin, readyUrl, timeoutMs = 30_000 }) {
  const [cmd, argv] = pin && core !== undefined ? ['taskset', ['-c', String(core), command, ...args]] : [command, args];
  // Output goes to a file, not through a pipe: reading a chatty gateway's log would cost the load generator CPU.
  const logDir = mkdtempSync(join(tmpdir(), 'bench-log-'));
  const logFile = join(logDir, 'output.log');
  const fd = openSync(logFile, 'w');
  const proc = spawn(cmd, argv, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const output = () => {
    try {
      return readFileSync(logFile, 'utf8').slice(-3000);
    } catch {
      return '';
    }
  };
  let exited = null;
  proc.once('exit', (code, signal) => (exited = { code, signal }));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited) {
      const text = output();
      rmSync(logDir, { recursive: true, force: true });
      throw new Error(`${name} exited (${exited.code ?? exited.signal}) before it was ready:\n${text}`);
    }
    try {
      const status = await probe(readyUrl, 1000);
      if (status < 500) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      const text = output();
      proc.kill('SIGKILL');
      rmSync(logDir, { recursive: true, force: true });
      throw new Error(`${name} not ready at ${readyUrl} after ${timeoutMs} ms:\n${text}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    name,
    pid: proc.pid,
    proc,
    output,
    stop: () =>
      new Promise((resolve) => {
        const done = () => {
          rmSync(logDir, { recursive: true, force: true });
          resolve();
        };
        if (exited) return done();
        const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
        proc.once('exit', () => {
          clearTimeout(timer);
          done();
        });
        proc.kill('SIGTERM');
      }),
  };
}

/** A `kB` field of /proc/<pid>/status (VmRSS, VmHWM) in MB; NaN when unreadable. */
export function statusMb(pid, field) {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
    if (m) return Number(m[1]) / 1024;
  } catch {
    // not Linux, or the process is gone
  }
  if (field === 'VmRSS') {
    const r = spawnSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' });
    const kb = Number(r.stdout?.trim());
    if (kb > 0) return kb / 1024;
  }
  return NaN;
}

/** Polls VmRSS of `pid` every `intervalMs`; stop() returns the peak and every sample, in MB. */
export function sampleRss(pid, intervalMs = 250) {
  const samples = [];
  const take = () => {
    const v = statusMb(pid, 'VmRSS');
    if (Number.isFinite(v)) samples.push(v);
  };
  take();
  const timer = setInterval(take, intervalMs);
  return {
    samples,
    stop() {
      clearInterval(timer);
      take();
      return { peakMb: samples.length ? Math.max(...samples) : NaN, samples };
    },
  };
}

/** Busy CPU time of the whole machine from /proc/stat, in clock ticks (NaN when unreadable). */
export function machineBusyTicks() {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal ...: busy = all - idle - iowait
    const total = cpu.reduce((a, b) => a + b, 0);
    return total - cpu[3] - (cpu[4] ?? 0);
  } catch {
    return NaN;
  }
}

/** CPU time (user + system) of one process, all its threads, in clock ticks (NaN when unreadable). */
export function processTicks(pid) {
  return statTicks(`/proc/${pid}/stat`);
}

/**
 * CPU time (user + system) of a process's main thread alone, in clock ticks (NaN when unreadable): with the
 * process pinned to one core its other threads (V8's helpers, a worker thread) take turns with it on that core.
 */
export function mainThreadTicks(pid) {
  return statTicks(`/proc/${pid}/task/${pid}/stat`);
}

function statTicks(path) {
  try {
    const stat = readFileSync(path, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return NaN;
  }
}

const BENCH_DIR = dirname(dirname(fileURLToPath(import.meta.url)));

/** Starts `bench/fake-upstream.mjs` on a free loopback port; resolves with the service and its origin. */
export async function startFakeUpstream() {
  const port = await freePort();
  const service = await startService({
    name: 'fake upstream',
    command: process.execPath,
    args: [join(BENCH_DIR, 'fake-upstream.mjs'), String(port)],
    readyUrl: `http://127.0.0.1:${port}/health`,
  });
  return { service, url: `http://127.0.0.1:${port}` };
}

/** Starts the built gateway (`dist/main.js`) as `npm start` runs it, with `env`; ready when `/health` answers on `port`. */
export function startBuiltGateway(port, env) {
  const root = dirname(BENCH_DIR);
  return startService({
    name: 'gateway',
    command: process.execPath,
    args: [join(root, 'dist/main.js')],
    env,
    cwd: root,
    readyUrl: `http://127.0.0.1:${port}/health`,
    timeoutMs: 60_000,
  });
}

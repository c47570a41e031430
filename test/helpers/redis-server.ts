import { execFileSync } from 'node:child_process';

/** Starts a throw-away redis-server of one test (so it can be stopped without touching the shared one) and waits until it answers PING. */
export async function startRedis(port: number): Promise<void> {
  execFileSync('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'yes']);
  for (let i = 0; i < 100; i++) {
    try {
      if (execFileSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).trim() === 'PONG') return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server on port ${port} did not start`);
}

/** Stops it without saving (a Redis outage, as far as the gateway can tell). */
export function stopRedis(port: number): void {
  try {
    execFileSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave'], { stdio: 'ignore' });
  } catch {
    // already gone
  }
}

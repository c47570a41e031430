import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../../helpers/processes.js';
import { freePort } from '../../helpers/ports.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const dataDir = mkdtempSync(join(tmpdir(), 'gw-first-'));
let child: ChildProcess | undefined;

/** `npm start` as a new user runs it: no GATEWAY_ADMIN_KEY, a fresh data directory; resolves once the banner is out. */
async function start(port: number): Promise<string> {
  ensureBuilt();
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    GATEWAY_DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
  };
  for (const name of ['GATEWAY_ADMIN_KEY', 'GATEWAY_ADMIN_EMAIL', 'API_KEY_PREFIX', 'DATABASE_URL', 'REDIS_URL', 'GATEWAY_PUBLIC_URL'])
    delete env[name];
  child = spawn(process.execPath, [join(ROOT, 'dist/main.js')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const deadline = Date.now() + 60_000;
  while (!/Console: \S+(\n[^\n]+)*\n\n/.test(out)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`gateway did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return out;
}

async function stop(): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((r) => child!.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

afterAll(async () => {
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('first start: npm start → open the printed URL → signed in', () => {
  it('prints the console URL, the owner sign-in key and the admin key as plain lines; the sign-in key opens a console session as owner', async () => {
    const port = await freePort();
    const out = await start(port);
    const url = /Console: (\S+)/.exec(out)?.[1];
    expect(url).toBe(`http://127.0.0.1:${port}/console/`);
    const lines = out.split('\n');
    const signIn = lines[lines.findIndex((l) => l.startsWith('Sign in:')) + 2]!.trim();
    const admin = lines[lines.findIndex((l) => l.startsWith('Gateway admin key')) + 1]!.trim();
    expect(signIn).toMatch(/^gw_[A-Za-z0-9]{48}$/);
    expect(admin).toMatch(/^gw_[A-Za-z0-9]{48}$/);
    expect(out).toContain('admin@localhost');
    expect(readFileSync(join(dataDir, 'console-key'), 'utf8').trim()).toBe(signIn);
    expect(statSync(join(dataDir, 'console-key')).mode & 0o077).toBe(0);
    // The JSON log never carries the values.
    for (const line of lines.filter((l) => l.startsWith('{'))) {
      expect(line).not.toContain(signIn);
      expect(line).not.toContain(admin);
    }

    // The admin key is refused by the console login (it is no user's key), as before; the printed sign-in key is accepted.
    const refused = await fetch(`http://127.0.0.1:${port}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: admin }),
    });
    expect(refused.status).toBe(401);
    const login = await fetch(`http://127.0.0.1:${port}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: signIn }),
    });
    expect(login.status).toBe(200);
    const session = (await login.json()) as { user: { email: string; role: string }; workspaces: Array<{ slug: string; role: string }> };
    expect(session.user).toMatchObject({ email: 'admin@localhost', role: 'owner' });
    expect(session.workspaces).toEqual(expect.arrayContaining([expect.objectContaining({ slug: 'default', role: 'admin' })]));
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const users = await fetch(`http://127.0.0.1:${port}/v1/users`, { headers: { cookie } });
    expect(users.status).toBe(200);
    const keys = await fetch(`http://127.0.0.1:${port}/v1/api-keys`, { headers: { 'x-gateway-api-key': admin } });
    expect(keys.status).toBe(200);
    await stop();
  });

  it('a later start prints the console URL only: no key is shown again', async () => {
    const port = await freePort();
    const out = await start(port);
    expect(out).toContain(`Console: http://127.0.0.1:${port}/console/`);
    expect(out).not.toMatch(/gw_[A-Za-z0-9]{48}/);
    expect(out).not.toContain('Sign in:');
    await stop();
  });
});

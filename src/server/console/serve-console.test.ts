import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { CONSOLE_CSP, registerConsole } from './serve-console.js';

/** The static console handler over HTTP (a real listening Fastify app) against a built-like folder. */
describe('console static files', () => {
  let app: FastifyInstance;
  let base: string;
  let root: string;
  const js = `console.log(${JSON.stringify('x'.repeat(2000))});`;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'console-'));
    const dist = join(root, 'dist');
    mkdirSync(join(dist, 'assets'), { recursive: true });
    writeFileSync(join(dist, 'index.html'), '<!doctype html><script type="module" src="/console/assets/index-abc123.js"></script>');
    writeFileSync(join(dist, 'assets', 'index-abc123.js'), js);
    writeFileSync(join(dist, 'assets', 'index-abc123.css'), 'body{color:red}');
    writeFileSync(join(root, 'secret.txt'), 'outside');
    symlinkSync(join(root, 'secret.txt'), join(dist, 'linked.txt'));
    app = Fastify();
    registerConsole(app, dist);
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address() as { port: number };
    base = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    await app?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('redirects /console to /console/ and serves index.html there and for client routes, never cached', async () => {
    const redirect = await fetch(`${base}/console`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('/console/');
    for (const path of ['/console/', '/console/logs', '/console/keys/123?tab=x']) {
      const res = await fetch(base + path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await res.text()).toContain('index-abc123.js');
    }
    expect(CONSOLE_CSP).toContain("default-src 'self'");
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toContain('unsafe-inline');
  });

  it('serves hashed assets with their type, a year of caching, gzip when accepted and 304 for a matching ETag', async () => {
    const res = await fetch(`${base}/console/assets/index-abc123.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('content-encoding')).toBe('gzip');
    const raw = await fetch(`${base}/console/assets/index-abc123.js`, { headers: { 'accept-encoding': 'identity' } });
    expect(raw.headers.get('content-encoding')).toBeNull();
    expect(await raw.text()).toBe(js);
    const zipped = await new Promise<Buffer>((resolve, reject) => {
      import('node:http').then(({ get }) =>
        get(`${base}/console/assets/index-abc123.js`, { headers: { 'accept-encoding': 'gzip' } }, (r) => {
          const parts: Buffer[] = [];
          r.on('data', (c: Buffer) => parts.push(c));
          r.on('end', () => resolve(Buffer.concat(parts)));
        }).on('error', reject),
      );
    });
    expect(gunzipSync(zipped).toString()).toBe(js);
    const css = await fetch(`${base}/console/assets/index-abc123.css`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const etag = raw.headers.get('etag')!;
    const again = await fetch(`${base}/console/assets/index-abc123.js`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });

  it('answers 404 for unknown files and never leaves the folder (traversal, encoded traversal, symlinks)', async () => {
    const paths = [
      '/console/assets/missing.js',
      '/console/../secret.txt',
      '/console/%2e%2e/secret.txt',
      '/console/..%2fsecret.txt',
      '/console/assets/..%2f..%2fsecret.txt',
      '/console/linked.txt',
      '/console/%00.js',
    ];
    for (const path of paths) {
      const res = await fetch(base + path);
      const text = await res.text();
      expect(text, path).not.toContain('outside');
      if (res.status === 200) expect(res.headers.get('content-type'), path).toBe('text/html; charset=utf-8');
      else expect([400, 404], path).toContain(res.status);
    }
    const missing = await fetch(`${base}/console/assets/missing.js`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('not_found');
    expect(missing.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
  });

  it('says how to build the console when it is not built', async () => {
    const empty = Fastify();
    registerConsole(empty, join(root, 'no-such-dist'));
    const res = await empty.inject({ method: 'GET', url: '/console/' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.message).toContain('npm run build');
    await empty.close();
  });
});

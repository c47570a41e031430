import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from './http-client.js';
import { GatewayError } from '../errors/gateway-error.js';
import { StallWatch, type StallWatched } from './stall-watch.js';

/** A local upstream whose answers the tests script per path. */
let server: Server;
let base = '';
const routes = new Map<string, (res: ServerResponse) => void>();
const timers: NodeJS.Timeout[] = [];

beforeAll(async () => {
  server = createServer((req, res) => routes.get(req.url ?? '')?.(res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  routes.set('/silent', () => {});
  routes.set('/stalls-in-body', (res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('first');
  });
  routes.set('/slow-but-steady', (res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    let n = 0;
    const t = setInterval(() => {
      res.write(`${n} `);
      if (++n === 8) {
        clearInterval(t);
        res.end('end');
      }
    }, 40);
    timers.push(t);
  });
});
afterAll(async () => {
  for (const t of timers) clearInterval(t);
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Timeouts of 150 ms watched by the client's interval (every 20 ms), not by undici's timers. */
const http = new HttpClient({ outbound: undefined, headersTimeoutMs: 150, bodyTimeoutMs: 150, stallWatch: { intervalMs: 20, minTimeoutMs: 100 } });
afterAll(() => http.close());

const call = (path: string) => ({ url: `${base}${path}`, method: 'GET' as const, headers: {} });

async function failure(work: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  const error = await work.then(() => undefined, (e: unknown) => e);
  return { error, ms: performance.now() - started };
}

describe("the HTTP client's stall watch (long upstream timeouts without a timer per call)", () => {
  /** The client's watch (private: what it holds is what this test checks). */
  const watch = () => (http as unknown as { stalls: StallWatch }).stalls;

  it('times out a buffered call whose headers do not come: 408 request_timeout, retryable', async () => {
    const pending = failure(http.sendBuffered(call('/silent'), 'openai'));
    // Watched by the client, not by a timer of undici's.
    expect(watch().size).toBe(1);
    const { error, ms } = await pending;
    expect(watch().size).toBe(0);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('request_timeout');
    expect((error as GatewayError).retryable).toBe(true);
    expect(ms).toBeGreaterThanOrEqual(140);
    expect(ms).toBeLessThan(2000);
  });

  it('times out a buffered call whose body stops, and one streamed call read to that point', async () => {
    const buffered = await failure(http.sendBuffered(call('/stalls-in-body'), 'openai'));
    expect((buffered.error as GatewayError).code).toBe('request_timeout');
    const streamed = await http.sendStreamed(call('/stalls-in-body'), 'openai');
    expect(streamed.status).toBe(200);
    const chunks: string[] = [];
    const read = await failure(
      (async () => {
        for await (const chunk of streamed.body) chunks.push(Buffer.from(chunk).toString('utf8'));
      })(),
    );
    expect(chunks.join('')).toBe('first');
    expect((read.error as Error).name).toBe('BodyTimeoutError');
  });

  it('lets a body that keeps coming take longer than the timeout in all (each chunk gives it another 150 ms)', async () => {
    const res = await http.sendBuffered(call('/slow-but-steady'), 'openai');
    expect(res.status).toBe(200);
    expect(res.body.toString('utf8')).toBe('0 1 2 3 4 5 6 7 end');
    // A call leaves the watch the moment it ends.
    expect(watch().size).toBe(0);
  });

  it('leaves short timeouts to undici, and times out by phase', async () => {
    const w = new StallWatch({ intervalMs: 10, minTimeoutMs: 1000 });
    expect(w.takes(999, 5000)).toBe(false);
    expect(w.takes(1000, 1000)).toBe(true);
    const ended: string[] = [];
    const callOf = (name: string, phase: 'headers' | 'body', inMs: number): StallWatched => ({ stallDeadline: performance.now() + inMs, stallPhase: phase, stalled: (err) => ended.push(`${name}:${err.name}`) });
    const late = callOf('late', 'body', 60_000);
    w.add(callOf('headers', 'headers', 0));
    w.add(callOf('body', 'body', 0));
    w.add(late);
    const gone = callOf('gone', 'headers', 0);
    w.add(gone);
    w.delete(gone);
    await new Promise((r) => setTimeout(r, 50));
    expect(ended.sort()).toEqual(['body:BodyTimeoutError', 'headers:HeadersTimeoutError']);
    expect(w.size).toBe(1);
    w.close();
    expect(w.size).toBe(0);
  });
});

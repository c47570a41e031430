import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errors as undiciErrors } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, type UpstreamRequest } from './http-client.js';
import { LazyAbort } from './lazy-abort.js';

/** A local upstream whose answers the tests script per path. */
let server: Server;
let base = '';
const closed: string[] = [];
const routes = new Map<string, (res: ServerResponse) => void>();

beforeAll(async () => {
  server = createServer((req, res) => {
    res.on('close', () => {
      if (!res.writableFinished) closed.push(req.url ?? '');
    });
    routes.get(req.url ?? '')?.(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const http = new HttpClient({ outbound: undefined });
const get = (path: string, signal?: LazyAbort) => http.sendStreamed({ url: `${base}${path}`, method: 'GET', headers: {}, signal });
const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

async function readAll(body: AsyncIterable<Uint8Array>): Promise<{ text: string; reads: number }> {
  let text = '';
  let reads = 0;
  for await (const chunk of body) {
    reads++;
    text += Buffer.from(chunk).toString('utf8');
  }
  return { text, reads };
}

describe('HttpClient.sendStreamed (UpstreamBody)', () => {
  it('yields every byte in order, the chunks of one socket read as one, and ends', async () => {
    routes.set('/burst', (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let i = 0; i < 20; i++) res.write(`data: ${i}\n\n`);
      setTimeout(() => res.end('data: [DONE]\n\n'), 10);
    });
    const res = await get('/burst');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    const { text, reads } = await readAll(res.body);
    expect(text).toBe(`${Array.from({ length: 20 }, (_, i) => `data: ${i}\n\n`).join('')}data: [DONE]\n\n`);
    expect(reads).toBeLessThan(20);
  });

  it('stops reading the socket while the reader is behind, and resumes (a body far above 64 KiB arrives whole)', async () => {
    const piece = 'x'.repeat(16 * 1024);
    let writes = 0;
    routes.set('/large', (res) => {
      res.writeHead(200);
      const pump = () => {
        while (writes < 256) {
          writes++;
          if (!res.write(piece)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    const res = await get('/large');
    await tick();
    // 4 MiB offered; unread, the gateway side takes 64 KiB plus what the sockets buffer, and the server waits for drain.
    expect(writes).toBeLessThan(256);
    const { text } = await readAll(res.body);
    expect(text.length).toBe(256 * piece.length);
  });

  it('leaving the loop early aborts the upstream call', async () => {
    routes.set('/endless', (res) => {
      res.writeHead(200);
      const timer = setInterval(() => res.write('data: more\n\n'), 5);
      res.on('close', () => clearInterval(timer));
    });
    const res = await get('/endless');
    for await (const chunk of res.body) {
      expect(chunk.length).toBeGreaterThan(0);
      break;
    }
    await tick();
    expect(closed).toContain('/endless');
    await expect(res.body.next()).rejects.toThrow();
  });

  it('throws a failure after the headers from the next read (the upstream reset the connection)', async () => {
    routes.set('/reset', (res) => {
      res.writeHead(200);
      res.write('data: 1\n\n');
      setTimeout(() => res.socket?.destroy(), 10);
    });
    const res = await get('/reset');
    await expect(readAll(res.body)).rejects.toThrow();
  });

  it('an abort of the lazy switch ends a read in progress with its reason, and one before the call fails the call', async () => {
    routes.set('/slow', (res) => {
      res.writeHead(200);
      res.write('data: 1\n\n');
    });
    const abort = new LazyAbort();
    const res = await get('/slow', abort);
    const reader = res.body[Symbol.asyncIterator]();
    expect((await reader.next()).done).toBe(false);
    const pending = reader.next();
    const reason = new Error('client closed the connection');
    abort.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await tick();
    expect(closed).toContain('/slow');

    const early = new LazyAbort();
    early.abort(new Error('gone before the call'));
    await expect(get('/slow', early)).rejects.toThrow('gone before the call');
  });

  it('text() reads the rest of an error body', async () => {
    routes.set('/error', (res) => {
      res.writeHead(429, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"slow down"}}');
    });
    const res = await get('/error');
    expect(res.status).toBe(429);
    expect(JSON.parse(await res.body.text())).toEqual({ error: { message: 'slow down' } });
  });

  it('refuses a redirect and reaches nobody for a refused connection', async () => {
    routes.set('/moved', (res) => {
      res.writeHead(302, { location: 'http://elsewhere.example/' });
      res.end();
    });
    await expect(get('/moved')).rejects.toMatchObject({ code: 'provider_error' });
    await expect(http.sendStreamed({ url: 'http://127.0.0.1:1/', method: 'GET', headers: {} })).rejects.toMatchObject({
      code: 'provider_unreachable',
    });
  });
});

describe("HttpClient's upstream timeouts (the handler's own timer, not undici's)", () => {
  const call = (path: string, headersTimeout: number, bodyTimeout: number): UpstreamRequest => ({
    url: `${base}${path}`,
    method: 'GET',
    headers: {},
    headersTimeout,
    bodyTimeout,
  });
  const timeouts = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

  it('times out an upstream that sends no headers, buffered or streamed, as request_timeout', async () => {
    routes.set('/mute', () => {});
    let t = performance.now();
    await expect(http.sendBuffered(call('/mute', 150, 60_000))).rejects.toMatchObject({ code: 'request_timeout' });
    expect(performance.now() - t).toBeLessThan(1_000);
    t = performance.now();
    await expect(http.sendStreamed(call('/mute', 150, 60_000))).rejects.toMatchObject({ code: 'request_timeout' });
    expect(performance.now() - t).toBeLessThan(1_000);
    await tick();
    expect(closed.filter((p) => p === '/mute')).toHaveLength(2);
  });

  it('times out a body that stalls between chunks, even when the headers timeout is longer', async () => {
    routes.set('/stall', (res) => {
      res.writeHead(200);
      res.write('data: 1\n\n');
    });
    const t = performance.now();
    await expect(http.sendBuffered(call('/stall', 10_000, 150))).rejects.toMatchObject({ code: 'request_timeout' });
    expect(performance.now() - t).toBeLessThan(1_000);
    const res = await http.sendStreamed(call('/stall', 10_000, 150));
    await expect(readAll(res.body)).rejects.toBeInstanceOf(undiciErrors.BodyTimeoutError);
  });

  it('counts the body timeout between chunks, not over the whole body', async () => {
    routes.set('/trickle', (res) => {
      res.writeHead(200);
      let n = 0;
      const timer = setInterval(() => {
        if (++n < 8) res.write(`data: ${n}\n\n`);
        else {
          clearInterval(timer);
          res.end('data: [DONE]\n\n');
        }
      }, 50);
    });
    const buffered = await http.sendBuffered(call('/trickle', 150, 150));
    expect(buffered.body.toString()).toMatch(/data: 7\n\ndata: \[DONE\]\n\n$/);
    const streamed = await http.sendStreamed(call('/trickle', 150, 150));
    expect((await readAll(streamed.body)).text).toMatch(/data: 7\n\ndata: \[DONE\]\n\n$/);
  });

  it('does not time out a body while the reader holds the socket paused', async () => {
    const piece = 'y'.repeat(32 * 1024);
    routes.set('/held', (res) => {
      res.writeHead(200);
      for (let i = 0; i < 8; i++) res.write(piece);
      res.end();
    });
    const res = await http.sendStreamed(call('/held', 150, 150));
    const reader = res.body[Symbol.asyncIterator]();
    let bytes = (await reader.next()).value!.length;
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (let r = await reader.next(); !r.done; r = await reader.next()) bytes += r.value.length;
    expect(bytes).toBe(8 * piece.length);
  });

  it('starts the headers timeout when the request is written, not while it waits for a connection', async () => {
    const one = new HttpClient({ outbound: undefined, connectionsPerOrigin: 1 });
    routes.set('/busy', (res) => setTimeout(() => res.end('first'), 300));
    routes.set('/quick', (res) => res.end('second'));
    try {
      const first = one.sendBuffered(call('/busy', 1_000, 1_000));
      const second = one.sendBuffered(call('/quick', 200, 200));
      expect((await first).body.toString()).toBe('first');
      expect((await second).body.toString()).toBe('second');
    } finally {
      await one.close();
    }
  });

  it('leaves no timer behind once a call ended', async () => {
    routes.set('/ok', (res) => res.end('ok'));
    await new Promise((resolve) => setTimeout(resolve, 400)); // the earlier tests' own timers end
    const before = timeouts();
    for (let i = 0; i < 5; i++) await http.sendBuffered(call('/ok', 60_000, 60_000));
    const streamed = await http.sendStreamed(call('/ok', 60_000, 60_000));
    await readAll(streamed.body);
    const muted = http.sendBuffered(call('/mute', 100, 60_000));
    await tick();
    expect(timeouts()).toBe(before + 1);
    await expect(muted).rejects.toMatchObject({ code: 'request_timeout' });
    expect(timeouts()).toBe(before);
  });
});

describe('HttpClient.sendBuffered (a body read whole)', () => {
  const post = (path: string) =>
    http.sendBuffered({ url: `${base}${path}`, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });

  it('gives a body of one read as it came, one of several reads joined in order, an empty one as empty', async () => {
    routes.set('/one-read', (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"answer":"whole"}'));
    routes.set('/many-reads', (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"part":1,');
      setTimeout(() => res.write('"part2":"ü 😀",'), 10);
      setTimeout(() => res.end(`"pad":"${'p'.repeat(70_000)}"}`), 20);
    });
    routes.set('/empty', (res) => res.writeHead(204).end());
    expect((await post('/one-read')).body.toString('utf8')).toBe('{"answer":"whole"}');
    const many = await post('/many-reads');
    expect(JSON.parse(many.body.toString('utf8'))).toEqual({ part: 1, part2: 'ü 😀', pad: 'p'.repeat(70_000) });
    expect((await post('/empty')).body.length).toBe(0);
  });

  it('keeps a body intact while later answers arrive on the same kept-alive connection', async () => {
    routes.set('/n', (res) => res.writeHead(200).end(`{"n":"${'n'.repeat(200)}"}`));
    routes.set('/m', (res) => res.writeHead(200).end(`{"m":"${'m'.repeat(200)}"}`));
    const first = await post('/n');
    const copy = Buffer.from(first.body);
    for (let i = 0; i < 20; i++) await post(i % 2 ? '/n' : '/m');
    expect(first.body.equals(copy)).toBe(true);
  });
});

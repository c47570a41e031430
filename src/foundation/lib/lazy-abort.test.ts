import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventEmitter } from 'node:events';
import { Agent } from 'undici';
import { describe, expect, it } from 'vitest';
import { LazyAbort, signalOf } from './lazy-abort.js';

describe('LazyAbort', () => {
  it('calls registered callbacks once on abort, not unregistered ones, and keeps the reason', () => {
    const a = new LazyAbort();
    const calls: string[] = [];
    a.onAbort(() => calls.push('one'));
    const off = a.onAbort(() => calls.push('two'));
    off();
    const reason = new Error('client closed the connection');
    a.abort(reason);
    a.abort(new Error('second'));
    expect(calls).toEqual(['one']);
    expect(a.aborted).toBe(true);
    expect(a.reason).toBe(reason);
  });

  it('creates a real signal on demand that follows the switch, before or after the abort', () => {
    const before = new LazyAbort();
    const signal = before.signal;
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(before.signal).toBe(signal);
    let fired = 0;
    signal.addEventListener('abort', () => fired++);
    before.abort(new Error('gone'));
    expect(signal.aborted).toBe(true);
    expect(fired).toBe(1);
    const after = new LazyAbort();
    after.abort(new Error('late'));
    expect(signalOf(after).aborted).toBe(true);
    expect((signalOf(after).reason as Error).message).toBe('late');
    const plain = new AbortController().signal;
    expect(signalOf(plain)).toBe(plain);
  });

  it('is the EventEmitter signal undici takes: a streamed call aborts mid-body and before it starts, and its listener is removed', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      // never ends: only the abort finishes the call
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const agent = new Agent();
    try {
      const lazy = new LazyAbort();
      const res = await agent.request({ origin, path: '/', method: 'GET', signal: lazy as unknown as EventEmitter });
      const body = res.body[Symbol.asyncIterator]();
      expect(Buffer.from((await body.next()).value as Uint8Array).toString()).toBe('data: one\n\n');
      const reason = new Error('client closed the connection');
      lazy.abort(reason);
      await expect(body.next()).rejects.toBe(reason);

      const early = new LazyAbort();
      early.abort(new Error('gone before the call'));
      await expect(agent.request({ origin, path: '/', method: 'GET', signal: early as unknown as EventEmitter })).rejects.toThrow(
        'gone before the call',
      );

      // A call that completes unregisters its listener: the switch holds nothing afterwards.
      const done = new LazyAbort();
      const ok = await agent.request({ origin, path: '/', method: 'GET', signal: done as unknown as EventEmitter });
      ok.body.destroy();
      await new Promise((r) => setTimeout(r, 20));
      expect((done as unknown as { listeners?: unknown[] }).listeners ?? []).toHaveLength(0);
    } finally {
      await agent.close().catch(() => {});
      server.closeAllConnections();
      server.close();
    }
  });
});

import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { RequestLogRow } from '../store/repos/request-logs.js';
import { RequestLogWriter, type RequestLogOptions } from './request-log.js';

const row = (id: string) => ({ id }) as RequestLogRow;
const unreachable = () =>
  new GatewayError('store_unavailable', undefined, {
    cause: Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
  });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A writer over an in-memory "store" that is down while `down` is true; records its warn lines. */
function harness(opts: Partial<RequestLogOptions> = {}) {
  const written: string[] = [];
  const lines: Array<{ level: number; msg: string; dropped?: number }> = [];
  const state = { down: false, refuse: new Set<string>(), attempts: 0 };
  const logger = pino({ level: 'info' }, new Writable({ write: (c, _e, cb) => (lines.push(JSON.parse(String(c))), cb()) }));
  let droppedMetric = 0;
  const writer = new RequestLogWriter(
    async (rows) => {
      state.attempts++;
      if (state.down) throw unreachable();
      if (rows.some((r) => state.refuse.has(r.id))) throw Object.assign(new Error('value too long'), { code: '22001' });
      written.push(...rows.map((r) => r.id));
    },
    logger,
    { flushMs: 5, batchSize: 10, retryBaseMs: 10, retryMaxMs: 40, reportEveryMs: 60_000, ...opts },
    (n) => (droppedMetric += n),
  );
  return { writer, written, lines, state, dropped: () => droppedMetric };
}

describe('request log writer', () => {
  it('keeps the rows of an outage in memory and writes them, in order, once the store is back', async () => {
    const h = harness();
    h.state.down = true;
    for (let i = 0; i < 25; i++) h.writer.push(row(`r${i}`));
    await h.writer.flush();
    expect(h.written).toEqual([]);
    expect(h.writer.backlog).toBe(25);
    await sleep(100);
    const attemptsWhileDown = h.state.attempts;
    expect(attemptsWhileDown).toBeGreaterThan(1);
    // Backoff: retries slow down (10, 20, 40, 40 ms…), not one per flush interval.
    expect(attemptsWhileDown).toBeLessThan(10);
    h.state.down = false;
    h.writer.push(row('r25'));
    for (let i = 0; i < 50 && h.written.length < 26; i++) await sleep(10);
    expect(h.written).toEqual(Array.from({ length: 26 }, (_, i) => `r${i}`));
    expect(h.writer.dropped).toBe(0);
    expect(h.writer.backlog).toBe(0);
  });

  it('is bounded while the store stays down: drops the oldest rows, counts them, logs once', async () => {
    const h = harness({ maxRows: 100 });
    h.state.down = true;
    for (let i = 0; i < 1000; i++) h.writer.push(row(`r${i}`));
    await h.writer.flush();
    expect(h.writer.backlog).toBeLessThanOrEqual(100);
    expect(h.writer.dropped).toBe(1000 - h.writer.backlog);
    expect(h.dropped()).toBe(h.writer.dropped);
    expect(h.lines.filter((l) => l.msg === 'request log rows dropped')).toHaveLength(1);
    h.state.down = false;
    await h.writer.flush();
    // The newest rows survived.
    expect(h.written.at(-1)).toBe('r999');
    expect(h.written).toHaveLength(1000 - h.writer.dropped);
  });

  it('drops a row whose body cannot be serialised, counts it and writes the rest; the flush does not throw', async () => {
    const h = harness();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    h.writer.push(row('a'));
    h.writer.push({ ...row('big'), request_body: { n: 1n } });
    h.writer.push({ ...row('loop'), response_body: cyclic });
    h.writer.push(row('d'));
    await expect(h.writer.flush()).resolves.toBeUndefined();
    expect(h.written).toEqual(['a', 'd']);
    expect(h.writer.dropped).toBe(2);
    expect(h.dropped()).toBe(2);
  });

  it('drops only the row the store refuses, not its batch', async () => {
    const h = harness();
    h.state.refuse.add('bad');
    for (const id of ['a', 'bad', 'c']) h.writer.push(row(id));
    await h.writer.flush();
    expect(h.written).toEqual(['a', 'c']);
    expect(h.writer.dropped).toBe(1);
  });

  it('leaves the rows that arrive during a write for the timer or a full batch, so batches stay large', async () => {
    const sizes: number[] = [];
    const writer = new RequestLogWriter(
      async (rows) => {
        sizes.push(rows.length);
        await sleep(20);
      },
      pino({ level: 'silent' }),
      { flushMs: 60_000, batchSize: 10 },
    );
    for (let i = 0; i < 10; i++) writer.push(row(`a${i}`));
    // The tenth row started a write; these arrive while it runs.
    for (let i = 0; i < 4; i++) writer.push(row(`b${i}`));
    await sleep(80);
    expect(sizes).toEqual([10]);
    expect(writer.backlog).toBe(4);
    for (let i = 0; i < 25; i++) writer.push(row(`c${i}`));
    await sleep(120);
    // 29 queued: full batches are written as they fill, during a write too; the nine left wait.
    expect(sizes).toEqual([10, 10, 10]);
    expect(writer.backlog).toBe(9);
    await writer.flush();
    expect(sizes).toEqual([10, 10, 10, 9]);
    expect(writer.backlog).toBe(0);
  });
});

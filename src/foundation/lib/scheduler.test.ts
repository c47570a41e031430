import { describe, expect, it } from 'vitest';
import { Scheduler, inBatches } from './scheduler.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Scheduler', () => {
  it('runs each job repeatedly, never overlapping itself, and stops (waiting for a run in progress)', async () => {
    const errors: string[] = [];
    const s = new Scheduler((job) => errors.push(job));
    let runs = 0;
    let active = 0;
    let overlapped = false;
    s.add({
      name: 'slow',
      everyMs: 5,
      async run() {
        active++;
        if (active > 1) overlapped = true;
        await sleep(20);
        runs++;
        active--;
      },
    });
    s.start();
    await sleep(150);
    await s.stop();
    const after = runs;
    expect(after).toBeGreaterThanOrEqual(2);
    expect(overlapped).toBe(false);
    expect(active).toBe(0);
    await sleep(50);
    expect(runs).toBe(after);
    expect(errors).toEqual([]);
  });

  it('a failing run is reported and the job keeps its schedule', async () => {
    const errors: string[] = [];
    const s = new Scheduler((job, err) => errors.push(`${job}: ${(err as Error).message}`));
    let calls = 0;
    s.add({
      name: 'flaky',
      everyMs: 5,
      run: async () => {
        calls++;
        throw new Error('boom');
      },
    });
    s.start();
    await sleep(80);
    await s.stop();
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(errors[0]).toBe('flaky: boom');
  });

  it('refuses a job without a positive interval', () => {
    expect(() => new Scheduler(() => {}).add({ name: 'x', everyMs: 0, run: async () => {} })).toThrow(/positive/);
  });
});

describe('inBatches', () => {
  it('runs batches until one is short or the budget is spent, yielding between them, and answers the budget left', async () => {
    const sizes = [10, 10, 4, 10];
    let runs = 0;
    expect(await inBatches(async () => sizes[runs++]!, 10, 5)).toBe(2);
    expect(runs).toBe(3);
    runs = 0;
    expect(await inBatches(async () => sizes[runs++]!, 10, 2)).toBe(0);
    expect(runs).toBe(2);
    runs = 0;
    expect(await inBatches(async () => sizes[runs++]!, 10, 0)).toBe(0);
    expect(runs).toBe(0);
    // Between two batches the event loop turns: an immediate queued during the first runs before the second.
    const order: string[] = [];
    await inBatches(
      async () => {
        order.push('batch');
        if (order.length === 1) setImmediate(() => order.push('immediate'));
        return 10;
      },
      10,
      2,
    );
    expect(order).toEqual(['batch', 'immediate', 'batch']);
  });
});

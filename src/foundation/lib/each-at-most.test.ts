import { describe, expect, it } from 'vitest';
import { eachAtMost } from './each-at-most.js';

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

describe('eachAtMost', () => {
  it('runs every item once, never more than the limit at a time, starting them in order', async () => {
    const started: number[] = [];
    let running = 0;
    let most = 0;
    await eachAtMost([...Array(23).keys()], 4, async (item, index) => {
      expect(index).toBe(item);
      started.push(item);
      most = Math.max(most, ++running);
      await tick();
      running--;
    });
    expect(started).toEqual([...Array(23).keys()]);
    expect(most).toBe(4);
  });

  it('takes a limit below one as one, and an empty list as done', async () => {
    let running = 0;
    let most = 0;
    await eachAtMost([1, 2, 3], 0, async () => {
      most = Math.max(most, ++running);
      await tick();
      running--;
    });
    expect(most).toBe(1);
    await expect(eachAtMost([], 4, async () => Promise.reject(new Error('never')))).resolves.toBeUndefined();
  });

  it('rejects with the first failure once the calls under way finished', async () => {
    const done: number[] = [];
    await expect(
      eachAtMost([0, 1, 2, 3], 2, async (item) => {
        await tick();
        if (item === 1) throw new Error('item 1 failed');
        done.push(item);
      }),
    ).rejects.toThrow('item 1 failed');
    expect(done).toContain(0);
  });
});

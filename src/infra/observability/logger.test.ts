import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';

function capture(warnIntervalMs: number) {
  const lines: Array<{ level: number; msg: string; suppressed?: number; component?: string }> = [];
  const destination = new Writable({ write: (c, _e, cb) => (lines.push(JSON.parse(String(c))), cb()) });
  return { lines, logger: createLogger('info', { destination, warnIntervalMs }) };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('logger warning throttle', () => {
  it('lets one warning per kind per interval through, then one line with the count of the suppressed ones', async () => {
    const { lines, logger } = capture(100);
    for (let i = 0; i < 1000; i++) logger.warn({ component: 'cache', i }, 'cache read failed');
    for (let i = 0; i < 10; i++) logger.child({ component: 'x' }).warn('redis unreachable');
    for (let i = 0; i < 3; i++) logger.info('not throttled');
    for (let i = 0; i < 2; i++) logger.error('errors are not throttled');
    expect(lines.filter((l) => l.msg === 'cache read failed')).toHaveLength(1);
    expect(lines.filter((l) => l.msg === 'redis unreachable')).toHaveLength(1);
    expect(lines.filter((l) => l.msg === 'not throttled')).toHaveLength(3);
    expect(lines.filter((l) => l.msg === 'errors are not throttled')).toHaveLength(2);
    await sleep(160);
    const cache = lines.filter((l) => l.msg === 'cache read failed');
    expect(cache).toHaveLength(2);
    expect(cache[1]).toMatchObject({ level: 40, suppressed: 999, component: 'cache' });
    expect(lines.filter((l) => l.msg === 'redis unreachable')[1]).toMatchObject({ suppressed: 9, component: 'x' });
    // Quiet for a whole interval: the next warning of the kind passes at once.
    await sleep(250);
    logger.warn('cache read failed');
    expect(lines.filter((l) => l.msg === 'cache read failed')).toHaveLength(3);
  });

  it('is off with an interval of 0', () => {
    const { lines, logger } = capture(0);
    for (let i = 0; i < 5; i++) logger.warn('same');
    expect(lines).toHaveLength(5);
  });
});

import { describe, expect, it } from 'vitest';
import { Counter, Histogram, Registry } from 'prom-client';
import { LeanCounter, LeanHistogram } from './lean-metrics.js';

const BUCKETS = [0.001, 0.01, 0.1, 1, 10];
const NAMES = ['provider', 'status'] as const;

describe('lean metrics', () => {
  it('render exactly as prom-client renders the same observations', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const lh = new LeanHistogram('x_seconds', 'Help "x"\nline', NAMES, BUCKETS, ours);
    const lc = new LeanCounter('x_total', 'Counted.', NAMES, ours);
    const ph = new Histogram({ name: 'x_seconds', help: 'Help "x"\nline', labelNames: NAMES, buckets: BUCKETS, registers: [theirs] });
    const pc = new Counter({ name: 'x_total', help: 'Counted.', labelNames: NAMES, registers: [theirs] });
    const a = { provider: 'openai', status: '200' };
    const b = { provider: 'we"ird\\name', status: '500' };
    const values = [0, 0.001, 0.0011, 0.5, 10, 11, 3];
    for (const [i, v] of values.entries()) {
      // The same object again (the hot path), and an equal object (keyed by its values).
      const labels = i % 2 ? a : { ...(i % 3 ? a : b) };
      lh.observe(labels, v);
      ph.observe(labels, v);
      lc.inc(labels, v);
      pc.inc(labels, v);
    }
    lc.inc(b);
    pc.inc(b);
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it('refuses what prom-client refuses: a value that is not a finite number, a negative increment', () => {
    const r = new Registry();
    const h = new LeanHistogram('y_seconds', 'y', NAMES, BUCKETS, r);
    const c = new LeanCounter('y_total', 'y', NAMES, r);
    const labels = { provider: 'p', status: '200' };
    expect(() => h.observe(labels, Number.NaN)).toThrow(TypeError);
    expect(() => c.inc(labels, Number.POSITIVE_INFINITY)).toThrow(TypeError);
    expect(() => c.inc(labels, -1)).toThrow();
  });

  it('remembers at most 4,096 label objects by identity, whatever callers pass', async () => {
    const r = new Registry();
    const c = new LeanCounter('z_total', 'z', NAMES, r);
    for (let i = 0; i < 10_000; i++) c.inc({ provider: 'p', status: '200' });
    expect(await r.metrics()).toContain('z_total{provider="p",status="200"} 10000');
  });
});

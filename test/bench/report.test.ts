import { describe, expect, it } from 'vitest';
import { memoryGrowth, percentile, summarize } from '../../bench/lib/stats.mjs';
import { evaluateTargets, fmtAdded, fmtMs, fmtRatio, fmtRps, markdownTable, renderReport, rowFromAutocannon, type Report } from '../../bench/lib/report.mjs';

describe('percentile (nearest rank)', () => {
  const sorted = Array.from({ length: 100 }, (_, i) => i + 1);

  it('picks the smallest sample with p% at or below it', () => {
    expect(percentile(sorted, 50)).toBe(50);
    expect(percentile(sorted, 99)).toBe(99);
    expect(percentile(sorted, 100)).toBe(100);
    expect(percentile([1, 2, 3], 50)).toBe(2);
    expect(percentile([10], 99)).toBe(10);
  });

  it('is NaN without samples and refuses p outside (0, 100]', () => {
    expect(percentile([], 50)).toBeNaN();
    expect(() => percentile(sorted, 0)).toThrow(RangeError);
    expect(() => percentile(sorted, 101)).toThrow(RangeError);
  });

  it('summarize sorts numerically (not as strings) and keeps the input intact', () => {
    const input = [10, 9, 100, 2, 1];
    const s = summarize(input);
    expect(s).toMatchObject({ count: 5, min: 1, max: 100, p50: 9, p99: 100 });
    expect(s.mean).toBeCloseTo(24.4);
    expect(input).toEqual([10, 9, 100, 2, 1]);
  });
});

describe('rowFromAutocannon', () => {
  const result = { duration: 10.02, '2xx': 120_240, non2xx: 3, errors: 1, timeouts: 2, latency: { p50: 2, p99: 9 } };

  it('counts 2xx answers over the measured duration and sums every failure', () => {
    const row = rowFromAutocannon(result);
    expect(row.rps).toBeCloseTo(12_000, 0);
    expect(row.requests).toBe(120_240);
    expect(row.errors).toBe(6);
    expect(row.p50).toBe(2);
    expect(row.p99).toBe(9);
  });

  it('prefers float samples over autocannon’s whole-millisecond histogram', () => {
    const samples = Array.from({ length: 1000 }, (_, i) => 0.5 + i / 1000);
    const row = rowFromAutocannon(result, samples);
    expect(row.p50).toBeCloseTo(0.999, 3);
    expect(row.p99).toBeCloseTo(1.489, 3);
  });
});

describe('formatting', () => {
  it('formats ratios, milliseconds, added latency and RPS', () => {
    expect(fmtRatio(9600, 1200)).toBe('8.00×');
    expect(fmtRatio(12_500, 1200)).toBe('10.4×');
    expect(fmtRatio(1, 0)).toBe('—');
    expect(fmtRatio(undefined, 5)).toBe('—');
    expect(fmtMs(0.2134)).toBe('0.213');
    expect(fmtMs(4.356)).toBe('4.36');
    expect(fmtMs(25.04)).toBe('25.0');
    expect(fmtMs(Number.NaN)).toBe('—');
    expect(fmtAdded(0.31, 0.11)).toBe('+0.200');
    expect(fmtAdded(0.1, 0.2)).toBe('-0.100');
    expect(fmtRps(35_123.6)).toBe('35,124');
  });

  it('builds a Markdown table and escapes pipes', () => {
    expect(markdownTable(['a', 'b'], [[1, 'x|y']])).toBe('| a | b |\n| --- | --- |\n| 1 | x\\|y |');
  });
});

describe('report', () => {
  const report: Report = {
    meta: { date: '2026-01-01' },
    load: [
      { scenario: 'chat', conns: 32, target: 'direct', rps: 30_000, p50: 1, p99: 3, errors: 0 },
      { scenario: 'chat', conns: 32, target: 'ours', rps: 10_000, p50: 3, p99: 8, errors: 0, rssPeakMb: 80, gwCpu: 0.985, loadgenCpu: 0.6, cpuUsPerReq: 98.5 },
      { scenario: 'chat', conns: 32, target: 'reference', rps: 1_200, p50: 25, p99: 40, errors: 0, rssPeakMb: 220, gwCpu: 1, cpuUsPerReq: 833 },
      { scenario: 'production', directScenario: 'chat', conns: 32, target: 'ours', rps: 7_000, p50: 4, p99: 9, errors: 0 },
    ],
    probes: [
      { probe: 'chat sequential', target: 'direct', n: 2000, p50: 0.1, p99: 0.3 },
      { probe: 'chat sequential', target: 'ours', n: 2000, p50: 0.3, p99: 0.6 },
      { probe: 'stream TTFB sequential', target: 'direct', n: 2000, p50: 0.12, p99: 0.3 },
      { probe: 'stream TTFB sequential', target: 'ours', n: 2000, p50: 0.5, p99: 0.9 },
      { probe: 'paused stream (300 ms pause)', target: 'ours', n: 3, p50: 1.2, p99: 1.5, last: 301.5 },
    ],
    memory: [{ target: 'ours', hwmMb: 95 }],
    notes: ['a note'],
  };

  it('evaluates the issue targets from the rows', () => {
    const t = Object.fromEntries(evaluateTargets(report).map((v) => [v.name, v]));
    expect(t['chat @32: ours ≥ 8× reference RPS']).toMatchObject({ value: '8.33×', pass: true });
    expect(t['chat @32: ours P99 < 10 ms'].pass).toBe(true);
    expect(Object.values(t).find((v) => v.name.includes('per gateway CPU-second'))).toMatchObject({ value: '8.46×', pass: true });
    expect(t['unloaded added P50 < 0.25 ms']).toMatchObject({ value: '+0.200', pass: true });
    expect(t['unloaded stream TTFB added < 0.5 ms']).toMatchObject({ value: '+0.380', pass: true });
    expect(t['production path @32 ≥ 75% of bare chat RPS']).toMatchObject({ value: '70%', pass: false });
    expect(t['ours RSS high-water mark < 100 MB'].pass).toBe(true);
    expect(t['stream passed through: first byte before the upstream pause ends']).toMatchObject({ value: 'first byte 1.20 ms, last 301.5 ms', pass: true });
  });

  it('shows the floor (Fastify + undici without gateway logic) beside the latency targets when it was measured', () => {
    const withFloor: Report = {
      ...report,
      load: [...report.load, { scenario: 'chat', conns: 32, target: 'floor', rps: 14_000, p50: 2, p99: 6.5, errors: 0 }],
      probes: [...report.probes, { probe: 'chat sequential', target: 'floor', n: 2000, p50: 0.25, p99: 0.5 }, { probe: 'stream TTFB sequential', target: 'floor', n: 2000, p50: 0.4, p99: 0.8 }],
    };
    const t = Object.fromEntries(evaluateTargets(withFloor).map((v) => [v.name, v]));
    expect(t['unloaded added P50 < 0.25 ms']).toMatchObject({ value: '+0.200 (floor +0.150)', pass: true });
    expect(t['unloaded stream TTFB added < 0.5 ms']).toMatchObject({ value: '+0.380 (floor +0.280)', pass: true });
    expect(t['chat @32: ours P99 < 10 ms']).toMatchObject({ value: '8.00 (floor 6.50)', pass: true });
    expect(renderReport(withFloor)).toContain('| chat | 32 | floor | 14,000 | 2.00 | 6.50 | — | — | +1.00 |');
  });

  it('fails the pass-through target when the first byte waits for the pause', () => {
    const buffered: Report = { ...report, probes: [{ probe: 'paused stream (300 ms pause)', target: 'ours', n: 3, p50: 300.4, p99: 301, last: 300.9 }] };
    const t = evaluateTargets(buffered).find((v) => v.name.startsWith('stream passed through'));
    expect(t?.pass).toBe(false);
  });

  it('renders added latency against the direct run of the baseline scenario and the ratio table', () => {
    const md = renderReport(report);
    expect(md).toContain('| chat | 32 | ours | 10,000 | 3.00 | 8.00 | — | — | +2.00 | 0 | 99% | 60% | 98.5 | 80.0 |');
    expect(md).toContain('| production | 32 | ours | 7,000 | 4.00 | 9.00 | — | — | +3.00 | 0 | — | — | — | — |');
    expect(md).toContain('| chat | 32 | 8.33× | 8.46× | 0.12× | 0.20× | — | 0.36× |');
    expect(md).toContain('| production path @32 ≥ 75% of bare chat RPS | 70% | MISS |');
    expect(md).toContain('- a note');
  });

  it('detects memory growth only when the late peak exceeds the early one by the tolerance', () => {
    expect(memoryGrowth([80, 82, 81, 83, 82, 84]).grows).toBe(false);
    expect(memoryGrowth([80, 82, 90, 95, 110, 120]).grows).toBe(true);
    expect(memoryGrowth([80]).enoughSamples).toBe(false);
  });
});

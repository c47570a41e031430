import { describe, expect, it } from 'vitest';
import { memoryGrowth, percentile, summarize } from '../../bench/lib/stats.mjs';
import {
  evaluateIssue25,
  evaluateTargets,
  fmtAdded,
  fmtMs,
  fmtRatio,
  fmtRps,
  markdownTable,
  pairedSummary,
  renderReport,
  rowFromAutocannon,
  type Report,
} from '../../bench/lib/report.mjs';

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
      {
        scenario: 'chat',
        conns: 32,
        target: 'ours',
        rps: 10_000,
        p50: 3,
        p99: 8,
        errors: 0,
        rssPeakMb: 80,
        gwCpu: 0.985,
        loadgenCpu: 0.6,
        cpuUsPerReq: 98.5,
        mainCpuUsPerReq: 91.25,
      },
      {
        scenario: 'chat',
        conns: 32,
        target: 'reference',
        rps: 1_200,
        p50: 25,
        p99: 40,
        errors: 0,
        rssPeakMb: 220,
        gwCpu: 1,
        cpuUsPerReq: 833,
      },
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
    expect(t['stream passed through: first byte before the upstream pause ends']).toMatchObject({
      value: 'first byte 1.20 ms, last 301.5 ms',
      pass: true,
    });
  });

  it('shows the floor (Fastify + undici without gateway logic) beside the latency targets when it was measured', () => {
    const withFloor: Report = {
      ...report,
      load: [...report.load, { scenario: 'chat', conns: 32, target: 'floor', rps: 14_000, p50: 2, p99: 6.5, errors: 0 }],
      probes: [
        ...report.probes,
        { probe: 'chat sequential', target: 'floor', n: 2000, p50: 0.25, p99: 0.5 },
        { probe: 'stream TTFB sequential', target: 'floor', n: 2000, p50: 0.4, p99: 0.8 },
      ],
    };
    const t = Object.fromEntries(evaluateTargets(withFloor).map((v) => [v.name, v]));
    expect(t['unloaded added P50 < 0.25 ms']).toMatchObject({ value: '+0.200 (floor +0.150)', pass: true });
    expect(t['unloaded stream TTFB added < 0.5 ms']).toMatchObject({ value: '+0.380 (floor +0.280)', pass: true });
    expect(t['chat @32: ours P99 < 10 ms']).toMatchObject({ value: '8.00 (floor 6.50)', pass: true });
    expect(renderReport(withFloor)).toContain('| chat | 32 | floor | 14,000 | 2.00 | 6.50 | — | — | +1.00 |');
  });

  it('fails the pass-through target when the first byte waits for the pause', () => {
    const buffered: Report = {
      ...report,
      probes: [{ probe: 'paused stream (300 ms pause)', target: 'ours', n: 3, p50: 300.4, p99: 301, last: 300.9 }],
    };
    const t = evaluateTargets(buffered).find((v) => v.name.startsWith('stream passed through'));
    expect(t?.pass).toBe(false);
  });

  it('renders added latency against the direct run of the baseline scenario and the ratio table', () => {
    const md = renderReport(report);
    expect(md).toContain('| chat | 32 | ours | 10,000 | 3.00 | 8.00 | — | — | +2.00 | 0 | 99% | 60% | 98.5 | 91.3 | 80.0 |');
    expect(md).toContain('| production | 32 | ours | 7,000 | 4.00 | 9.00 | — | — | +3.00 | 0 | — | — | — | — | — |');
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

describe('interleaved pairs and issue 25', () => {
  const slice = (requests: number, seconds: number, cpuS: number) => ({ requests, seconds, cpuS });
  // Round 1: the machine fast (a 10,000 RPS, b 8,000); round 2: slow (a 5,000, b 4,500); round 3: in between.
  const rounds = [
    { a: slice(40_000, 4, 3.6), b: slice(32_000, 4, 3.84) },
    { a: slice(20_000, 4, 3.6), b: slice(18_000, 4, 3.78) },
    { a: slice(28_000, 4, 3.64), b: slice(24_000, 4, 3.84) },
  ];

  it('totals each side over its slices and spreads the per-round ratios', () => {
    const s = pairedSummary(rounds);
    expect(s.a.rps).toBeCloseTo(88_000 / 12, 6);
    expect(s.b.rps).toBeCloseTo(74_000 / 12, 6);
    expect(s.rpsRatio).toBeCloseTo(74 / 88, 6);
    expect(s.a.cpuUsPerReq).toBeCloseTo((10.84 * 1e6) / 88_000, 6);
    expect(s.cpuRatio).toBeCloseTo((11.46 * 1e6) / 74_000 / ((10.84 * 1e6) / 88_000), 6);
    expect(s.perRound?.min).toBeCloseTo(0.8, 6);
    expect(s.perRound?.median).toBeCloseTo(24 / 28, 6);
    expect(s.perRound?.max).toBeCloseTo(0.9, 6);
  });

  it('leaves out a round where a side answered nothing, and has no spread without rounds', () => {
    expect(pairedSummary([...rounds, { a: slice(0, 4, 0.1), b: slice(10, 4, 0.1) }]).perRound?.min).toBeCloseTo(0.8, 6);
    expect(pairedSummary([]).perRound).toBeUndefined();
    expect(pairedSummary([]).rpsRatio).toBeNaN();
  });

  const base: Report = {
    meta: { date: '2026-01-01' },
    load: [
      { scenario: 'chat', conns: 32, target: 'floor', rps: 10_000, p50: 2, p99: 5, errors: 0, cpuUsPerReq: 90 },
      { scenario: 'chat', conns: 32, target: 'ours', rps: 4_000, p50: 5, p99: 20, errors: 0, cpuUsPerReq: 250 },
      { scenario: 'chat', conns: 128, target: 'floor', rps: 10_000, p50: 9, p99: 20, errors: 0, rssPeakMb: 110 },
      { scenario: 'chat', conns: 128, target: 'ours', rps: 4_000, p50: 30, p99: 60, errors: 0, rssPeakMb: 150 },
      { scenario: 'stream', conns: 32, target: 'floor', rps: 8_000, p50: 3, p99: 9, errors: 0 },
      { scenario: 'stream', conns: 32, target: 'ours', rps: 6_400, p50: 5, p99: 12, errors: 0 },
      { scenario: 'stream', conns: 128, target: 'floor', rps: 8_000, p50: 12, p99: 30, errors: 0, rssPeakMb: 100 },
      { scenario: 'stream', conns: 128, target: 'ours', rps: 6_000, p50: 20, p99: 40, errors: 0, rssPeakMb: 160 },
      { scenario: 'production', directScenario: 'chat', conns: 32, target: 'ours', rps: 3_200, p50: 9, p99: 30, errors: 0 },
    ],
    probes: [
      { probe: 'chat sequential', target: 'direct', n: 2000, p50: 0.1, p99: 0.3 },
      { probe: 'chat sequential', target: 'floor', n: 2000, p50: 0.4, p99: 0.8 },
      { probe: 'chat sequential', target: 'ours', n: 2000, p50: 0.45, p99: 0.9 },
    ],
    memory: [],
    notes: [],
  };

  it('judges the targets from the sequential rows when the run has no pairs', () => {
    const t = Object.fromEntries(evaluateIssue25(base).map((v) => [v.name, v]));
    expect(t["chat @32 ≥ 85% of the floor's RPS"]).toMatchObject({ value: '40% (sequential runs)', pass: false });
    expect(t["chat @32 ≤ 1.2× the floor's CPU per request"]).toMatchObject({ value: '2.78×', pass: false });
    expect(t["stream @32 ≥ 75% of the floor's RPS"]).toMatchObject({ value: '80% (sequential runs)', pass: true });
    expect(t["unloaded added P50 ≤ the floor's + 0.1 ms"]).toMatchObject({ value: '+0.350 (floor +0.300)', pass: true });
    expect(t["RSS high-water at 128 connections ≤ 1.5× the floor's"]).toMatchObject({ value: 'stream 1.60×, chat 1.36×', pass: false });
    expect(t['production @32 ≥ 75% of bare chat RPS']).toMatchObject({ value: '80% (sequential runs)', pass: true });
  });

  it('prefers the interleaved pairs, renders them and their verdicts', () => {
    const withPairs: Report = { ...base, paired: [{ name: 'chat @32: ours / floor', sliceS: 4, rounds, summary: pairedSummary(rounds) }] };
    const t = Object.fromEntries(evaluateIssue25(withPairs).map((v) => [v.name, v]));
    expect(t["chat @32 ≥ 85% of the floor's RPS"]).toMatchObject({ value: '84% (interleaved, 3 rounds; per round 80%–90%)', pass: false });
    expect(t["chat @32 ≤ 1.2× the floor's CPU per request"]).toMatchObject({ value: '1.26×', pass: false });
    const md = renderReport(withPairs);
    expect(md).toContain('## Interleaved pairs');
    expect(md).toContain('| chat @32: ours / floor | 3 × 4 s | 7,333 | 6,167 | 84% | 80% / 86% / 90% | 123 | 155 | 1.26× |');
    expect(md).toContain("| chat @32 ≥ 85% of the floor's RPS | 84% (interleaved, 3 rounds; per round 80%–90%) | MISS |");
  });
});

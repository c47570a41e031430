/**
 * Turns measurements into rows and rows into the Markdown report (pure functions, unit-tested in
 * test/bench/report.test.ts).
 */
import { summarize } from './stats.mjs';

/**
 * One table row from an autocannon result. RPS counts 2xx answers only, over the measured duration.
 * When `samples` (float milliseconds of 2xx answers, recorded from autocannon's `response` event) are
 * given, P50/P99 come from them; autocannon's own histogram only holds whole milliseconds.
 * @param {{ duration: number, '2xx': number, non2xx: number, errors: number, timeouts: number, latency: { p50: number, p99: number } }} result
 * @param {ArrayLike<number>} [samples]
 */
export function rowFromAutocannon(result, samples) {
  const ok = result['2xx'];
  const s = samples && samples.length > 0 ? summarize(samples) : undefined;
  return {
    rps: result.duration > 0 ? ok / result.duration : 0,
    p50: s ? s.p50 : result.latency.p50,
    p99: s ? s.p99 : result.latency.p99,
    requests: ok,
    errors: (result.errors ?? 0) + (result.timeouts ?? 0) + (result.non2xx ?? 0),
  };
}

/** Milliseconds with precision that fits the magnitude; `—` when missing. */
export function fmtMs(ms) {
  if (ms === undefined || ms === null || Number.isNaN(ms)) return '—';
  const a = Math.abs(ms);
  if (a < 1) return ms.toFixed(3);
  if (a < 10) return ms.toFixed(2);
  return ms.toFixed(1);
}

/** A signed difference in milliseconds (`+0.180`), `—` when either side is missing. */
export function fmtAdded(value, base) {
  if (!Number.isFinite(value) || !Number.isFinite(base)) return '—';
  const d = value - base;
  return (d >= 0 ? '+' : '') + fmtMs(d);
}

/** Requests per second, rounded, with thousands separators. */
export function fmtRps(rps) {
  if (!Number.isFinite(rps)) return '—';
  return Math.round(rps).toLocaleString('en-US');
}

/** Megabytes with one decimal. */
export function fmtMb(mb) {
  if (!Number.isFinite(mb)) return '—';
  return mb.toFixed(1);
}

/** `ours / ref` as `8.12×` (two decimals below 10, one above); `—` when either is missing or ref is 0. */
export function fmtRatio(ours, ref) {
  if (!Number.isFinite(ours) || !Number.isFinite(ref) || ref === 0) return '—';
  const r = ours / ref;
  return `${r >= 10 ? r.toFixed(1) : r.toFixed(2)}×`;
}

/** A CPU share (1 = one core) as a percentage; `—` when missing. */
export function fmtPct(share) {
  if (!Number.isFinite(share)) return '—';
  return `${Math.round(share * 100)}%`;
}

/** CPU microseconds per request, rounded. */
export function fmtCpuUs(us) {
  if (!Number.isFinite(us)) return '—';
  return us < 100 ? us.toFixed(1) : Math.round(us).toString();
}

/** A Markdown table; cells are stringified, `|` escaped. */
export function markdownTable(headers, rows) {
  const esc = (c) => String(c).replaceAll('|', '\\|');
  const line = (cells) => `| ${cells.map(esc).join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

const key = (scenario, conns, target) => `${scenario}\u0000${conns}\u0000${target}`;

/** The unloaded probe `name` of `target` in a report. */
const probeOf = (report, name, target) => report.probes.find((p) => p.probe === name && p.target === target);

function index(load) {
  const m = new Map();
  for (const r of load) m.set(key(r.scenario, r.conns, r.target), r);
  return m;
}

/**
 * The issue-11 targets evaluated on one run's rows. Each item: name, value shown, pass (true, false,
 * or undefined when the run did not measure it).
 */
export function evaluateTargets(report) {
  const load = index(report.load);
  const get = (s, c, t) => load.get(key(s, c, t));
  const probe = (name, target) => probeOf(report, name, target);
  const out = [];
  const ours32 = get('chat', 32, 'ours');
  const ref32 = get('chat', 32, 'reference');
  out.push({
    name: 'chat @32: ours ≥ 8× reference RPS',
    value: fmtRatio(ours32?.rps, ref32?.rps),
    pass: ours32 && ref32 ? ours32.rps >= 8 * ref32.rps : undefined,
  });
  out.push({
    name: 'chat @32: ours ≥ 8× reference requests per gateway CPU-second (contention-independent view of the same target)',
    value: fmtRatio(ref32?.cpuUsPerReq, ours32?.cpuUsPerReq),
    pass: ours32?.cpuUsPerReq > 0 && ref32?.cpuUsPerReq > 0 ? ref32.cpuUsPerReq >= 8 * ours32.cpuUsPerReq : undefined,
  });
  const floor32 = get('chat', 32, 'floor');
  out.push({
    name: 'chat @32: ours P99 < 10 ms',
    value: floor32 ? `${fmtMs(ours32?.p99)} (floor ${fmtMs(floor32.p99)})` : fmtMs(ours32?.p99),
    pass: ours32 ? ours32.p99 < 10 : undefined,
  });
  const seqOurs = probe('chat sequential', 'ours');
  const seqDirect = probe('chat sequential', 'direct');
  // The floor (Fastify + undici, no gateway logic) shows what the stack alone adds in the same run.
  const withFloor = (value, floor, direct) => (floor && direct ? `${value} (floor ${fmtAdded(floor.p50, direct.p50)})` : value);
  out.push({
    name: 'unloaded added P50 < 0.25 ms',
    value: withFloor(fmtAdded(seqOurs?.p50, seqDirect?.p50), probe('chat sequential', 'floor'), seqDirect),
    pass: seqOurs && seqDirect ? seqOurs.p50 - seqDirect.p50 < 0.25 : undefined,
  });
  const ttfbOurs = probe('stream TTFB sequential', 'ours');
  const ttfbDirect = probe('stream TTFB sequential', 'direct');
  out.push({
    name: 'unloaded stream TTFB added < 0.5 ms',
    value: withFloor(fmtAdded(ttfbOurs?.p50, ttfbDirect?.p50), probe('stream TTFB sequential', 'floor'), ttfbDirect),
    pass: ttfbOurs && ttfbDirect ? ttfbOurs.p50 - ttfbDirect.p50 < 0.5 : undefined,
  });
  const prod = get('production', 32, 'ours');
  out.push({
    name: 'production path @32 ≥ 75% of bare chat RPS',
    value: prod && ours32 ? `${((100 * prod.rps) / ours32.rps).toFixed(0)}%` : '—',
    pass: prod && ours32 ? prod.rps >= 0.75 * ours32.rps : undefined,
  });
  const paused = report.probes.find((p) => p.probe.startsWith('paused stream') && p.target === 'ours');
  out.push({
    name: 'stream passed through: first byte before the upstream pause ends',
    value: paused ? `first byte ${fmtMs(paused.p50)} ms, last ${fmtMs(paused.last)} ms` : '—',
    pass: paused && paused.n > 0 ? paused.p50 < paused.last / 2 : undefined,
  });
  const hwm = report.memory?.find((m) => m.target === 'ours');
  out.push({ name: 'ours RSS high-water mark < 100 MB', value: fmtMb(hwm?.hwmMb), pass: hwm ? hwm.hwmMb < 100 : undefined });
  if (report.soak) {
    out.push({
      name: 'soak: no memory growth',
      value: `${(100 * report.soak.growth.change).toFixed(1)}%`,
      pass: !report.soak.growth.grows,
    });
  }
  return out;
}

/**
 * One interleaved comparison (`bench/run.mjs`, BENCH_PAIRS): slices of load alternating between `a` and `b`
 * (a, b, then b, a, ...), each slice's answered requests, wall seconds and gateway CPU seconds. Totals over
 * all slices, and the spread of the per-round ratios of `b` to `a` (each round's two slices ran back to back,
 * so a machine that speeds up or slows down between rounds moves both).
 * @param {Array<{ a: { requests: number, seconds: number, cpuS: number }, b: { requests: number, seconds: number, cpuS: number } }>} rounds
 */
export function pairedSummary(rounds) {
  const total = (side) => {
    let requests = 0;
    let seconds = 0;
    let cpuS = 0;
    for (const r of rounds) {
      requests += r[side].requests;
      seconds += r[side].seconds;
      cpuS += r[side].cpuS;
    }
    return { rps: seconds > 0 ? requests / seconds : NaN, cpuUsPerReq: requests > 0 ? (cpuS * 1e6) / requests : NaN };
  };
  const a = total('a');
  const b = total('b');
  const perRound = rounds
    .filter((r) => r.a.requests > 0 && r.b.requests > 0)
    .map((r) => r.b.requests / r.b.seconds / (r.a.requests / r.a.seconds))
    .sort((x, y) => x - y);
  return {
    a,
    b,
    rpsRatio: b.rps / a.rps,
    cpuRatio: b.cpuUsPerReq / a.cpuUsPerReq,
    perRound: perRound.length ? { min: perRound[0], median: summarize(perRound).p50, max: perRound[perRound.length - 1] } : undefined,
  };
}

/**
 * Issue 25's targets on one run: the ratios to the floor (and production to bare) from the interleaved pairs
 * when the run has them, else from the load rows; unloaded added P50 and RSS from the probes and load rows.
 */
export function evaluateIssue25(report) {
  const load = index(report.load);
  const get = (s, c, t) => load.get(key(s, c, t));
  const pair = (name) => report.paired?.find((p) => p.name === name);
  const pct = fmtPct;
  const x = (v) => fmtRatio(v, 1);
  const source = (p) =>
    p
      ? ` (interleaved, ${p.rounds.length} rounds; per round ${pct(p.summary.perRound?.min)}–${pct(p.summary.perRound?.max)})`
      : ' (sequential runs)';
  const ratio = (name, scenario, aTarget, bTarget, bScenario = scenario) => {
    const p = pair(name);
    if (p) return { rps: p.summary.rpsRatio, cpu: p.summary.cpuRatio, note: source(p) };
    const a = get(scenario, 32, aTarget);
    const b = get(bScenario, 32, bTarget);
    return { rps: a && b ? b.rps / a.rps : NaN, cpu: a && b ? b.cpuUsPerReq / a.cpuUsPerReq : NaN, note: source(undefined) };
  };
  const out = [];
  const chat = ratio('chat @32: ours / floor', 'chat', 'floor', 'ours');
  out.push({
    name: "chat @32 ≥ 85% of the floor's RPS",
    value: `${pct(chat.rps)}${chat.note}`,
    pass: Number.isFinite(chat.rps) ? chat.rps >= 0.85 : undefined,
  });
  out.push({
    name: "chat @32 ≤ 1.2× the floor's CPU per request",
    value: x(chat.cpu),
    pass: Number.isFinite(chat.cpu) ? chat.cpu <= 1.2 : undefined,
  });
  const stream = ratio('stream @32: ours / floor', 'stream', 'floor', 'ours');
  out.push({
    name: "stream @32 ≥ 75% of the floor's RPS",
    value: `${pct(stream.rps)}${stream.note}`,
    pass: Number.isFinite(stream.rps) ? stream.rps >= 0.75 : undefined,
  });
  const direct = probeOf(report, 'chat sequential', 'direct');
  const ours = probeOf(report, 'chat sequential', 'ours');
  const floor = probeOf(report, 'chat sequential', 'floor');
  out.push({
    name: "unloaded added P50 ≤ the floor's + 0.1 ms",
    value: direct && ours && floor ? `${fmtAdded(ours.p50, direct.p50)} (floor ${fmtAdded(floor.p50, direct.p50)})` : '—',
    pass: direct && ours && floor ? ours.p50 - floor.p50 <= 0.1 : undefined,
  });
  const rss = ['stream', 'chat']
    .map((s) => ({ s, ours: get(s, 128, 'ours')?.rssPeakMb, floor: get(s, 128, 'floor')?.rssPeakMb }))
    .filter((r) => r.ours > 0 && r.floor > 0);
  out.push({
    name: "RSS high-water at 128 connections ≤ 1.5× the floor's",
    value: rss.length ? rss.map((r) => `${r.s} ${fmtRatio(r.ours, r.floor)}`).join(', ') : '—',
    pass: rss.length ? rss.every((r) => r.ours <= 1.5 * r.floor) : undefined,
  });
  const prod = ratio('production @32: production / bare', 'chat', 'ours', 'ours', 'production');
  out.push({
    name: 'production @32 ≥ 75% of bare chat RPS',
    value: `${pct(prod.rps)}${prod.note}`,
    pass: Number.isFinite(prod.rps) ? prod.rps >= 0.75 : undefined,
  });
  return out;
}

const verdict = (pass) => (pass === undefined ? 'not measured' : pass ? 'PASS' : 'MISS');

/**
 * The whole Markdown report of one run.
 * @param {{ meta: Record<string, string|number|boolean>, load: object[], probes: object[], memory: object[], notes: string[], soak?: object }} report
 */
export function renderReport(report) {
  const load = index(report.load);
  const parts = [];
  parts.push(`# Benchmark results — ${report.meta.date}`);
  parts.push(
    Object.entries(report.meta)
      .filter(([k]) => k !== 'date')
      .map(([k, v]) => `- ${k}: ${v}`)
      .join('\n'),
  );

  if (report.load.length > 0) {
    parts.push('## Under load');
    parts.push(
      'P50/P99 are per-request latencies (streams: to the last byte); TTFB is the first body byte of a stream. ' +
        '"+P50" is the added latency over the direct run of the same scenario and connection count. ' +
        "GW CPU is the gateway process's CPU time over the run (100% = its one core busy); below ~90% the gateway was not the bottleneck " +
        "(the load generator's core or other processes were), so its RPS is a lower bound. GW CPU µs/req (CPU time per answered request) does not depend on that. " +
        '"main thread" is the part of it that the event loop\'s thread used; the rest went to V8\'s helper threads (garbage collection, ' +
        "compiling) and, on the production instance with SQLite, the request log's thread. A CPU profile samples the main thread by the clock, " +
        'so it charges the time the pinned core gave to another thread to whatever the main thread was in (bench/README.md, session 24).',
    );
    const rows = report.load.map((r) => {
      const direct = load.get(key(r.directScenario ?? r.scenario, r.conns, 'direct'));
      return [
        r.scenario,
        r.conns,
        r.target,
        fmtRps(r.rps),
        fmtMs(r.p50),
        fmtMs(r.p99),
        fmtMs(r.ttfbP50),
        fmtMs(r.ttfbP99),
        r.target === 'direct' ? '' : fmtAdded(r.p50, direct?.p50),
        r.errors,
        fmtPct(r.gwCpu),
        fmtPct(r.loadgenCpu),
        fmtCpuUs(r.cpuUsPerReq),
        fmtCpuUs(r.mainCpuUsPerReq),
        fmtMb(r.rssPeakMb),
      ];
    });
    parts.push(
      markdownTable(
        [
          'Scenario',
          'Conns',
          'Target',
          'RPS',
          'P50 ms',
          'P99 ms',
          'TTFB P50',
          'TTFB P99',
          '+P50 vs direct',
          'Errors',
          'GW CPU',
          'Loadgen CPU',
          'GW CPU µs/req',
          'main thread µs/req',
          'RSS peak MB',
        ],
        rows,
      ),
    );

    const ratioRows = [];
    for (const r of report.load) {
      if (r.target !== 'ours') continue;
      const ref = load.get(key(r.scenario, r.conns, 'reference'));
      if (!ref) continue;
      ratioRows.push([
        r.scenario,
        r.conns,
        fmtRatio(r.rps, ref.rps),
        fmtRatio(ref.cpuUsPerReq, r.cpuUsPerReq),
        fmtRatio(r.p50, ref.p50),
        fmtRatio(r.p99, ref.p99),
        fmtRatio(r.ttfbP50, ref.ttfbP50),
        fmtRatio(r.rssPeakMb, ref.rssPeakMb),
      ]);
    }
    if (ratioRows.length > 0) {
      parts.push('## Ours / reference');
      parts.push('RPS and requests-per-CPU-second ratios above 1 are better; latency and memory ratios below 1 are better.');
      parts.push(markdownTable(['Scenario', 'Conns', 'RPS', 'Requests per CPU-second', 'P50', 'P99', 'TTFB P50', 'RSS peak'], ratioRows));
    }
  }

  if (report.probes.length > 0) {
    parts.push('## Unloaded (sequential, one connection)');
    const rows = report.probes.map((p) => {
      const direct = report.probes.find((d) => d.probe === p.probe && d.target === 'direct');
      return [
        p.probe,
        p.target,
        p.n,
        fmtMs(p.p50),
        fmtMs(p.p99),
        p.target === 'direct' ? '' : fmtAdded(p.p50, direct?.p50),
        p.target === 'direct' ? '' : fmtAdded(p.p99, direct?.p99),
      ];
    });
    parts.push(markdownTable(['Probe', 'Target', 'n', 'P50 ms', 'P99 ms', 'added P50', 'added P99'], rows));
  }

  if (report.memory?.length > 0) {
    parts.push('## Memory');
    parts.push(
      markdownTable(
        ['Process', 'VmHWM MB (whole run)', 'RSS at end MB'],
        report.memory.map((m) => [m.target, fmtMb(m.hwmMb), fmtMb(m.endMb)]),
      ),
    );
  }

  if (report.soak) {
    const s = report.soak;
    parts.push('## Soak');
    parts.push(
      `${s.target}, ${s.conns} connections, ${s.seconds} s after ${s.warmupS ?? 0} s warm-up, ${fmtRps(s.rps)} RPS, ${s.errors} errors. RSS every ${s.intervalS} s (MB): ${s.samples.map((v) => v.toFixed(0)).join(', ')}. ` +
        `Peak of the first third ${fmtMb(s.growth.firstPeak)} MB, of the last third ${fmtMb(s.growth.lastPeak)} MB: ${s.growth.grows ? 'GROWS' : 'no growth'}.`,
    );
  }

  if (report.paired?.length > 0) {
    parts.push('## Interleaved pairs');
    parts.push(
      'Slices of load alternating between two targets (a, b, then b, a, ...) at 32 connections, so a machine whose speed drifts during the run moves both sides alike. ' +
        "Totals over all slices; the per-round ratio is b/a of each round's two back-to-back slices.",
    );
    const rows = report.paired.map((p) => [
      p.name,
      `${p.rounds.length} × ${p.sliceS} s`,
      fmtRps(p.summary.a.rps),
      fmtRps(p.summary.b.rps),
      fmtPct(p.summary.rpsRatio),
      p.summary.perRound ? [p.summary.perRound.min, p.summary.perRound.median, p.summary.perRound.max].map(fmtPct).join(' / ') : '—',
      fmtCpuUs(p.summary.a.cpuUsPerReq),
      fmtCpuUs(p.summary.b.cpuUsPerReq),
      fmtRatio(p.summary.b.cpuUsPerReq, p.summary.a.cpuUsPerReq),
    ]);
    parts.push(
      markdownTable(
        [
          'Comparison (a / b)',
          'Slices per side',
          'a RPS',
          'b RPS',
          'b / a RPS',
          'per round min / median / max',
          'a µs/req',
          'b µs/req',
          'b / a CPU per request',
        ],
        rows,
      ),
    );
  }

  if (report.load.length > 0 || report.paired?.length > 0) {
    parts.push('## Issue 25 targets');
    parts.push(
      markdownTable(
        ['Target', 'Measured', 'Verdict'],
        evaluateIssue25(report).map((t) => [t.name, t.value, verdict(t.pass)]),
      ),
    );
  }

  const targets = evaluateTargets(report);
  parts.push('## Issue 11 targets');
  parts.push(
    markdownTable(
      ['Target', 'Measured', 'Verdict'],
      targets.map((t) => [t.name, t.value, verdict(t.pass)]),
    ),
  );

  if (report.notes.length > 0) {
    parts.push('## Notes');
    parts.push(report.notes.map((n) => `- ${n}`).join('\n'));
  }
  return parts.join('\n\n') + '\n';
}

export interface AutocannonLike {
  duration: number;
  '2xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
  latency: { p50: number; p99: number };
}
export interface Row {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
}
export interface LoadRow {
  scenario: string;
  directScenario?: string;
  conns: number;
  target: 'direct' | 'ours' | 'reference' | string;
  rps: number;
  p50: number;
  p99: number;
  ttfbP50?: number;
  ttfbP99?: number;
  errors: number;
  rssPeakMb?: number;
  /** Gateway CPU time over the run divided by its duration (1 = one core). */
  gwCpu?: number;
  /** The runner's (load generator's) CPU share over the run. */
  loadgenCpu?: number;
  /** Gateway CPU microseconds per answered request. */
  cpuUsPerReq?: number;
  /** The main thread's part of `cpuUsPerReq`. */
  mainCpuUsPerReq?: number;
}
export interface ProbeRow {
  probe: string;
  target: string;
  n: number;
  p50: number;
  p99: number;
  /** Paused-stream probe: P50 time to the last byte. */
  last?: number;
}
export interface MemoryRow {
  target: string;
  hwmMb: number;
  endMb?: number;
}
export interface SoakResult {
  target: string;
  conns: number;
  seconds: number;
  warmupS?: number;
  intervalS: number;
  rps: number;
  errors: number;
  samples: number[];
  growth: { grows: boolean; firstPeak: number; lastPeak: number; change: number; enoughSamples: boolean };
}
export interface PairSlice {
  requests: number;
  seconds: number;
  cpuS: number;
}
export interface PairedSummary {
  a: { rps: number; cpuUsPerReq: number };
  b: { rps: number; cpuUsPerReq: number };
  rpsRatio: number;
  cpuRatio: number;
  perRound?: { min: number; median: number; max: number };
}
export interface PairedComparison {
  name: string;
  sliceS: number;
  rounds: Array<{ a: PairSlice; b: PairSlice }>;
  summary: PairedSummary;
}
export interface Report {
  meta: Record<string, string | number | boolean>;
  load: LoadRow[];
  probes: ProbeRow[];
  memory: MemoryRow[];
  notes: string[];
  soak?: SoakResult;
  paired?: PairedComparison[];
}
export interface TargetVerdict {
  name: string;
  value: string;
  pass: boolean | undefined;
}
export function rowFromAutocannon(result: AutocannonLike, samples?: ArrayLike<number>): Row;
export function fmtMs(ms: number | undefined | null): string;
export function fmtAdded(value: number | undefined, base: number | undefined): string;
export function fmtRps(rps: number | undefined): string;
export function fmtMb(mb: number | undefined): string;
export function fmtPct(share: number | undefined): string;
export function fmtCpuUs(us: number | undefined): string;
export function fmtRatio(ours: number | undefined, ref: number | undefined): string;
export function markdownTable(headers: string[], rows: Array<Array<string | number>>): string;
export function evaluateTargets(report: Report): TargetVerdict[];
export function pairedSummary(rounds: Array<{ a: PairSlice; b: PairSlice }>): PairedSummary;
export function evaluateIssue25(report: Report): TargetVerdict[];
export function renderReport(report: Report): string;

export interface Summary {
  count: number;
  mean: number;
  min: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}
export interface MemoryGrowth {
  grows: boolean;
  firstPeak: number;
  lastPeak: number;
  change: number;
  enoughSamples: boolean;
}
export function percentile(sorted: ArrayLike<number>, p: number): number;
export function summarize(samples: ArrayLike<number>): Summary;
export function memoryGrowth(rssMb: number[], tolerance?: number): MemoryGrowth;

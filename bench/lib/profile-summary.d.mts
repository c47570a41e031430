export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  samples: number[];
  timeDeltas: number[];
}
export interface ProfileEntry {
  name: string;
  ms: number;
  share: number;
}
export interface ProfileSummary {
  totalMs: number;
  functions: ProfileEntry[];
  files: ProfileEntry[];
}
export interface ProfileDiff {
  totalA: number;
  totalB: number;
  rows: Array<{ name: string; a: number; b: number }>;
}
export function summarizeProfile(profile: CpuProfile): ProfileSummary;
export function diffProfiles(a: CpuProfile, requestsA: number, b: CpuProfile, requestsB: number): ProfileDiff;

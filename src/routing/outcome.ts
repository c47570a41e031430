import type { StreamAnswer } from './stream-answer.js';
import { UNKNOWN_MEMBER, isObject, topLevelMember } from '../foundation/lib/json.js';
import { readCompactUsage } from '../infra/fast/compact-usage.js';
import type { PricingTerms } from '../infra/pricing/price-config.js';

/** Values of `x-gateway-cache-status` (decisions.md). */
export type CacheStatus = 'HIT' | 'SEMANTIC HIT' | 'MISS' | 'REFRESH' | 'DISABLED';

/**
 * A non-streamed answer in the common schema. Holds the exact upstream bytes when they pass through
 * unchanged, or the mapped value; each form is derived from the other only when asked for.
 */
export class JsonAnswer {
  private rawBytes?: Buffer;
  private parsed?: unknown;
  /** Top-level members already read from the bytes (each walk of the bytes reads the whole object). */
  private read?: Map<string, unknown>;

  constructor(init: { raw: Buffer } | { value: unknown }) {
    if ('raw' in init) this.rawBytes = init.raw;
    else this.parsed = init.value;
  }

  /** The answer as a JS value (parsed on first use when it arrived as bytes). */
  get value(): unknown {
    if (this.parsed === undefined && this.rawBytes) this.parsed = JSON.parse(this.rawBytes.toString('utf8'));
    return this.parsed;
  }

  /**
   * One top-level member of the answer (e.g. `usage`), without parsing the whole answer when it is
   * still bytes; falls back to `value` when the bytes cannot be walked (this one is on every request's
   * path: the metrics read `usage`); the value once parsed (a traced request's span parses it). Undefined
   * when the answer is not JSON at all (an upstream's malformed body, passed through as it came).
   */
  member(name: string): unknown {
    if (this.parsed === undefined && this.rawBytes) {
      if (this.read?.has(name)) return this.read.get(name);
      const found = topLevelMember(this.rawBytes, name, name === 'usage' ? readCompactUsage : undefined);
      if (found !== UNKNOWN_MEMBER) {
        (this.read ??= new Map()).set(name, found);
        return found;
      }
    }
    const value = this.valueIfJson();
    return isObject(value) ? value[name] : undefined;
  }

  /** `value`, or undefined when the answer is not JSON (an upstream's malformed body, passed through as it came). */
  valueIfJson(): unknown {
    try {
      return this.value;
    } catch {
      return undefined;
    }
  }

  /** The answer's bytes (serialised on first use when it was mapped). */
  get bytes(): Buffer {
    if (!this.rawBytes) this.rawBytes = Buffer.from(JSON.stringify(this.parsed));
    return this.rawBytes;
  }

  /** Replaces the value (a mutator rewrote the answer); bytes are re-derived. */
  replace(value: unknown): void {
    this.parsed = value;
    this.rawBytes = undefined;
    this.read = undefined;
  }
}

/** What the routing engine hands back to the route: the answer and how it was obtained. */
export interface Outcome {
  /** HTTP status to answer with (the provider's 2xx, or 246 when a guardrail failed without deny). */
  status: number;
  provider: string;
  /** Path of the target that answered, e.g. `config.targets[1]`. */
  path: string;
  /** Retries made at the answering target. */
  retries: number;
  cacheStatus: CacheStatus;
  /** Extra response headers to send. */
  headers: Record<string, string>;
  json?: JsonAnswer;
  stream?: StreamAnswer;
  /** Model that served the request, when known. */
  model?: string;
  /** Members added to the top level of a JSON answer (e.g. `hook_results`). */
  extra?: Record<string, unknown>;
}

/** Facts about the routing of one request, filled as it goes (read for headers and logs on success and failure). */
export interface RouteTrace {
  provider?: string;
  path?: string;
  retries: number;
  model?: string;
  /** The pricing terms (multiplier, per-model prices) of the integration of the target called last, if it uses one. */
  pricing?: PricingTerms;
  /** Every attempt made: path, status, duration. */
  attempts: Array<{ path: string; provider: string; status: number; ms: number }>;
  /** When (epoch ms) the answer was ready to send: a JSON answer complete, a stream's upstream answer begun. */
  answeredAt?: number;
}

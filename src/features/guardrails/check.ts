/**
 * The guardrail check contract. A check is a small function of the request (and, after the provider
 * answered, the response) and its parameters; it returns a verdict. Checks never throw for a bad
 * input text: they throw only for bad parameters (GatewayError 'invalid_config').
 */
import { isObject } from '../../foundation/lib/json.js';
import type { EndpointKind } from '../../foundation/spec/endpoint.js';
import type { CheckHttp } from './check-http.js';

/** When a check runs: before the provider is called, or after it answered. */
export type HookEvent = 'beforeRequestHook' | 'afterRequestHook';

/** Everything a check may read. Built by the caller once per hook run. */
export interface CheckInput {
  eventType: HookEvent;
  /** Text of the request (see text-of.ts `requestTextOf`: the last message, the prompt, or the input). */
  requestText: string;
  /** The assembled answer text (after hooks only; see `responseTextOf` / `assembleStreamText`). */
  responseText?: string;
  request: {
    body: Record<string, unknown>;
    model?: string;
    endpoint: EndpointKind | (string & {});
    /** The `x-gateway-metadata` object (string values). */
    metadata: Record<string, string>;
  };
  response?: { body?: unknown; status?: number };
  /** Aborts network checks when the client went away. */
  signal?: AbortSignal;
  /** Outbound HTTP for network checks (webhook, inlineImage); see check-http.ts. */
  http?: CheckHttp;
}

/** Rewritten content produced by a mutator check (e.g. PII redaction). */
export interface CheckTransform {
  /** The redacted request text (same scope as `CheckInput.requestText`). */
  requestText?: string;
  /** The redacted response text. */
  responseText?: string;
  /** The request body with every text piece rewritten (send this to the provider instead). */
  requestBody?: Record<string, unknown>;
  /** The response body with every text piece rewritten (return this to the client instead). */
  responseBody?: unknown;
}

/** A check's outcome. `verdict: true` means the check passed. */
export interface CheckResult {
  verdict: boolean;
  explanation?: string;
  data?: unknown;
  transformed?: CheckTransform;
  /** Set when the check could not do its work (network failure); the verdict then follows failOnError. */
  error?: string;
}

/** The shape every check function has. Parameters are validated inside (throws 'invalid_config'). */
export type CheckFn = (input: CheckInput, params: Record<string, unknown>) => CheckResult | Promise<CheckResult>;

/** What a check reads, for documentation and for the caller deciding what to assemble. */
export type CheckReads = 'text' | 'request' | 'response' | 'metadata';

/**
 * How long one run of a check may take, and its verdict when it takes longer: `failOpen` passes
 * (network checks with `failOnError: false`), otherwise the check fails with `error`.
 */
export interface CheckBudget {
  ms: number;
  failOpen: boolean;
}

/** Budget of a check that declares none (local checks; validUrls' DNS lookups take at most 3 s). */
export const DEFAULT_CHECK_BUDGET: CheckBudget = { ms: 5_000, failOpen: false };

/** Time a network check gets beyond its own `timeout` before its budget is spent. */
export const NETWORK_CHECK_GRACE_MS = 1_000;

/** One catalogue entry. */
export interface CheckDefinition {
  id: string;
  run: CheckFn;
  /** The time budget of one run with `params` (DEFAULT_CHECK_BUDGET when the check declares none or they are invalid). */
  budget(params: Record<string, unknown>): CheckBudget;
  /** Throws GatewayError('invalid_config') naming `${path}.${param}`; `path` defaults to the check id. */
  validateParams(params: unknown, path?: string): void;
  /** Events the check supports; the caller should refuse a config that uses it elsewhere. */
  phases: readonly HookEvent[];
  reads: CheckReads;
  /** True when the check may return `transformed` content. */
  mutator?: boolean;
}

/** Both events. */
export const BOTH_PHASES: readonly HookEvent[] = ['beforeRequestHook', 'afterRequestHook'];

/**
 * Builds a CheckDefinition from a typed parameter parser and an evaluator, so `run` and
 * `validateParams` always agree. Parsed parameters are kept per parameter object (configs and stored
 * guardrails are compiled once and never mutated), so a request does not parse or compile them
 * again (regular expressions, JSON schemas).
 */
export function defineCheck<P>(def: {
  id: string;
  phases: readonly HookEvent[];
  reads: CheckReads;
  mutator?: boolean;
  parse(params: unknown, path: string): P;
  evaluate(input: CheckInput, params: P): CheckResult | Promise<CheckResult>;
  budget?(params: P): CheckBudget;
}): CheckDefinition {
  const parsed = new WeakMap<object, P>();
  const parse = (params: Record<string, unknown>): P => {
    if (!isObject(params)) return def.parse(params, def.id);
    if (parsed.has(params)) return parsed.get(params)!;
    const p = def.parse(params, def.id);
    parsed.set(params, p);
    return p;
  };
  return {
    id: def.id,
    phases: def.phases,
    reads: def.reads,
    mutator: def.mutator,
    validateParams(params, path) {
      def.parse(params, path ?? def.id);
    },
    run(input, params) {
      return def.evaluate(input, parse(params));
    },
    budget(params) {
      if (!def.budget) return DEFAULT_CHECK_BUDGET;
      try {
        return def.budget(parse(params));
      } catch {
        return DEFAULT_CHECK_BUDGET;
      }
    },
  };
}

/**
 * The text a text check reads: the request text before the request, the response text after it.
 */
export function textFor(input: CheckInput): string {
  return input.eventType === 'afterRequestHook' ? (input.responseText ?? '') : input.requestText;
}

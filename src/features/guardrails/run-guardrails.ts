/**
 * Runs the guardrails of one event over one request (or answer) and reports `hook_results` entries.
 *
 * Order: mutator checks (PII redaction) run first, one after another in declaration order, each
 * seeing the text the previous one rewrote; then every other check of every guardrail runs
 * concurrently on the rewritten content (so a webhook never sees what was redacted). A guardrail's
 * verdict is true when all its checks pass.
 */
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { CheckInput } from './check.js';
import { getCheck, runCheck, type CheckOutcome } from './catalogue.js';
import type { Feedback, Guardrail } from './guardrail-spec.js';
import { requestTextOf, responseTextOf } from './text-of.js';

/** One check's entry in `hook_results` (rewritten content is never included). */
export type CheckReport = Omit<CheckOutcome, 'transformed'>;

/** One guardrail's entry in `hook_results`. */
export interface HookResult {
  id: string;
  /** JSON path of the config item. */
  path: string;
  verdict: boolean;
  /** True when this result denied the request (446). */
  deny: boolean;
  async: boolean;
  /** True when a mutator rewrote the request or the answer. */
  transformed: boolean;
  checks: CheckReport[];
  /** `on_success.feedback` or `on_fail.feedback`, by verdict. */
  feedback: Feedback | null;
  /** Milliseconds from the first check started to the last one finished. */
  execution_time: number;
  created_at: string;
}

/** `hook_results` as returned to the client and stored with the request log. */
export interface HookResults {
  before_request_hooks: HookResult[];
  after_request_hooks: HookResult[];
}

/** What one event's run produced. */
export interface GuardrailRun {
  results: HookResult[];
  /** The rewritten request body (before) when a mutator changed it. */
  requestBody?: Record<string, unknown>;
  /** The rewritten answer body (after) when a mutator changed it. */
  responseBody?: unknown;
  /** A result denied. */
  denied: boolean;
  /** A verdict was false (with or without deny). */
  failed: boolean;
}

function report(o: CheckOutcome): CheckReport {
  const { transformed: _omit, ...rest } = o;
  return rest;
}

/** Applies a mutator's rewrite to the input the next checks see. */
function applyTransform(input: CheckInput, o: CheckOutcome): CheckInput | undefined {
  const t = o.transformed;
  if (!t) return undefined;
  if (input.eventType === 'beforeRequestHook' && t.requestBody) {
    return { ...input, request: { ...input.request, body: t.requestBody }, requestText: requestTextOf(t.requestBody) };
  }
  if (input.eventType === 'afterRequestHook' && (t.responseBody !== undefined || t.responseText !== undefined)) {
    const body = t.responseBody ?? input.response?.body;
    const text = t.responseBody !== undefined ? responseTextOf(t.responseBody) : (t.responseText ?? input.responseText);
    return { ...input, response: { ...input.response, body }, responseText: text };
  }
  return undefined;
}

/** Runs `guardrails` (all of one event) on `input`. Never throws. */
export async function runGuardrails(
  guardrails: readonly Guardrail[],
  input: CheckInput,
  now: () => number = Date.now,
): Promise<GuardrailRun> {
  const started = performance.now();
  const outcomes: Array<Array<CheckOutcome | undefined>> = guardrails.map((g) => g.checks.map(() => undefined));
  const transformedBy = new Set<number>();
  let current = input;
  for (const [gi, g] of guardrails.entries()) {
    for (const [ci, c] of g.checks.entries()) {
      if (!getCheck(c.id)?.mutator) continue;
      const o = await runCheck(c.id, current, c.parameters);
      outcomes[gi]![ci] = o;
      const next = applyTransform(current, o);
      if (next) {
        current = next;
        transformedBy.add(gi);
      }
    }
  }
  const rest: Array<Promise<void>> = [];
  for (const [gi, g] of guardrails.entries()) {
    for (const [ci, c] of g.checks.entries()) {
      if (outcomes[gi]![ci]) continue;
      rest.push(runCheck(c.id, current, c.parameters).then((o) => void (outcomes[gi]![ci] = o)));
    }
  }
  await Promise.all(rest);
  const elapsed = Math.round((performance.now() - started) * 100) / 100;
  const createdAt = new Date(now()).toISOString();
  const results = guardrails.map((g, gi): HookResult => {
    const checks = outcomes[gi]!.map((o) => report(o!));
    const verdict = checks.every((c) => c.verdict);
    return {
      id: g.id,
      path: g.path,
      verdict,
      deny: !g.async && (verdict ? g.denyOnSuccess : g.denyOnFail),
      async: g.async,
      transformed: transformedBy.has(gi),
      checks,
      feedback: (verdict ? g.onSuccessFeedback : g.onFailFeedback) ?? null,
      execution_time: elapsed,
      created_at: createdAt,
    };
  });
  const run: GuardrailRun = { results, denied: results.some((r) => r.deny), failed: results.some((r) => !r.verdict) };
  if (current !== input) {
    if (input.eventType === 'beforeRequestHook') run.requestBody = current.request.body;
    else run.responseBody = current.response?.body;
  }
  return run;
}

/** The 446 answer: `guardrail_denied` with `hook_results` in the body. */
export function denialError(results: HookResults, event: 'request' | 'answer'): GatewayError {
  const ids = [...results.before_request_hooks, ...results.after_request_hooks].filter((r) => r.deny).map((r) => r.id);
  return new GatewayError('guardrail_denied', `The ${event} was denied by guardrail ${ids.join(', ')}.`, {
    extra: { hook_results: results },
  });
}

/**
 * Where guardrails run in a request (see docs/guardrails.md, "When guardrails run"):
 *
 * - `beforeRouting` (a DataPlaneHook): checks every stored-guardrail reference of the config, then
 *   runs the ROOT node's input guardrails and before-request hooks once, before routing. A denial
 *   answers 446 and no provider is called; a redaction rewrites the request body every target gets.
 * - `intercept` (a LeafInterceptor, around each target tried): runs the input guardrails of the
 *   target's non-root ancestors and its own, then, on the target's answer, the output guardrails
 *   and after-request hooks of the whole chain (root first). A denial throws 446, which a
 *   `fallback` parent treats like any other failure (it tries its next target unless
 *   `on_status_codes` excludes 446).
 *
 * Results go to the answer (`hook_results`, status 246 when a verdict failed without deny) and to
 * the request log (`locals.hookResults`). `async` guardrails never delay the answer; their results
 * are written to the application log only.
 */
import { toGatewayError } from '../../foundation/errors/to-gateway-error.js';
import { routingSpanOf } from '../../infra/observability/tracing.js';
import type { Logger } from '../../infra/observability/logger.js';
import type { LeafCall } from '../../routing/execute.js';
import type { Outcome } from '../../routing/outcome.js';
import type { Runtime } from '../../runtime/runtime.js';
import type { DataPlaneRequest } from '../../data-plane/pipeline/data-plane-hook.js';
import type { CheckHttp } from './check-http.js';
import type { CheckInput } from './check.js';
import { getCheck } from './catalogue.js';
import { chainOf, checkReferences, indexTree, planOf, resolveItems } from './guardrail-plan.js';
import type { Guardrail, ItemPlan } from './guardrail-spec.js';
import { storedLookup } from './guardrails-section.js';
import { denialError, runGuardrails, type HookResult, type HookResults } from './run-guardrails.js';
import { StreamTextAssembler, requestTextOf, responseTextOf } from './text-of.js';

/** `locals` key of the per-request state the hook leaves for the interceptor. */
const STATE = 'guardrails';

/** What `beforeRouting` leaves for the leaf interceptor. */
interface RequestState {
  /** The root's before guardrails already ran (the interceptor skips them). */
  rootDone: boolean;
  rootBefore: HookResult[];
  rootFailed: boolean;
  traceId: string;
}

export interface GuardrailEngineDeps {
  runtime: Runtime;
  /** Outbound HTTP for network checks (already SSRF-guarded). */
  http: CheckHttp;
  logger: Logger;
  now: () => number;
}

interface RequestView {
  body: Record<string, unknown>;
  endpoint: string;
  metadata: Record<string, string>;
  signal?: AbortSignal;
}

const split = (gs: Guardrail[]): [Guardrail[], Guardrail[]] => [gs.filter((g) => !g.async), gs.filter((g) => g.async)];

export class GuardrailEngine {
  constructor(private readonly deps: GuardrailEngineDeps) {}

  private beforeInput(r: RequestView): CheckInput {
    return {
      eventType: 'beforeRequestHook',
      requestText: requestTextOf(r.body),
      request: {
        body: r.body,
        model: typeof r.body.model === 'string' ? r.body.model : undefined,
        endpoint: r.endpoint,
        metadata: r.metadata,
      },
      signal: r.signal,
      http: this.deps.http,
    };
  }

  private afterInput(r: RequestView, status: number, body: unknown, text: string): CheckInput {
    return { ...this.beforeInput(r), eventType: 'afterRequestHook', responseText: text, response: { body, status } };
  }

  /** Runs async guardrails off the response path; results go to the application log. */
  private runAsync(guardrails: Guardrail[], input: CheckInput, traceId: string | undefined): void {
    if (guardrails.length === 0) return;
    // The client's signal must not cut async checks short once the answer is out.
    void runGuardrails(guardrails, { ...input, signal: undefined }, this.deps.now)
      .then((run) =>
        this.deps.logger.info({ trace_id: traceId, event: input.eventType, hook_results: run.results }, 'async guardrail results'),
      )
      .catch((err) => this.deps.logger.warn({ err, trace_id: traceId }, 'async guardrails failed'));
  }

  /** The DataPlaneHook part: references, then the root's before guardrails. */
  beforeRouting(dp: DataPlaneRequest): Promise<void> | undefined {
    const root = dp.config?.root;
    // Fast path: no config, or no guardrail anywhere in it.
    if (!root || !indexTree(root)) return undefined;
    return this.beforeRoutingGuarded(dp, root);
  }

  private async beforeRoutingGuarded(dp: DataPlaneRequest, root: NonNullable<DataPlaneRequest['config']>['root']): Promise<void> {
    const lookup = storedLookup(this.deps.runtime.current, dp.ctx.workspaceId);
    checkReferences(root, lookup);
    const state: RequestState = { rootDone: true, rootBefore: [], rootFailed: false, traceId: dp.ctx.traceId };
    dp.locals[STATE] = state;
    const items = planOf(root)?.before ?? [];
    if (items.length === 0) return;
    const [sync, async] = split(resolveItems(items, lookup));
    const view: RequestView = { body: dp.body, endpoint: dp.endpoint, metadata: dp.metadata };
    if (sync.length) {
      const run = await runGuardrails(sync, this.beforeInput(view), this.deps.now);
      state.rootBefore = run.results;
      state.rootFailed = run.failed;
      const results: HookResults = { before_request_hooks: run.results, after_request_hooks: [] };
      dp.locals.hookResults = results;
      if (run.denied) throw denialError(results, 'request');
      if (run.requestBody) dp.body = run.requestBody;
    }
    this.runAsync(async, this.beforeInput({ ...view, body: dp.body }), state.traceId);
  }

  /** The LeafInterceptor part: the chain's remaining before guardrails, the call, the after guardrails. */
  intercept(call: LeafCall, next: () => Promise<Outcome>): Promise<Outcome> {
    // Fast path: no request state and no node of the chain declares guardrails (most requests).
    if (call.input.locals?.[STATE] === undefined) {
      let any = false;
      for (const node of chainOf(call.node)) if (planOf(node)) any = true;
      if (!any) return next();
    }
    const span = routingSpanOf(call.input.locals)?.child('guardrails', 'internal');
    if (!span) return this.interceptGuarded(call, next);
    // Traced: one span over the guardrails of this target (their checks and the call they guard).
    return this.interceptGuarded(call, next).then(
      (outcome) => {
        span.set({ 'http.response.status_code': outcome.status });
        span.end();
        return outcome;
      },
      (err: unknown) => {
        const g = toGatewayError(err);
        span.set({ 'http.response.status_code': g.status });
        span.fail(g.publicCode ?? g.code, g.message);
        span.end();
        throw err;
      },
    );
  }

  private async interceptGuarded(call: LeafCall, next: () => Promise<Outcome>): Promise<Outcome> {
    const locals = call.input.locals;
    const state = locals?.[STATE] as RequestState | undefined;
    const beforeItems: ItemPlan[] = [];
    const afterItems: ItemPlan[] = [];
    chainOf(call.node).forEach((node, i) => {
      const plan = planOf(node);
      if (!plan) return;
      if (!(i === 0 && state?.rootDone)) beforeItems.push(...plan.before);
      afterItems.push(...plan.after);
    });
    if (!state && beforeItems.length === 0 && afterItems.length === 0) return next();
    const lookup = storedLookup(this.deps.runtime.current, call.input.workspaceId);
    const [syncBefore, asyncBefore] = split(resolveItems(beforeItems, lookup));
    const [syncAfter, asyncAfter] = split(resolveItems(afterItems, lookup));
    const results: HookResults = { before_request_hooks: [...(state?.rootBefore ?? [])], after_request_hooks: [] };
    let failed = state?.rootFailed ?? false;
    // The request log keeps the results of the last target tried (a fallback may try several).
    const record = (): void => {
      if (!locals) return;
      if (results.before_request_hooks.length || results.after_request_hooks.length) locals.hookResults = results;
      else delete locals.hookResults;
    };
    record();
    const view = (): RequestView => ({
      body: call.body,
      endpoint: call.input.endpoint,
      metadata: call.input.metadata,
      signal: call.input.signal,
    });

    if (syncBefore.length) {
      const run = await runGuardrails(syncBefore, this.beforeInput(view()), this.deps.now);
      results.before_request_hooks.push(...run.results);
      record();
      if (run.denied) throw denialError(results, 'request');
      failed ||= run.failed;
      if (run.requestBody) call.body = run.requestBody;
    }
    this.runAsync(asyncBefore, this.beforeInput(view()), state?.traceId);
    if (syncAfter.some((g) => g.checks.some((c) => getCheck(c.id)?.mutator))) call.passthrough = false;

    const outcome = await next();
    if (outcome.json) {
      let value: unknown;
      try {
        value = outcome.json.value;
      } catch {
        value = undefined;
      }
      const input = this.afterInput(view(), outcome.status, value, responseTextOf(value));
      if (syncAfter.length) {
        const run = await runGuardrails(syncAfter, input, this.deps.now);
        results.after_request_hooks.push(...run.results);
        record();
        if (run.denied) throw denialError(results, 'answer');
        failed ||= run.failed;
        if (run.responseBody !== undefined) outcome.json.replace(run.responseBody);
      }
      this.runAsync(asyncAfter, input, state?.traceId);
    } else if (outcome.stream && (syncAfter.length || asyncAfter.length)) {
      const text = new StreamTextAssembler();
      const status = outcome.status;
      outcome.stream.observe({
        onChunk: (chunk) => text.push(chunk),
        beforeEnd: async () => {
          const input = this.afterInput(view(), status, undefined, text.text());
          this.runAsync(asyncAfter, input, state?.traceId);
          if (syncAfter.length === 0) return;
          const run = await runGuardrails(syncAfter, input, this.deps.now);
          results.after_request_hooks.push(...run.results);
          record();
          if (run.denied) return denialError(results, 'answer');
        },
      });
    }
    record();
    if (results.before_request_hooks.length || results.after_request_hooks.length) {
      if (outcome.json) outcome.extra = { ...outcome.extra, hook_results: results };
      if (failed) outcome.status = 246;
    }
    return outcome;
  }
}

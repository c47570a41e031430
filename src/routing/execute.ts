import { GatewayError } from '../foundation/errors/gateway-error.js';
import { toGatewayError } from '../foundation/errors/to-gateway-error.js';
import type { Clock } from '../foundation/lib/clock.js';
import type { HttpClient } from '../foundation/lib/http-client.js';
import type { ProviderAdapter } from '../providers/provider.js';
import type { CompiledNode } from './compiled-config.js';
import type { Outcome, RouteTrace } from './outcome.js';
import type { RouteInput } from './route-input.js';
import { matchesQuery } from './conditional-query.js';
import { CircuitBreaker, isCircuitOpen } from './circuit-breaker.js';
import { callTarget, type TargetCall } from './call-target.js';
import { resolveTarget, type ResolvedTarget, type TargetResolverDeps } from './resolve-target.js';
import { retryDelayMs, shouldRetry } from './retry-policy.js';
import type { CustomHostGuard } from './custom-host-guard.js';
import { endAttemptSpan, failAttemptSpan, startAttemptSpan } from './attempt-span.js';

/** A leaf call about to be made, as interceptors (cache, guardrails) see it. */
export interface LeafCall extends TargetCall {
  node: CompiledNode;
}

/**
 * Wraps the execution of one leaf target (its whole retry loop). May answer without calling `next`
 * (a cache hit, a guardrail denial) or post-process what `next` returns.
 */
export type LeafInterceptor = (call: LeafCall, next: () => Promise<Outcome>) => Promise<Outcome>;

export interface RouterDeps extends TargetResolverDeps {
  http: HttpClient;
  clock: Clock;
  circuits: CircuitBreaker;
  hostGuard: CustomHostGuard;
  interceptors: LeafInterceptor[];
  /** Base of the exponential retry backoff, ms. */
  retryBaseMs: number;
  random?: () => number;
  observeUpstream?: (provider: string, status: number, seconds: number) => void;
  /** Fetches these secret references anew (after a provider refused a credential filled from them). */
  refreshSecrets?: (refIds: readonly string[]) => Promise<void>;
}

/**
 * The routing engine: walks a compiled config (single, loadbalance, fallback, conditional, nested),
 * applies retries, timeouts and circuit breakers at the leaves, and returns the first good answer or
 * throws the failure to report. `trace` records which target answered and every attempt.
 */
export class Router {
  private readonly random: () => number;

  constructor(private readonly deps: RouterDeps) {
    this.random = deps.random ?? Math.random;
  }

  async route(root: CompiledNode, input: RouteInput, trace: RouteTrace): Promise<Outcome> {
    const outcome = await this.run(root, input, trace);
    trace.answeredAt = Date.now();
    return outcome;
  }

  /** A leaf's circuit as the breaker sees it now, without claiming a trial (explanations); closed without `cb_config`. */
  async peekCircuit(leaf: CompiledNode): Promise<{ state: 'closed' | 'open' | 'half_open'; failures: number }> {
    if (!leaf.cb || !leaf.leaf) return { state: 'closed', failures: 0 };
    return this.deps.circuits.peek(leaf.leaf.identity, leaf.cb);
  }

  /**
   * Not `async`: a leaf's promise is handed on as it is (an async function returning another promise
   * costs a promise and two more microtask turns per layer, on every request). A synchronous throw
   * becomes a rejection.
   */
  private run(node: CompiledNode, input: RouteInput, trace: RouteTrace): Promise<Outcome> {
    try {
      switch (node.mode) {
        case 'leaf':
          return this.leaf(node, input, trace);
        case 'single':
          return this.run(node.children[0]!, input, trace);
        case 'conditional':
          return this.pickConditional(node, input).then((child) => this.run(child, input, trace));
        case 'loadbalance':
          return this.loadbalance(node, input, trace);
        case 'fallback':
          return this.fallback(node, input, trace);
      }
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private async pickConditional(node: CompiledNode, input: RouteInput): Promise<CompiledNode> {
    const ctx = { metadata: input.metadata, params: input.body, url: { pathname: input.pathname } };
    for (const c of node.conditions) if (await matchesQuery(c.query, ctx)) return node.children[c.then]!;
    if (node.defaultIndex >= 0) return node.children[node.defaultIndex]!;
    throw new GatewayError('invalid_request', `No condition of ${node.path} matched the request and no default target is set.`);
  }

  /** Picks by weight; a target whose circuit is open is skipped and the pick repeated among the rest. */
  private async loadbalance(node: CompiledNode, input: RouteInput, trace: RouteTrace): Promise<Outcome> {
    const weights = [...node.weights];
    for (;;) {
      const total = weights.reduce((a, b) => a + b, 0);
      if (total <= 0) throw new GatewayError('circuit_open', undefined, { publicCode: 'circuit_open' });
      let r = this.random() * total;
      let index = weights.findIndex((w) => w > 0);
      for (let i = 0; i < weights.length; i++) {
        if (weights[i]! <= 0) continue;
        if (r < weights[i]!) {
          index = i;
          break;
        }
        r -= weights[i]!;
      }
      try {
        return await this.run(node.children[index]!, input, trace);
      } catch (err) {
        const g = toGatewayError(err);
        if (!isCircuitOpen(g)) throw g;
        weights[index] = 0;
      }
    }
  }

  /**
   * Tries targets in order. Without `on_status_codes` any failure moves on; with it, only those
   * statuses (plus skipped open circuits). The last real failure is reported.
   */
  private async fallback(node: CompiledNode, input: RouteInput, trace: RouteTrace): Promise<Outcome> {
    let last: GatewayError | undefined;
    for (const child of node.children) {
      if (clientAborted(input)) break;
      try {
        return await this.run(child, input, trace);
      } catch (err) {
        const g = toGatewayError(err);
        if (isCircuitOpen(g)) {
          last = last ?? g;
          continue;
        }
        // The request or config is wrong (not a target failing): another target would not help.
        if (((g.code === 'invalid_request' && g.status === 400) || g.code === 'not_found') && !g.provider) throw g;
        last = g;
        if (node.fallbackCodes && !node.fallbackCodes.has(g.status)) throw g;
      }
    }
    throw last ?? new GatewayError('circuit_open', undefined, { publicCode: 'circuit_open' });
  }

  /**
   * A leaf: its target resolved and checked, then its interceptors around its retry loop. Not `async` (see
   * `run`, which turns a synchronous throw of this one, an unknown provider or endpoint, into a rejection).
   */
  private leaf(node: CompiledNode, input: RouteInput, trace: RouteTrace, secretsRefreshed = false): Promise<Outcome> {
    const resolved = resolveTarget(node, input, this.deps);
    const endpoint = resolved.adapter.endpoints[input.endpoint];
    if (!endpoint)
      throw new GatewayError('invalid_request', `Provider '${resolved.adapter.name}' does not support ${input.endpoint}.`, {
        param: 'provider',
      });
    const host = resolved.target.customHost;
    // A host already vetted is known without a promise; a new one is checked (and its verdict remembered) first.
    if (host && !this.deps.hostGuard.passes(host)) {
      return this.deps.hostGuard.check(host).then(() => this.callLeaf(node, input, trace, resolved, endpoint, secretsRefreshed));
    }
    return this.callLeaf(node, input, trace, resolved, endpoint, secretsRefreshed);
  }

  private callLeaf(
    node: CompiledNode,
    input: RouteInput,
    trace: RouteTrace,
    resolved: ResolvedTarget,
    endpoint: NonNullable<ProviderAdapter['endpoints'][keyof ProviderAdapter['endpoints']]>,
    secretsRefreshed: boolean,
  ): Promise<Outcome> {
    const { adapter, target, model, pricing, secretRefs } = resolved;
    const overridden = node.overrideParams ? { ...input.body, ...node.overrideParams } : input.body;
    // A `@slug/` model prefix is dropped (an override's model still wins).
    const body = model !== undefined && !(typeof node.overrideParams?.model === 'string') ? { ...overridden, model } : overridden;
    const call: LeafCall = {
      node,
      adapter,
      endpoint: endpoint as LeafCall['endpoint'],
      target,
      body,
      input,
      passthrough: endpoint.nativeSchema === true,
      strict: node.strict,
      path: node.path,
    };
    trace.provider = adapter.name;
    trace.path = node.path;
    trace.model = typeof body.model === 'string' ? body.model : trace.model;
    trace.pricing = pricing;
    const interceptors = this.deps.interceptors;
    const dispatch = (i: number): Promise<Outcome> =>
      i < interceptors.length ? interceptors[i]!(call, () => dispatch(i + 1)) : this.attempts(call, adapter, trace);
    const answer = dispatch(0);
    if (!secretRefs || secretsRefreshed || !this.deps.refreshSecrets) return answer;
    // A credential filled from a secret manager was refused: it may have been rotated there. Fetch the
    // references anew once and try the target again with what they hold now.
    return answer.catch(async (err: unknown) => {
      const g = toGatewayError(err);
      if (g.provider === undefined || (g.status !== 401 && g.status !== 403) || clientAborted(input)) throw g;
      await this.deps.refreshSecrets!(secretRefs);
      return this.leaf(node, input, trace, true);
    });
  }

  /** The retry loop of one leaf, with its circuit breaker and per-attempt timeout. */
  private async attempts(call: LeafCall, adapter: ProviderAdapter, trace: RouteTrace): Promise<Outcome> {
    const { node, input } = call;
    const identity = node.leaf!.identity;
    const timeoutMs = node.requestTimeoutMs ?? input.requestTimeoutMs;
    for (let attempt = 0; ; attempt++) {
      if (node.cb) await this.deps.circuits.admit(identity, node.cb, adapter.name);
      const started = performance.now();
      const span = startAttemptSpan(call, adapter.name, attempt);
      try {
        // Without a timeout the attempt is the call itself (no async layer around it: its frame and promises
        // were a few hundred bytes per request); the catch below names a client's abort as `withTimeout` does.
        const outcome = await (timeoutMs === null
          ? callTarget(call, input.clientAbort ?? input.signal, this.deps)
          : this.withTimeout(call, timeoutMs));
        if (span) endAttemptSpan(span, outcome);
        trace.attempts.push({ path: node.path, provider: adapter.name, status: outcome.status, ms: performance.now() - started });
        trace.retries = attempt;
        if (node.cb) await this.deps.circuits.success(identity);
        outcome.retries = attempt;
        return outcome;
      } catch (err) {
        const g =
          timeoutMs === null && clientAborted(input)
            ? new GatewayError('client_closed_request', undefined, { provider: adapter.name })
            : toGatewayError(err);
        if (span) failAttemptSpan(span, g);
        trace.attempts.push({ path: node.path, provider: adapter.name, status: g.status, ms: performance.now() - started });
        trace.retries = attempt;
        if (clientAborted(input)) throw g;
        if (node.cb && g.provider !== undefined && this.deps.circuits.counts(g, node.cb))
          await this.deps.circuits.failure(identity, node.cb);
        else if (node.cb && (g.code === 'provider_unreachable' || g.code === 'request_timeout'))
          await this.deps.circuits.failure(identity, node.cb);
        if (!shouldRetry(g, node.retry, attempt)) throw g;
        const wait = retryDelayMs(attempt, g, node.retry!, this.deps.retryBaseMs, timeoutMs, this.deps.clock.now(), this.random);
        await sleep(wait, input.signal);
      }
    }
  }

  /**
   * One attempt bounded by the request timeout (408 `request_timeout` when it elapses before the
   * answer); a client that went away meanwhile makes it `client_closed_request`.
   */
  private async withTimeout(call: LeafCall, timeoutMs: number): Promise<Outcome> {
    const controller = new AbortController();
    const onClientAbort = () => controller.abort(call.input.signal.reason);
    if (call.input.signal.aborted) onClientAbort();
    else call.input.signal.addEventListener('abort', onClientAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error('request timeout'));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      call.input.signal.removeEventListener('abort', onClientAbort);
    };
    try {
      const outcome = await callTarget(call, controller.signal, this.deps);
      // A stream keeps its timer and its client-abort link until it ends.
      if (outcome.stream) outcome.stream.observe({ onEnd: cleanup });
      else cleanup();
      return outcome;
    } catch (err) {
      cleanup();
      if (timedOut)
        throw new GatewayError('request_timeout', `The target ${call.path} did not answer within ${timeoutMs} ms.`, {
          provider: call.adapter.name,
        });
      if (clientAborted(call.input)) throw new GatewayError('client_closed_request', undefined, { provider: call.adapter.name });
      throw err;
    }
  }
}

/** Whether the client went away (without creating the request's AbortSignal when it is lazy). */
function clientAborted(input: RouteInput): boolean {
  return input.clientAbort ? input.clientAbort.aborted : input.signal.aborted;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted || ms <= 0) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

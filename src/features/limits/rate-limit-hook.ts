import type { Clock } from '../../foundation/lib/clock.js';
import { isObject } from '../../foundation/lib/json.js';
import type { Logger } from '../../infra/observability/logger.js';
import type { Metrics } from '../../infra/observability/metrics.js';
import type { Runtime } from '../../runtime/runtime.js';
import { sectionOf, type RuntimeSnapshot } from '../../runtime/snapshot.js';
import type { CompletedRequest, DataPlaneHook, DataPlaneRequest } from '../../data-plane/pipeline/data-plane-hook.js';
import { counterKey, matchesPolicy, type CompiledPolicy } from './compiled-policy.js';
import type { CounterEntry, RateCounterStore } from './counter-store.js';
import { StreamTextTally, estimateTokens, textOfChoices, totalTokensOf } from './estimate-tokens.js';
import { rateLimitHeaders, refusal, tightest, type PolicyReading } from './rate-limit-headers.js';
import { RATE_LIMIT_SECTION, type RateLimitSection } from './rate-limit-section.js';
import { requestFacts } from './request-facts.js';

export interface RateLimitHookDeps {
  runtime: Runtime;
  counters: RateCounterStore;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  /** Stream tallies by the request's headers object, shared with the stream tally interceptor. */
  tallies: WeakMap<object, StreamTextTally>;
  /** Called when token accounting of a finished request is done (tests wait on it). */
  onCounted?: (tokens: number) => void;
}

interface Matched {
  policy: CompiledPolicy;
  key: string;
}

/** What `before` leaves for `after`: the tokens policies the request matched. */
interface LimitLocals {
  tokens: Matched[];
  tally: StreamTextTally;
}

const LOCALS = 'rateLimits';
const LOG_EVERY_MS = 10_000;

/**
 * Enforces rate-limit policies around each data-plane request. `before`: every active policy of the
 * request's workspace whose conditions match is checked in one atomic step — requests policies count
 * the request and refuse it when it would exceed the limit, tokens policies refuse once the window's
 * budget is spent — then the tightest policy's headers are set (or a 429 thrown). `after`: the tokens
 * of the finished request (usage, else an estimate) are added to its tokens policies. When the
 * counters are unreachable the request is admitted (fail open) with a metric and a log line.
 */
export function createRateLimitHook(deps: RateLimitHookDeps): DataPlaneHook {
  let lastLog = 0;
  const degraded = (err: unknown) => {
    deps.metrics.warnings.inc({ component: 'rate-limit' });
    const now = Date.now();
    if (now - lastLog < LOG_EVERY_MS) return;
    lastLog = now;
    deps.logger.warn(
      { err: (err as Error)?.message ?? String(err) },
      'rate-limit counters unreachable; requests are admitted without limits (fail open)',
    );
  };

  async function countTokens(dp: DataPlaneRequest, done: CompletedRequest, l: LimitLocals): Promise<void> {
    let tokens = totalTokensOf(done.usage ?? l.tally.usage);
    if (tokens === undefined) {
      const text = done.outcome?.stream
        ? l.tally.text
        : textOfChoices(isObject(done.outcome?.json?.value) ? (done.outcome.json.value as Record<string, unknown>).choices : undefined);
      tokens = await estimateTokens(dp.body, text);
    }
    if (tokens > 0) await deps.counters.add(l.tokens.map((m) => ({ key: m.key, windowMs: m.policy.windowMs, amount: tokens })));
    deps.onCounted?.(tokens);
  }

  /** The request's tokens policies and their tally, for `after` (none matched: nothing to keep). */
  function track(dp: DataPlaneRequest, matched: readonly Matched[]): void {
    let tokens: Matched[] | undefined;
    for (const m of matched) if (m.policy.type === 'tokens') (tokens ??= []).push(m);
    if (tokens === undefined) return;
    const tally = new StreamTextTally();
    tally.needsText = true;
    deps.tallies.set(dp.headers, tally);
    dp.locals[LOCALS] = { tokens, tally } satisfies LimitLocals;
  }

  /** Matches the request against the workspace's policies, counts it, sets the headers or refuses it. */
  async function enforce(dp: DataPlaneRequest, snapshot: RuntimeSnapshot, policies: readonly CompiledPolicy[]): Promise<void> {
    const facts = requestFacts(dp, snapshot);
    // Loops, not filter/map chains: this runs on every request of a workspace with policies.
    const matched: Matched[] = [];
    const entries: CounterEntry[] = [];
    for (const policy of policies) {
      if (!matchesPolicy(policy, facts)) continue;
      const key = counterKey(policy, facts);
      matched.push({ policy, key });
      entries.push({ key, windowMs: policy.windowMs, limit: policy.value, cost: policy.type === 'requests' ? 1 : 0 });
    }
    if (matched.length === 0) return;
    let result;
    try {
      result = await deps.counters.admit(entries);
    } catch (err) {
      degraded(err);
      track(dp, matched);
      return;
    }
    const now = deps.clock.now();
    const readings: PolicyReading[] = [];
    for (let i = 0; i < matched.length; i++) {
      const r = result.readings[i]!;
      readings.push({ policy: matched[i]!.policy, count: r.count, resetAt: r.resetAt });
    }
    if (!result.admitted) throw refusal(readings, now);
    Object.assign(dp.responseHeaders, rateLimitHeaders(tightest(readings), now));
    track(dp, matched);
  }
  return {
    name: 'rate-limits',
    before(dp) {
      const snapshot = deps.runtime.current;
      const policies = sectionOf<RateLimitSection>(snapshot, RATE_LIMIT_SECTION)?.byWorkspace.get(dp.ctx.workspaceId);
      // Fast path: no policy in this workspace, nothing to await.
      if (!policies?.length) return;
      return enforce(dp, snapshot, policies);
    },
    after(dp, done) {
      const l = dp.locals[LOCALS] as LimitLocals | undefined;
      if (!l) return;
      deps.tallies.delete(dp.headers);
      const outcome = done.outcome;
      // No answer, no tokens spent; a cache hit spent none at the provider.
      if (!outcome || outcome.cacheStatus === 'HIT' || outcome.cacheStatus === 'SEMANTIC HIT') return;
      countTokens(dp, done, l).catch(degraded);
    },
  };
}

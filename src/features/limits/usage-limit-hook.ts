import type { Clock } from '../../foundation/lib/clock.js';
import { isObject } from '../../foundation/lib/json.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { Logger } from '../../infra/observability/logger.js';
import type { Metrics } from '../../infra/observability/metrics.js';
import type { Runtime } from '../../runtime/runtime.js';
import { sectionOf, type RuntimeSnapshot } from '../../runtime/snapshot.js';
import type { CompletedRequest, DataPlaneHook, DataPlaneRequest } from '../../data-plane/pipeline/data-plane-hook.js';
import { priceOfRequest } from '../../data-plane/pipeline/request-price.js';
import { matchesPolicy } from './compiled-policy.js';
import { currentWindow, groupOf, type CompiledUsagePolicy } from './compiled-usage-policy.js';
import { StreamTextTally, estimateTokens, textOfChoices, totalTokensOf } from './estimate-tokens.js';
import { requestFacts } from './request-facts.js';
import { reserveAmount, settledAmount } from './usage-amount.js';
import type { UsageCounterStore, UsageReservation, UsageSettlement } from './usage-counter-store.js';
import { USAGE_LIMIT_SECTION, type UsageLimitSection } from './usage-limit-section.js';
import type { UsageAlert } from './usage-alerts.js';

export interface UsageLimitHookDeps {
  runtime: Runtime;
  counters: UsageCounterStore;
  /** Records an alert (audit entry, webhook). */
  alert: (a: UsageAlert) => Promise<void>;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  /** Stream tallies by the request's headers object, shared with the stream tally interceptor. */
  tallies: WeakMap<object, StreamTextTally>;
  /** Called once a finished request's usage is settled (tests wait on it). */
  onSettled?: () => void;
}

interface Reserved {
  policy: CompiledUsagePolicy;
  entry: UsageReservation;
}

interface UsageLocals {
  reserved: Reserved[];
  tally: StreamTextTally;
  organisationId: string;
}

const LOCALS = 'usageLimits';
const LOG_EVERY_MS = 10_000;
/** Weight of the newest answer in a cost policy's running average. */
const COST_EWMA = 0.2;
const UNITS: Record<CompiledUsagePolicy['type'], string> = { cost: 'USD', tokens: 'tokens', requests: 'requests' };

/** The 429 naming the refusing policy that resets last; `Retry-After` until then (absent: it never resets). */
export function usageRefusal(refusing: readonly CompiledUsagePolicy[], now: number): GatewayError {
  const resetAt = (p: CompiledUsagePolicy) => p.window.resetAt ?? Infinity;
  const p = refusing.reduce((a, b) => (resetAt(b) > resetAt(a) ? b : a));
  const label = p.name ? `'${p.name}' (${p.id})` : p.id;
  const wait = p.window.resetAt === null ? undefined : Math.max(1, Math.ceil((p.window.resetAt - now) / 1000));
  const when = wait === undefined ? 'It does not reset.' : `It resets at ${new Date(p.window.resetAt!).toISOString()}.`;
  return new GatewayError('usage_limit_exceeded', `Usage limit exceeded: policy ${label} allows ${p.limit} ${UNITS[p.type]}. ${when}`, {
    headers: { ...(wait === undefined ? {} : { 'retry-after': String(wait) }), 'x-gateway-usage-limit-policy': p.id },
  });
}

/**
 * Enforces usage-limit policies around each data-plane request. `before`: the active policies of the
 * request's workspace whose conditions match reserve on their group's counter in the current window,
 * in one atomic step (one Redis round trip) — a request, the prompt's estimated tokens, or the running
 * average cost of the policy's recent answers in this process; a policy whose group has used its limit refuses with 429
 * `usage_limit_exceeded`. `after`: the real amount settles the reservation (one more round trip) and a
 * group that first reaches `alert_threshold` in the window gets one alert (`usage-alerts.ts`).
 * Counters unreachable: the request is admitted (fail open, like rate limits) with a metric and a log line.
 */
export function createUsageLimitHook(deps: UsageLimitHookDeps): DataPlaneHook {
  /** Per cost policy: the running average (EWMA) of the dollars its requests settled in this process. */
  const learnedCost = new Map<string, number>();
  let lastLog = 0;
  const degraded = (err: unknown) => {
    deps.metrics.warnings.inc({ component: 'usage-limit' });
    const now = Date.now();
    if (now - lastLog < LOG_EVERY_MS) return;
    lastLog = now;
    deps.logger.warn(
      { err: (err as Error)?.message ?? String(err) },
      'usage-limit counters unreachable; requests are admitted without usage limits (fail open)',
    );
  };

  // One pair of callbacks for every settlement (a .catch().finally() chain was two more promises and a closure per request).
  const settled = () => deps.onSettled?.();
  const settleFailed = (err: unknown) => {
    degraded(err);
    deps.onSettled?.();
  };

  async function enforce(dp: DataPlaneRequest, snapshot: RuntimeSnapshot, policies: readonly CompiledUsagePolicy[]): Promise<void> {
    const facts = requestFacts(dp, snapshot);
    const now = deps.clock.now();
    const reserved: Reserved[] = [];
    const entries: UsageReservation[] = [];
    let tokens = false;
    for (const policy of policies) {
      if (!matchesPolicy(policy, facts)) continue;
      const w = currentWindow(policy, now);
      const amount = policy.type === 'cost' ? (learnedCost.get(policy.id) ?? 0) : reserveAmount(policy.type, dp.body);
      const entry: UsageReservation = {
        policyId: policy.counterId,
        windowStart: w.start,
        resetAt: w.resetAt,
        group: groupOf(policy, facts),
        limit: policy.limit,
        amount,
        strict: policy.type === 'requests',
      };
      reserved.push({ policy, entry });
      entries.push(entry);
      if (policy.type === 'tokens') tokens = true;
    }
    if (reserved.length === 0) return;
    let result;
    try {
      result = await deps.counters.reserve(entries);
    } catch (err) {
      degraded(err);
      return;
    }
    if (!result.admitted) {
      const refusing = reserved
        .filter((r, i) => (r.entry.strict ? result.used[i]! + r.entry.amount > r.entry.limit : result.used[i]! >= r.entry.limit))
        .map((r) => r.policy);
      throw usageRefusal(refusing.length ? refusing : reserved.map((r) => r.policy), now);
    }
    const tally = deps.tallies.get(dp.headers) ?? new StreamTextTally();
    if (tokens) tally.needsText = true;
    deps.tallies.set(dp.headers, tally);
    const organisationId = snapshot.workspacesById.get(dp.ctx.workspaceId)?.organisation_id ?? '';
    dp.locals[LOCALS] = { reserved, tally, organisationId } satisfies UsageLocals;
  }

  async function settle(dp: DataPlaneRequest, done: CompletedRequest, l: UsageLocals): Promise<void> {
    const outcome = done.outcome;
    const spent = outcome !== undefined && outcome.cacheStatus !== 'HIT' && outcome.cacheStatus !== 'SEMANTIC HIT';
    const usage = done.usage ?? l.tally.usage;
    let hasTokens = false;
    let hasCost = false;
    for (const r of l.reserved) {
      if (r.policy.type === 'tokens') hasTokens = true;
      else if (r.policy.type === 'cost') hasCost = true;
    }
    let tokens = 0;
    if (spent && hasTokens) {
      tokens =
        totalTokensOf(usage) ??
        (await estimateTokens(
          dp.body,
          outcome.stream
            ? l.tally.text
            : textOfChoices(isObject(outcome.json?.value) ? (outcome.json.value as Record<string, unknown>).choices : undefined),
        ));
    }
    // The request's price, as its log row records it (a stream without usage: priced from the estimate).
    const cost = spent && hasCost ? priceOfRequest(done, dp.ctx.startedAt, done.usage === undefined ? usage : undefined).cost : 0;
    // Each settlement one plain literal (a spread of the reservation plus three members went through V8's runtime per request).
    const settlements: Array<UsageSettlement & { id: string; limit: number }> = [];
    for (const { policy, entry: e } of l.reserved) {
      const delta = (spent || policy.type === 'requests' ? settledAmount(policy.type, cost, tokens) : 0) - e.amount;
      if (delta === 0 && policy.alertAt === null) continue;
      settlements.push({
        policyId: e.policyId,
        windowStart: e.windowStart,
        resetAt: e.resetAt,
        group: e.group,
        limit: e.limit,
        id: policy.id,
        delta,
        alertAt: policy.alertAt,
      });
    }
    if (spent && hasCost) {
      for (const r of l.reserved) {
        if (r.policy.type !== 'cost') continue;
        const prev = learnedCost.get(r.policy.id);
        learnedCost.set(r.policy.id, prev === undefined ? cost : prev * (1 - COST_EWMA) + cost * COST_EWMA);
      }
    }
    const results = await deps.counters.settle(settlements);
    const now = deps.clock.now();
    for (let i = 0; i < results.length; i++) {
      const res = results[i]!;
      if (!res.alert) continue;
      const s = settlements[i]!;
      await deps.alert({
        organisationId: l.organisationId,
        workspaceId: dp.ctx.workspaceId,
        policyId: s.id,
        group: JSON.parse(s.group) as Record<string, string>,
        used: res.used,
        alertThreshold: s.alertAt!,
        creditLimit: s.limit,
        windowStartedAt: s.windowStart,
        at: now,
      });
    }
  }

  return {
    name: 'usage-limits',
    before(dp) {
      const snapshot = deps.runtime.current;
      const policies = sectionOf<UsageLimitSection>(snapshot, USAGE_LIMIT_SECTION)?.byWorkspace.get(dp.ctx.workspaceId);
      // Fast path: no usage limit in this workspace, nothing to await.
      if (!policies?.length) return;
      return enforce(dp, snapshot, policies);
    },
    after(dp, done) {
      const l = dp.locals[LOCALS] as UsageLocals | undefined;
      if (!l) return;
      deps.tallies.delete(dp.headers);
      settle(dp, done, l).then(settled, settleFailed);
    },
  };
}

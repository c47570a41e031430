import { Type } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { counterIdOf, scheduleOf } from '../../../features/limits/compiled-usage-policy.js';
import { usageCountersFor } from '../../../features/limits/usage-counters.js';
import type { UsageCounterStore } from '../../../features/limits/usage-counter-store.js';
import { usageWindow } from '../../../features/limits/usage-window.js';
import type { UsageLimitPolicy } from '../../../infra/store/repos/usage-limit-policies.js';
import { defineAction, type ResourceContext } from '../../resource/define-resource.js';
import { IsoTime } from '../../../identity/paging.js';
import { StringEnum } from '../../../foundation/spec/string-enum.js';
import { Nullable } from '../../../foundation/spec/nullable.js';

const Group = Type.Record(Type.String(), Type.String());
const Entity = Type.Object({
  group: Group,
  used: Type.Number(),
  credit_limit: Type.Number(),
  status: StringEnum(['active', 'exhausted']),
  window_started_at: IsoTime,
  next_reset_at: Nullable(IsoTime),
});
const EntityList = Type.Object({ object: Type.Literal('list'), data: Type.Array(Entity), total: Type.Integer() });
const NoBody = Type.Object({}, { additionalProperties: false });
const ResetBody = Type.Object(
  { group: Type.Record(Type.String({ maxLength: 200 }), Type.String({ maxLength: 512 }), { maxProperties: 8 }) },
  { additionalProperties: false },
);
const ResetAnswer = Type.Object({
  object: Type.Literal('usage_limit_entity'),
  policy_id: Type.String(),
  group: Group,
  used: Type.Number(),
  window_started_at: IsoTime,
});

/** The shared counters, or 503 when Redis does not answer (the admin call must not hang or 500). */
async function withCounters<T>(ctx: ResourceContext, run: (c: UsageCounterStore) => Promise<T>): Promise<T> {
  try {
    return await run(usageCountersFor(ctx.deps.state, ctx.deps.clock));
  } catch (err) {
    throw new GatewayError('store_unavailable', 'The usage counters are unreachable; try again shortly.', { cause: err });
  }
}

/** `GET /v1/policies/usage-limits/{id}/entities`: every group with usage in the current window. */
export const listEntities = defineAction<UsageLimitPolicy, typeof NoBody, typeof EntityList>({
  verb: 'entities',
  method: 'GET',
  suffix: '/entities',
  permission: 'usage_limits.read',
  write: false,
  summary: "Lists a usage-limit policy's groups in the current window",
  answer: EntityList,
  async run(ctx, p) {
    const w = usageWindow(scheduleOf(p), ctx.now);
    const groups = await withCounters(ctx, (c) => c.groups(counterIdOf(p.id, p.type), w.start));
    const data = groups.map((g) => ({
      group: JSON.parse(g.group) as Record<string, string>,
      used: g.used,
      credit_limit: p.credit_limit,
      status: g.used >= p.credit_limit ? ('exhausted' as const) : ('active' as const),
      window_started_at: new Date(w.start).toISOString(),
      next_reset_at: w.resetAt === null ? null : new Date(w.resetAt).toISOString(),
    }));
    return { answer: { object: 'list' as const, data, total: data.length } };
  },
});

/**
 * `POST /v1/policies/usage-limits/{id}/entities/reset` `{group}`: sets one group's usage in the current
 * window back to zero. `group` names exactly the policy's group_by keys (400 otherwise).
 */
export const resetEntity = defineAction<UsageLimitPolicy, typeof ResetBody, typeof ResetAnswer>({
  verb: 'reset',
  method: 'POST',
  suffix: '/entities/reset',
  permission: 'usage_limits.write',
  write: true,
  summary: 'Resets one group of a usage-limit policy in the current window',
  body: ResetBody,
  answer: ResetAnswer,
  async run(ctx, p, body) {
    const keys = p.group_by.map((g) => g.key);
    const given = Object.keys(body.group);
    const extra = given.find((k) => !keys.includes(k));
    const missing = keys.find((k) => !given.includes(k));
    if (extra !== undefined || missing !== undefined) {
      const what = extra !== undefined ? `'${extra}' is not a group_by key of this policy` : `'${missing}' is missing`;
      throw new GatewayError('invalid_request', `body.group: ${what}; expected exactly the keys [${keys.join(', ')}].`, {
        param: 'body.group',
      });
    }
    const group: Record<string, string> = {};
    for (const k of keys) group[k] = body.group[k]!;
    const w = usageWindow(scheduleOf(p), ctx.now);
    const text = keys.length === 0 ? '{}' : JSON.stringify(group);
    await withCounters(ctx, (c) => c.reset(counterIdOf(p.id, p.type), w.start, text));
    return {
      answer: {
        object: 'usage_limit_entity' as const,
        policy_id: p.id,
        group,
        used: 0,
        window_started_at: new Date(w.start).toISOString(),
      },
      details: { group, window_started_at: new Date(w.start).toISOString() },
    };
  },
});

import { Type } from 'typebox';
import { GatewayError } from '../../../errors/gateway-error.js';
import { uuid } from '../../../lib/ids.js';
import { scheduleOf } from '../../../limits/compiled-usage-policy.js';
import { USAGE_LIMIT_SECTION } from '../../../limits/usage-limit-section.js';
import { usageWindow } from '../../../limits/usage-window.js';
import { getUsageLimitPolicy, insertUsageLimitPolicy, listUsageLimitPolicies, updateUsageLimitPolicy, type UsageLimitPolicy } from '../../../store/repos/usage-limit-policies.js';
import { defineResource } from '../../resource/define-resource.js';
import { IsoTime, iso } from '../../resource/paging.js';
import { listEntities, resetEntity } from './usage-limit-entities.js';
import { usageLimitPatch } from './usage-limit-fields.js';

const LimitType = Type.Union([Type.Literal('cost'), Type.Literal('tokens'), Type.Literal('requests')]);
const Reset = Type.Union([Type.Literal('weekly'), Type.Literal('monthly')]);
const Status = Type.Union([Type.Literal('active'), Type.Literal('archived')]);
const Name = Type.Union([Type.String({ maxLength: 200 }), Type.Null()]);
const Amount = Type.Number({ exclusiveMinimum: 0, maximum: 1e15 });
const Days = Type.Integer({ minimum: 1, maximum: 365 });
const ResetAt = Type.String({ minLength: 10, maxLength: 40 });
const Conditions = Type.Array(Type.Object({ key: Type.String({ minLength: 1, maxLength: 200 }), value: Type.String({ maxLength: 512 }) }, { additionalProperties: false }), { maxItems: 32 });
const GroupBy = Type.Array(Type.Object({ key: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }), { maxItems: 8 });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

const CreatePolicy = Type.Object(
  {
    name: Type.Optional(Name),
    workspace_id: Type.Optional(Type.String({ minLength: 1 })),
    type: LimitType,
    credit_limit: Amount,
    alert_threshold: Type.Optional(Nullable(Amount)),
    periodic_reset: Type.Optional(Nullable(Reset)),
    periodic_reset_days: Type.Optional(Nullable(Days)),
    next_usage_reset_at: Type.Optional(Nullable(ResetAt)),
    conditions: Type.Optional(Conditions),
    group_by: Type.Optional(GroupBy),
  },
  { additionalProperties: false },
);
const UpdatePolicy = Type.Object(
  {
    name: Type.Optional(Name),
    type: Type.Optional(LimitType),
    credit_limit: Type.Optional(Amount),
    alert_threshold: Type.Optional(Nullable(Amount)),
    periodic_reset: Type.Optional(Nullable(Reset)),
    periodic_reset_days: Type.Optional(Nullable(Days)),
    next_usage_reset_at: Type.Optional(Nullable(ResetAt)),
    conditions: Type.Optional(Conditions),
    group_by: Type.Optional(GroupBy),
  },
  { additionalProperties: false, minProperties: 1 },
);
const ListQuery = Type.Object({ status: Type.Optional(Status), type: Type.Optional(LimitType) });
const ReadQuery = Type.Object({ status: Type.Optional(Status) }, { additionalProperties: false });
const Uuid = Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' });
const ListItem = Type.Object({
  id: Type.String(),
  name: Name,
  type: LimitType,
  credit_limit: Type.Number(),
  alert_threshold: Type.Union([Type.Number(), Type.Null()]),
  periodic_reset: Type.Union([Reset, Type.Null()]),
  periodic_reset_days: Type.Union([Type.Integer(), Type.Null()]),
  next_usage_reset_at: Type.Union([IsoTime, Type.Null()]),
  last_reset_at: Type.Union([IsoTime, Type.Null()]),
  conditions: Type.Array(Type.Object({ key: Type.String(), value: Type.String() })),
  group_by: Type.Array(Type.Object({ key: Type.String() })),
  status: Status,
  workspace_id: Type.String(),
  organisation_id: Type.String(),
  created_at: IsoTime,
  last_updated_at: IsoTime,
});
const PolicyAnswer = Type.Object({ ...ListItem.properties, object: Type.Literal('policy_usage_limits') });

/**
 * A policy as answers show it. `next_usage_reset_at` is when the current window ends (null: never),
 * `last_reset_at` when it began if that was a reset (null while the first window runs).
 */
function presentItem(p: UsageLimitPolicy) {
  const w = usageWindow(scheduleOf(p), Date.now());
  return {
    id: p.id,
    name: p.name,
    type: p.type,
    credit_limit: p.credit_limit,
    alert_threshold: p.alert_threshold,
    periodic_reset: p.periodic_reset,
    periodic_reset_days: p.periodic_reset_days,
    next_usage_reset_at: w.resetAt === null ? null : iso(w.resetAt),
    last_reset_at: w.start > p.created_at ? iso(w.start) : null,
    conditions: p.conditions,
    group_by: p.group_by,
    status: p.status,
    workspace_id: p.workspace_id,
    organisation_id: p.organisation_id,
    created_at: iso(p.created_at),
    last_updated_at: iso(p.updated_at),
  };
}

/**
 * `/v1/policies/usage-limits`: create, update, archive (DELETE answers the archived policy), read
 * (`?status=archived` reads an archived one) and list usage-limit policies, plus each policy's
 * `/entities` and `/entities/reset`. Same conditions, group_by, status filter, paging and errors as
 * the rate-limit policies. Every write republishes the usage-limit section. See docs/usage-limits.md.
 */
export const usageLimitPoliciesResource = defineResource({
  name: 'usage_limit_policy',
  paths: ['/v1/policies/usage-limits'],
  tag: 'usage-limit policies',
  noun: { one: 'a usage-limits policy', many: 'usage-limits policies' },
  permissions: { read: 'usage_limits.read', write: 'usage_limits.write' },
  runtimeSections: [USAGE_LIMIT_SECTION],
  schemas: { create: CreatePolicy, update: UpdatePolicy, listQuery: ListQuery, answer: PolicyAnswer },
  removal: 'archive',
  removeAnswer: 'record',
  idSchema: Uuid,
  readQuery: ReadQuery,
  listItem: { schema: ListItem, present: presentItem },
  actions: [listEntities, resetEntity],
  repo: {
    get: (db, scope, id) => getUsageLimitPolicy(db, scope, id.toLowerCase()),
    list: (db, scope, q, page) => listUsageLimitPolicies(db, scope, { status: q.status ?? 'active', type: q.type, ...page }),
    async remove(db, scope, p, now) {
      await updateUsageLimitPolicy(db, scope, p.id, { status: 'archived' }, now);
      return getUsageLimitPolicy(db, scope, p.id);
    },
  },
  readable: (p, query) => p.status === (typeof query === 'object' && query !== null && 'status' in query && query.status === 'archived' ? 'archived' : 'active'),
  writable(p) {
    if (p.status === 'archived') throw new GatewayError('conflict', `Usage-limits policy '${p.id}' is archived and cannot be changed.`, { param: 'id' });
  },
  idOf: (p) => p.id,
  workspaceOf: (p) => p.workspace_id,
  present: (p) => ({ ...presentItem(p), object: 'policy_usage_limits' as const }),
  async create(ctx, body) {
    const patch = usageLimitPatch(body);
    const record: UsageLimitPolicy = {
      id: uuid(),
      organisation_id: ctx.principal.organisationId,
      workspace_id: ctx.workspaceId,
      name: body.name ?? null,
      type: body.type,
      credit_limit: body.credit_limit,
      alert_threshold: patch.alert_threshold ?? null,
      periodic_reset: patch.periodic_reset ?? null,
      periodic_reset_days: patch.periodic_reset_days ?? null,
      next_usage_reset_at: patch.next_usage_reset_at ?? null,
      conditions: body.conditions ?? [],
      group_by: body.group_by ?? [],
      status: 'active',
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertUsageLimitPolicy(ctx.db, ctx.scope, record);
    return { record, details: { name: record.name, type: record.type, credit_limit: record.credit_limit } };
  },
  async update(ctx, p, body) {
    const patch = usageLimitPatch(body, p);
    await updateUsageLimitPolicy(ctx.db, ctx.scope, p.id, { ...patch, ...(body.name !== undefined ? { name: body.name } : {}), ...(body.type !== undefined ? { type: body.type } : {}) }, ctx.now);
    return { record: (await getUsageLimitPolicy(ctx.db, ctx.scope, p.id)) ?? p, details: { changed: Object.keys(body) } };
  },
});

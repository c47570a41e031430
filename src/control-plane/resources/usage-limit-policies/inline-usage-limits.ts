import { Type, type Static } from 'typebox';
import type { Kysely } from 'kysely';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { uuid } from '../../../foundation/lib/ids.js';
import { holds } from '../../../kernel/principal.js';
import type { TenantScope } from '../../../kernel/tenant-scope.js';
import type { Database } from '../../../infra/store/schema.js';
import {
  archiveOwnedUsageLimitPolicies,
  insertUsageLimitPolicy,
  listOwnedUsageLimitPolicies,
  type UsageLimitPolicy,
} from '../../../infra/store/repos/usage-limit-policies.js';
import type { ResourceContext } from '../../resource/define-resource.js';
import { usageLimitPatch } from './usage-limit-fields.js';
import { Amount, Days, LimitFieldsAnswer, LimitType, Reset, ResetAt, presentLimitFields } from './usage-limit-schemas.js';
import { Nullable } from '../../../foundation/spec/nullable.js';

/** What can carry inline `usage_limits`: an API key (of a workspace) or a workspace. */
export interface InlineOwner {
  type: 'api_key' | 'workspace';
  id: string;
  /** The workspace the policies live in (the key's, or the workspace itself). */
  workspaceId: string;
}

/** One inline limit: a usage-limit policy's own fields, without conditions or group_by (the owner fixes them). */
export const InlineUsageLimit = Type.Object(
  {
    type: LimitType,
    credit_limit: Amount,
    alert_threshold: Type.Optional(Nullable(Amount)),
    periodic_reset: Type.Optional(Nullable(Reset)),
    periodic_reset_days: Type.Optional(Nullable(Days)),
    next_usage_reset_at: Type.Optional(Nullable(ResetAt)),
  },
  { additionalProperties: false },
);
/** `usage_limits` of a create or update: the owner's whole set (an update replaces it; `[]` removes all). */
export const InlineUsageLimits = Type.Array(InlineUsageLimit, { maxItems: 8 });

/** An inline limit as answers show it, with the id of the policy it is. */
export const InlineUsageLimitAnswer = Type.Object({ policy_id: Type.String(), ...LimitFieldsAnswer.properties });
export type InlineUsageLimitView = Static<typeof InlineUsageLimitAnswer>;

/** The `owner` column's value for an owner. */
export const ownerKey = (o: Pick<InlineOwner, 'type' | 'id'>): string => `${o.type}:${o.id}`;

/** A policy's `managed_by` answer field from its `owner` column. */
export function managedBy(owner: string | null): { type: 'api_key' | 'workspace'; id: string } | null {
  if (owner === null) return null;
  const i = owner.indexOf(':');
  return { type: owner.slice(0, i) as 'api_key' | 'workspace', id: owner.slice(i + 1) };
}

/** Only the owner's workspace: the inline policies of a key or workspace live there. */
const ownScope = (organisationId: string, workspaceId: string): TenantScope => ({
  organisationId,
  workspaceIds: [workspaceId],
  organisationWide: false,
});

/**
 * Replaces the owner's inline limits with `limits`, in the write's transaction: its active inline policies
 * are archived and one policy per entry is created in its workspace, with the condition and group
 * `api_key = <key id>` (a key) or `workspace_id = <workspace id>` (a workspace). Each entry is checked like
 * a policy (errors name `body.usage_limits[i].<field>`). Setting them needs `usage_limits.write` (403).
 */
export async function replaceInlineUsageLimits(
  ctx: ResourceContext,
  owner: InlineOwner,
  limits: ReadonlyArray<Static<typeof InlineUsageLimit>>,
): Promise<void> {
  if (!holds(ctx.principal, 'usage_limits.write')) {
    throw new GatewayError('forbidden', "Setting usage_limits needs the 'usage_limits.write' scope.", { param: 'usage_limits' });
  }
  const patches = limits.map((l, i) => usageLimitPatch(l, undefined, `body.usage_limits[${i}]`));
  const scope = ownScope(ctx.principal.organisationId, owner.workspaceId);
  const key = ownerKey(owner);
  await archiveOwnedUsageLimitPolicies(ctx.db, scope, key, ctx.now);
  const factKey = owner.type === 'api_key' ? 'api_key' : 'workspace_id';
  for (const [i, l] of limits.entries()) {
    const p = patches[i]!;
    const policy: UsageLimitPolicy = {
      id: uuid(),
      organisation_id: ctx.principal.organisationId,
      workspace_id: owner.workspaceId,
      name: `${key} usage_limits[${i}]`,
      type: l.type,
      credit_limit: l.credit_limit,
      alert_threshold: p.alert_threshold ?? null,
      periodic_reset: p.periodic_reset ?? null,
      periodic_reset_days: p.periodic_reset_days ?? null,
      next_usage_reset_at: p.next_usage_reset_at ?? null,
      conditions: [{ key: factKey, value: owner.id }],
      group_by: [{ key: factKey }],
      status: 'active',
      owner: key,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertUsageLimitPolicy(ctx.db, scope, policy);
  }
}

/** Archives an owner's inline policies (a revoked key's). */
export async function dropInlineUsageLimits(db: Kysely<Database>, organisationId: string, owner: InlineOwner, now: number): Promise<void> {
  await archiveOwnedUsageLimitPolicies(db, ownScope(organisationId, owner.workspaceId), ownerKey(owner), now);
}

const view = (p: UsageLimitPolicy, now: number): InlineUsageLimitView => ({ policy_id: p.id, ...presentLimitFields(p, now) });

/**
 * Attaches each record's inline limits (`usage_limits`, in creation order) with one query for all of
 * them; records without an owner (an organisation key) get none.
 */
export async function withInlineUsageLimits<R extends object>(
  db: Kysely<Database>,
  scope: TenantScope,
  records: R[],
  ownerOf: (r: R) => Pick<InlineOwner, 'type' | 'id'> | null,
): Promise<Array<R & { usage_limits: InlineUsageLimitView[] }>> {
  const owners = records.map(ownerOf);
  const policies = await listOwnedUsageLimitPolicies(db, scope, owners.filter((o) => o !== null).map(ownerKey));
  const byOwner = new Map<string, InlineUsageLimitView[]>();
  const now = Date.now();
  for (const p of policies) {
    const list = byOwner.get(p.owner!) ?? [];
    list.push(view(p, now));
    byOwner.set(p.owner!, list);
  }
  return records.map((r, i) => ({ ...r, usage_limits: owners[i] ? (byOwner.get(ownerKey(owners[i]!)) ?? []) : [] }));
}

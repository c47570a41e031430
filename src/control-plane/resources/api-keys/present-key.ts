import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { getApiKey, type ApiKeyRecord } from '../../../infra/store/repos/api-keys.js';
import type { ResourceContext } from '../../resource/define-resource.js';
import { iso } from '../../../identity/paging.js';
import { withInlineUsageLimits, type InlineOwner, type InlineUsageLimitView } from '../usage-limit-policies/inline-usage-limits.js';

/** A stored key with its inline `usage_limits` (the policies it owns) attached. */
export type KeyRecord = ApiKeyRecord & { usage_limits?: InlineUsageLimitView[] };

/** The owner of a key's inline limits (none for an organisation key, which has no workspace). */
export const keyOwner = (k: ApiKeyRecord): InlineOwner | null =>
  k.workspace_id === null ? null : { type: 'api_key', id: k.id, workspaceId: k.workspace_id };

/**
 * The public view of a key: never its value, hash or sealed pending value. `rotation_policy` shows
 * the time of the next scheduled rotation (`next_rotation_at`, null when none).
 */
export function presentKey(k: KeyRecord) {
  const next = k.next_rotation_at ?? null;
  return {
    id: k.id,
    object: 'api_key' as const,
    name: k.name,
    type: k.type,
    organisation_id: k.organisation_id,
    workspace_id: k.workspace_id,
    user_id: k.user_id ?? null,
    scopes: k.scopes,
    status: k.status === 'revoked' ? ('revoked' as const) : ('active' as const),
    key_hint: k.key_hint,
    creation_mode: k.creation_mode ?? 'api',
    expires_at: iso(k.expires_at),
    rotation_policy: k.rotation_policy ? { ...k.rotation_policy, next_rotation_at: iso(next) } : null,
    key_transition_expires_at: iso(k.key_transition_expires_at),
    last_used_at: iso(k.last_used_at),
    metadata: k.metadata,
    defaults: k.defaults ?? null,
    usage_limits: k.usage_limits ?? [],
    created_at: iso(k.created_at),
    updated_at: iso(k.updated_at),
  };
}

/** The tenant scope of key writes: organisation-level keys are within reach of organisation principals only. */
export function writeScope(ctx: ResourceContext) {
  return { ...ctx.scope, organisationWide: ctx.principal.workspaceId === null };
}

/** A key of the write's scope as now stored, with its inline limits (404 when gone). */
export async function reread(ctx: ResourceContext, id: string): Promise<KeyRecord> {
  const scope = writeScope(ctx);
  const k = await getApiKey(ctx.db, scope, id);
  if (!k) throw new GatewayError('not_found', `Unknown API key '${id}'.`, { param: 'id' });
  return (await withInlineUsageLimits(ctx.db, scope, [k], keyOwner))[0]!;
}

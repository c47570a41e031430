import type { Kysely } from 'kysely';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import type { Database } from '../../../infra/store/schema.js';
import { effectiveSetting, type StoredSettings } from '../../../kernel/settings.js';
import type { RotationPeriod, RotationPolicy } from './rotation-schedule.js';

/**
 * The `user_api_key_rotation_period` that applies to a workspace: its effective setting (the
 * workspace's own override when it has the key — null there turns enforcement off — else its
 * organisation's, else none).
 */
export async function userKeyRotationPeriod(
  db: Kysely<Database>,
  organisationId: string,
  workspaceId: string,
): Promise<RotationPeriod | null> {
  const ws = await db
    .selectFrom('workspaces')
    .select('settings')
    .where('id', '=', workspaceId)
    .where('organisation_id', '=', organisationId)
    .executeTakeFirst();
  const org = await db.selectFrom('organisations').select('settings').where('id', '=', organisationId).executeTakeFirst();
  const parse = (json: string | undefined) => (json ? (JSON.parse(json) as StoredSettings) : null);
  const value = effectiveSetting('user_api_key_rotation_period', parse(ws?.settings), parse(org?.settings)).value;
  return value === 'weekly' || value === 'monthly' ? value : null;
}

/**
 * Applies an enforced rotation period to a `workspace-user` key's policy: none given (on create) →
 * `{rotation_period: enforced}`; given without a period → the enforced one added; a different period,
 * or removing the policy on update, → 400 naming `rotation_policy.rotation_period`.
 */
export function withEnforcedPeriod(
  enforced: RotationPeriod | null,
  policy: RotationPolicy | null | undefined,
  creating: boolean,
): RotationPolicy | null | undefined {
  if (!enforced) return policy;
  const refuse = (got: string) =>
    new GatewayError(
      'invalid_request',
      `rotation_policy.rotation_period: this workspace requires user keys to rotate ${enforced} (user_api_key_rotation_period); got ${got}.`,
      { param: 'rotation_policy.rotation_period' },
    );
  if (policy === undefined) return creating ? { rotation_period: enforced } : undefined;
  if (policy === null) {
    if (creating) return { rotation_period: enforced };
    throw refuse('no rotation policy');
  }
  if (policy.rotation_period === undefined) return { ...policy, rotation_period: enforced };
  if (policy.rotation_period !== enforced) throw refuse(`'${policy.rotation_period}'`);
  return policy;
}

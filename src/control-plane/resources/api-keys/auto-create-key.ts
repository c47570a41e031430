import type { Kysely } from 'kysely';
import type { Database } from '../../../infra/store/schema.js';
import { sha256Hex } from '../../../foundation/lib/hash.js';
import { uuid } from '../../../foundation/lib/ids.js';
import type { SecretBox } from '../../../foundation/lib/secret-box.js';
import { effectiveSetting, type StoredSettings } from '../../../kernel/settings.js';
import { insertApiKey } from '../../../infra/store/repos/api-keys.js';
import { keyHint, newKeyValue } from './key-value.js';
import { firstRotationAt } from './rotation-schedule.js';
import { userKeyRotationPeriod } from './enforced-rotation.js';

/** Who joined which workspace, and what the caller's transaction needs to make their key. */
export interface JoinedWorkspace {
  readonly organisationId: string;
  readonly workspaceId: string;
  readonly userId: string;
  readonly now: number;
  /** Seals the new value (the gateway's secret box). */
  readonly secrets: SecretBox;
  /** `API_KEY_PREFIX`. */
  readonly prefix: string;
}

/**
 * `user_api_key_auto_create` (an organisation setting): when it is on, a user who joins a workspace
 * gets a `workspace-user` key there with `creation_mode: "auto"` and its type's default scopes (its
 * user's role limits them), following the workspace's enforced rotation period. It runs on the
 * caller's transaction (`db`), so the key exists exactly when the membership does. The value is
 * never answered here: it is sealed by the secret box (bound to the key id) as the key's pending
 * value, shown once, to that user, by `POST /v1/api-keys/{id}/reveal`. Invites and member adds call
 * it; SSO first login and SCIM provisioning are to call the same function. Answers the new key's id,
 * or null when the setting is off or the user is not active.
 */
export async function autoCreateUserKey(db: Kysely<Database>, j: JoinedWorkspace): Promise<string | null> {
  const org = await db.selectFrom('organisations').select('settings').where('id', '=', j.organisationId).executeTakeFirst();
  if (!org || effectiveSetting('user_api_key_auto_create', null, JSON.parse(org.settings) as StoredSettings).value !== true) return null;
  const user = await db
    .selectFrom('users')
    .select(['email', 'status'])
    .where('id', '=', j.userId)
    .where('organisation_id', '=', j.organisationId)
    .executeTakeFirst();
  if (!user || user.status !== 'active') return null;
  const period = await userKeyRotationPeriod(db, j.organisationId, j.workspaceId);
  const policy = period ? { rotation_period: period } : null;
  const id = uuid();
  const value = newKeyValue(j.prefix);
  await insertApiKey(
    db,
    { organisationId: j.organisationId, workspaceIds: [j.workspaceId], organisationWide: false },
    {
      id,
      organisation_id: j.organisationId,
      workspace_id: j.workspaceId,
      name: `${user.email} (auto)`,
      type: 'workspace-user',
      key_hash: sha256Hex(value),
      key_hint: keyHint(value, j.prefix),
      scopes: [],
      status: 'active',
      expires_at: null,
      rotation_policy: policy,
      metadata: {},
      creation_mode: 'auto',
      next_rotation_at: firstRotationAt(policy, j.now),
      pending_key_ciphertext: j.secrets.encrypt(value, id),
      user_id: j.userId,
      created_at: j.now,
      updated_at: j.now,
    },
  );
  return id;
}

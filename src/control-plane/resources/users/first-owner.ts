import type { Kysely } from 'kysely';
import type { Database } from '../../../infra/store/schema.js';
import { insertApiKey } from '../../../infra/store/repos/api-keys.js';
import { insertMember, insertUser } from '../../../infra/store/repos/users.js';
import { sha256Hex } from '../../../foundation/lib/hash.js';
import { uuid } from '../../../foundation/lib/ids.js';
import { keyHint, newKeyValue } from '../api-keys/key-value.js';
import type { AdminKeyTenant } from '../api-keys/admin-key.js';

/** The first owner's user id and the value of their console sign-in key (shown once, by the caller). */
export interface FirstOwner {
  userId: string;
  key: string;
}

/**
 * The organisation's first user, made by the first start so the console can be signed in to at once:
 * `email`, organisation role `owner`, admin of the default workspace, with one `workspace-user` key
 * named `console sign-in` (its type's default scopes; the console session acts with the owner's role)
 * whose value the caller prints once. Only the key's hash is stored.
 */
export async function insertFirstOwner(
  db: Kysely<Database>,
  tenant: AdminKeyTenant,
  email: string,
  prefix: string,
  now: number,
): Promise<FirstOwner> {
  const userId = uuid();
  await insertUser(db, {
    id: userId,
    organisation_id: tenant.organisationId,
    email,
    name: 'Owner',
    role: 'owner',
    status: 'active',
    created_at: now,
    updated_at: now,
  });
  await insertMember(db, { workspace_id: tenant.workspaceId, user_id: userId, role: 'admin', created_at: now });
  const key = newKeyValue(prefix);
  await insertApiKey(
    db,
    { organisationId: tenant.organisationId, workspaceIds: [tenant.workspaceId], organisationWide: false },
    {
      id: uuid(),
      organisation_id: tenant.organisationId,
      workspace_id: tenant.workspaceId,
      name: 'console sign-in',
      type: 'workspace-user',
      key_hash: sha256Hex(key),
      key_hint: keyHint(key, prefix),
      scopes: [],
      status: 'active',
      expires_at: null,
      rotation_policy: null,
      metadata: {},
      user_id: userId,
      created_at: now,
      updated_at: now,
    },
  );
  return { userId, key };
}

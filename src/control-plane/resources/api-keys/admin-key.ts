import type { Kysely } from 'kysely';
import type { Database } from '../../../infra/store/schema.js';
import { insertApiKey } from '../../../infra/store/repos/api-keys.js';
import { sha256Hex } from '../../../foundation/lib/hash.js';
import { uuid } from '../../../foundation/lib/ids.js';
import { keyHint } from './key-value.js';

/** What an organisation's first admin key holds: `*`, explicitly (keys created without scopes get only their type's defaults). */
export const ADMIN_KEY_SCOPES: readonly string[] = ['*'];

/** The organisation an admin key is made for, and its default workspace. */
export interface AdminKeyTenant {
  organisationId: string;
  workspaceId: string;
}

/**
 * Inserts an organisation's first organisation-service key, named `admin`, holding `*`, whose value is
 * `value` (only its hash is stored); returns its id. The bootstrap makes the instance operator's key this
 * way (`instanceOperator`), `POST /v1/organisations` each new organisation's key (never an operator's).
 */
export async function insertAdminKey(
  db: Kysely<Database>,
  tenant: AdminKeyTenant,
  value: string,
  prefix: string,
  now: number,
  instanceOperator: boolean,
): Promise<string> {
  const id = uuid();
  await insertApiKey(
    db,
    { organisationId: tenant.organisationId, workspaceIds: [tenant.workspaceId], organisationWide: true },
    {
      id,
      organisation_id: tenant.organisationId,
      workspace_id: null,
      name: 'admin',
      type: 'organisation-service',
      key_hash: sha256Hex(value),
      // A value set by GATEWAY_ADMIN_KEY need not carry the prefix: its hint is its first four characters, as before.
      key_hint: value.startsWith(prefix) ? keyHint(value, prefix) : value.slice(0, 4),
      scopes: [...ADMIN_KEY_SCOPES],
      status: 'active',
      expires_at: null,
      rotation_policy: null,
      metadata: {},
      ...(instanceOperator ? { instance_operator: true } : {}),
      created_at: now,
      updated_at: now,
    },
  );
  return id;
}

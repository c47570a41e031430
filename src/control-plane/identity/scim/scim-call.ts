import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../../infra/store/schema.js';
import { sha256Hex } from '../../../foundation/lib/hash.js';
import { uuid } from '../../../foundation/lib/ids.js';
import type { RuntimeChange } from '../../../kernel/runtime-change.js';
import { API_KEYS_SECTION } from '../../../runtime/core-sections.js';
import { SESSIONS_SECTION } from '../../../runtime/sessions-section.js';
import { isUniqueViolation, recordRuntimeChange } from '../../../infra/store/store.js';
import { insertAuditEntry } from '../../../infra/store/repos/audit-logs.js';
import { scimTokenByHash } from '../../../infra/store/repos/scim.js';
import type { GatewayDeps } from '../../../data-plane/pipeline/deps.js';
import { withoutSecrets } from '../../resource/audit.js';
import { startAfterCommit } from '../../resource/after-commit.js';
import type { AfterCommit, AfterCommitTask } from '../../../kernel/after-commit.js';
import { ScimError } from './scim-error.js';
import type { SyncContext } from './sync-memberships.js';

/** One authenticated SCIM request: its organisation and token, and what its writes need. */
export interface ScimCall extends SyncContext {
  readonly deps: GatewayDeps;
  readonly request: FastifyRequest;
  readonly tokenId: string;
  /** The base URL of the SCIM API as the client reached it (for `meta.location`). */
  readonly base: string;
}

/**
 * Authenticates a SCIM request by its `Authorization: Bearer <SCIM token>` (a token of
 * `POST /v1/scim/tokens`, looked up by its SHA-256; a revoked one is refused): 401 otherwise.
 */
export async function scimCall(deps: GatewayDeps, request: FastifyRequest): Promise<ScimCall> {
  const auth = request.headers.authorization;
  const token = typeof auth === 'string' && /^bearer /i.test(auth) ? auth.slice(7).trim() : '';
  if (!token) throw new ScimError(401, 'Send a SCIM token as Authorization: Bearer <token>.');
  const row = await scimTokenByHash(deps.store.db, sha256Hex(token));
  if (!row) throw new ScimError(401, 'Unknown or revoked SCIM token.');
  const host = request.headers.host ?? 'localhost';
  return {
    deps,
    request,
    tokenId: row.id,
    organisationId: row.organisation_id,
    now: deps.clock.now(),
    secrets: deps.secrets,
    prefix: deps.settings.apiKeyPrefix,
    base: `${request.protocol}://${host}/v1/scim/v2`,
  };
}

/** Writes an audit entry of a SCIM change (actor `{type: "scim", id: <token id>}`) on the change's transaction. */
export async function scimAudit(
  db: Kysely<Database>,
  call: ScimCall,
  action: string,
  resourceType: string,
  resourceId: string,
  details: Record<string, unknown> = {},
): Promise<void> {
  await insertAuditEntry(db, {
    id: uuid(),
    created_at: call.now,
    organisation_id: call.organisationId,
    workspace_id: null,
    actor_type: 'scim',
    actor_id: call.tokenId,
    action,
    resource_type: resourceType,
    resource_id: resourceId,
    request_id: call.request.id,
    client_ip: call.request.ip ?? null,
    details: withoutSecrets(details) as Record<string, unknown>,
  });
}

/**
 * Runs a SCIM write in one transaction with its audit entries and the runtime change of the
 * api-keys and sessions sections (users, memberships, revocations), which every replica reloads;
 * a unique violation is 409 `uniqueness`. `fn` may hand `afterCommit` work to start once the write
 * committed (never after a rollback), as a resource's write does (`ResourceContext.afterCommit`).
 */
export async function scimWrite<T>(call: ScimCall, fn: (db: Kysely<Database>, afterCommit: AfterCommit) => Promise<T>): Promise<T> {
  const changes: RuntimeChange[] = [
    { section: API_KEYS_SECTION, workspaceId: null },
    { section: SESSIONS_SECTION, workspaceId: null },
  ];
  const tasks: AfterCommitTask[] = [];
  let out: T;
  try {
    out = await call.deps.store.db.transaction().execute(async (trx) => {
      const result = await fn(trx, (task) => void tasks.push(task));
      await recordRuntimeChange(trx, changes);
      return result;
    });
  } catch (err) {
    if (isUniqueViolation(err))
      throw new ScimError(409, 'A resource with this userName, email or displayName already exists.', 'uniqueness');
    throw err;
  }
  await call.deps.runtime.committed(changes);
  startAfterCommit(tasks, call.deps.logger);
  return out;
}

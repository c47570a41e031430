import type { Kysely } from 'kysely';
import type { FastifyRequest } from 'fastify';
import type { Database } from '../../infra/store/schema.js';
import { insertAuditEntry } from '../../infra/store/repos/audit-logs.js';
import type { Principal } from '../../kernel/principal.js';
import { uuid } from '../../foundation/lib/ids.js';

/** What a write tells the audit log about itself. */
export interface AuditRecord {
  /** `<resource>.<verb>`: `config.create`, `api_key.rotate`, ... */
  action: string;
  resourceType: string;
  resourceId: string | null;
  workspaceId: string | null;
  /** Non-secret facts of the change; members that look like secrets are dropped anyway. */
  details?: Record<string, unknown>;
}

const SECRET_NAME =
  /^(key|secret|token|password|api_key|client_secret|access_key|secret_access_key|session_token|authorization|private_key|key_hash)$/i;

/** A copy of `details` without members whose name says they hold a secret, at any depth. */
export function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(value)) if (!SECRET_NAME.test(name)) out[name] = withoutSecrets(v);
  return out;
}

/** Writes the audit entry of a write made by `principal`, on the write's own transaction. */
export async function writeAudit(
  db: Kysely<Database>,
  request: FastifyRequest,
  principal: Principal,
  now: number,
  r: AuditRecord,
): Promise<void> {
  await insertAuditEntry(db, {
    id: uuid(),
    created_at: now,
    organisation_id: principal.organisationId,
    workspace_id: r.workspaceId,
    // A session acts as its user; keys as themselves.
    actor_type: principal.kind === 'session' ? 'user' : 'api_key',
    actor_id: principal.kind === 'session' ? principal.userId : principal.keyId,
    action: r.action,
    resource_type: r.resourceType,
    resource_id: r.resourceId,
    request_id: request.id,
    client_ip: request.ip ?? null,
    details: withoutSecrets(r.details ?? {}) as Record<string, unknown>,
  });
}

/**
 * Writes the audit entry of a change the gateway made by itself (a scheduled rotation, a reset), on
 * the change's transaction: actor `{type: "system"}`, no request.
 */
export async function writeSystemAudit(db: Kysely<Database>, organisationId: string, now: number, r: AuditRecord): Promise<void> {
  await insertAuditEntry(db, {
    id: uuid(),
    created_at: now,
    organisation_id: organisationId,
    workspace_id: r.workspaceId,
    actor_type: 'system',
    actor_id: null,
    action: r.action,
    resource_type: r.resourceType,
    resource_id: r.resourceId,
    request_id: null,
    client_ip: null,
    details: withoutSecrets(r.details ?? {}) as Record<string, unknown>,
  });
}

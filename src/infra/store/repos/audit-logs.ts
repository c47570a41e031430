import type { Kysely } from 'kysely';
import type { Database, AuditLogsTable } from '../schema.js';
import type { TenantScope } from '../../../kernel/tenant-scope.js';

/** An audit entry as stored (times in ms, details parsed). */
export interface AuditEntry {
  id: string;
  created_at: number;
  organisation_id: string;
  workspace_id: string | null;
  actor_type: 'api_key' | 'user' | 'scim' | 'system';
  actor_id: string | null;
  action: string;
  resource_type: string;
  resource_id: string | null;
  request_id: string | null;
  client_ip: string | null;
  details: Record<string, unknown>;
}

/** Filters of `GET /v1/audit-logs` (control-plane.md §4); times in ms. */
export interface AuditFilter {
  startTime?: number;
  endTime?: number;
  resourceType?: string;
  action?: string;
  actorId?: string;
  workspaceId?: string;
  limit: number;
  offset: number;
}

/** Writes one entry on the given handle (the write's transaction). */
export async function insertAuditEntry(db: Kysely<Database>, e: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_logs')
    .values({ ...e, details: JSON.stringify(e.details) })
    .execute();
}

/** Entries of the scope's organisation, newest first, with the filter's total. */
export async function listAuditEntries(
  db: Kysely<Database>,
  scope: TenantScope,
  f: AuditFilter,
): Promise<{ rows: AuditEntry[]; total: number }> {
  let q = db.selectFrom('audit_logs').where('organisation_id', '=', scope.organisationId);
  if (f.startTime !== undefined) q = q.where('created_at', '>=', f.startTime);
  if (f.endTime !== undefined) q = q.where('created_at', '<=', f.endTime);
  if (f.resourceType !== undefined) q = q.where('resource_type', '=', f.resourceType);
  if (f.action !== undefined) q = q.where('action', '=', f.action);
  if (f.actorId !== undefined) q = q.where('actor_id', '=', f.actorId);
  if (f.workspaceId !== undefined) q = q.where('workspace_id', '=', f.workspaceId);
  const [rows, count] = await Promise.all([
    q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(f.limit).offset(f.offset).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
  ]);
  return { rows: rows.map(fromRow), total: Number(count?.n ?? 0) };
}

function fromRow(r: AuditLogsTable): AuditEntry {
  return { ...r, actor_type: r.actor_type as AuditEntry['actor_type'], created_at: Number(r.created_at), details: JSON.parse(r.details) };
}

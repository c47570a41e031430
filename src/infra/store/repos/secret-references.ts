import type { Kysely } from 'kysely';
import type { Database, SecretReferencesTable } from '../schema.js';
import type { RuntimePage, Store } from '../store.js';
import type { TenantScope } from '../../../kernel/tenant-scope.js';

/** The secret managers a reference may point into. */
export type ManagerType = 'aws_sm' | 'azure_kv' | 'hashicorp_vault';

/**
 * One header `secret_mappings` item of an MCP integration or agent server: header `target_field`
 * (`headers.<Name>`) takes its value from a secret reference at call time (the member `secret_key` of
 * a JSON secret when set), written through `value_format` (`string`, `json`, or a template holding
 * `{{secret}}` once, such as `Bearer {{secret}}`).
 */
export interface HeaderSecretMapping {
  target_field: string;
  secret_reference_id: string;
  secret_key?: string;
  value_format?: string;
}

/** A stored secret reference (organisation-level). */
export interface SecretReference {
  id: string;
  organisation_id: string;
  name: string;
  slug: string;
  manager_type: ManagerType;
  /** `auth_config` sealed by the secret box (context: the id). */
  auth_ciphertext: string;
  /** The public view of `auth_config`: secret members by their hint. */
  auth_hint: Record<string, unknown>;
  secret_path: string;
  secret_key: string | null;
  allow_all_workspaces: boolean;
  allowed_workspaces: string[];
  status: 'active' | 'archived';
  created_at: number;
  updated_at: number;
}

function toRow(r: SecretReference): SecretReferencesTable {
  return {
    ...r,
    auth_hint: JSON.stringify(r.auth_hint),
    allow_all_workspaces: r.allow_all_workspaces ? 1 : 0,
    allowed_workspaces: JSON.stringify(r.allowed_workspaces),
  };
}

function fromRow(r: SecretReferencesTable): SecretReference {
  return {
    ...r,
    manager_type: r.manager_type as ManagerType,
    auth_hint: JSON.parse(r.auth_hint),
    allow_all_workspaces: Number(r.allow_all_workspaces) !== 0,
    allowed_workspaces: JSON.parse(r.allowed_workspaces),
    status: r.status as SecretReference['status'],
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}

function visible(db: Kysely<Database>, scope: TenantScope) {
  return db.selectFrom('secret_references').where('organisation_id', '=', scope.organisationId).where('status', '=', 'active');
}

/** Inserts a reference of the scope's organisation. */
export async function insertSecretReference(db: Kysely<Database>, scope: TenantScope, r: SecretReference): Promise<void> {
  if (r.organisation_id !== scope.organisationId) throw new Error('secret reference outside the scope');
  await db.insertInto('secret_references').values(toRow(r)).execute();
}

/** Replaces the stored fields of a reference of the scope's organisation. */
export async function updateSecretReference(db: Kysely<Database>, scope: TenantScope, r: SecretReference, now: number): Promise<void> {
  const { id, organisation_id: _o, created_at: _c, ...rest } = toRow({ ...r, updated_at: now });
  await db.updateTable('secret_references').set(rest).where('id', '=', id).where('organisation_id', '=', scope.organisationId).execute();
}

/** One active reference of the organisation, by id or slug. */
export async function getSecretReference(db: Kysely<Database>, scope: TenantScope, idOrSlug: string): Promise<SecretReference | undefined> {
  const row = await visible(db, scope)
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', idOrSlug), eb('slug', '=', idOrSlug)]))
    .executeTakeFirst();
  return row && fromRow(row);
}

/** A page of the organisation's active references (newest first), with the total. */
export async function listSecretReferences(
  db: Kysely<Database>,
  scope: TenantScope,
  page: { limit: number; offset: number },
): Promise<{ rows: SecretReference[]; total: number }> {
  const [rows, count] = await Promise.all([
    visible(db, scope).selectAll().orderBy('created_at', 'desc').orderBy('id').limit(page.limit).offset(page.offset).execute(),
    visible(db, scope)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst(),
  ]);
  return { rows: rows.map(fromRow), total: Number(count?.n ?? 0) };
}

/** A page of every active reference by id (the runtime snapshot loads them). */
export async function listActiveSecretReferencesPage(store: Store, p: RuntimePage): Promise<SecretReference[]> {
  let q = store.db.selectFrom('secret_references').selectAll().where('status', '=', 'active');
  if (p.afterId !== undefined) q = q.where('id', '>', p.afterId);
  return (await q.orderBy('id').limit(p.limit).execute()).map(fromRow);
}

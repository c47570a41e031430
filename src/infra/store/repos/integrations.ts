import type { Kysely } from 'kysely';
import type { Database, IntegrationsTable } from '../schema.js';
import type { RuntimePage, Store } from '../store.js';
import type { TenantScope } from '../../../kernel/tenant-scope.js';
import { assertInScope, inList } from './tenant.js';

/** One `secret_mappings` item: fills a field from a secret reference at use time. */
export interface SecretMapping {
  target_field: string;
  secret_reference_id: string;
  secret_key?: string;
  value_format?: 'string' | 'json';
}

/** One model of an integration's `integration-models` list. */
export interface IntegrationModel {
  slug: string;
  enabled: boolean;
  is_custom?: boolean;
  base_model_slug?: string;
  configurations?: { custom_host: string };
  /** Per-model prices (`infra/pricing/price-config.ts`), USD per million tokens by unit. */
  pricing_config?: Partial<Record<'input_mtok' | 'output_mtok' | 'cache_read_mtok' | 'cache_write_mtok' | 'output_reasoning_mtok', number>>;
}

/** A stored integration: a provider credential held once, at organisation level or in one workspace. */
export interface Integration {
  id: string;
  organisation_id: string;
  /** Null: organisation level (shared with `workspaces`). */
  workspace_id: string | null;
  name: string;
  slug: string;
  ai_provider_id: string;
  /** The provider key sealed by the secret box (context: the id); '' when none. */
  key_ciphertext: string;
  key_hint: string | null;
  /** Public settings; credential-like values appear as hints. */
  configurations: Record<string, unknown>;
  /** Credential-like settings, sealed together as JSON (context `<id>:configurations`); '' when none. */
  secret_configurations: string;
  secret_mappings: SecretMapping[];
  pricing_adjustments: { multiplier: number } | null;
  allow_all_models: boolean;
  /** The integration-models list; null when never set. */
  models: IntegrationModel[] | null;
  /** Workspaces an organisation-level integration is shared with. */
  workspaces: string[];
  status: 'active' | 'archived';
  created_at: number;
  updated_at: number;
}

function toRow(i: Integration): IntegrationsTable {
  return {
    ...i,
    configurations: JSON.stringify(i.configurations),
    secret_mappings: JSON.stringify(i.secret_mappings),
    pricing_adjustments: i.pricing_adjustments ? JSON.stringify(i.pricing_adjustments) : null,
    allow_all_models: i.allow_all_models ? 1 : 0,
    models: i.models ? JSON.stringify(i.models) : null,
    workspaces: JSON.stringify(i.workspaces),
  };
}

function fromRow(r: IntegrationsTable): Integration {
  return {
    ...r,
    configurations: JSON.parse(r.configurations),
    secret_mappings: JSON.parse(r.secret_mappings),
    pricing_adjustments: r.pricing_adjustments ? JSON.parse(r.pricing_adjustments) : null,
    allow_all_models: Number(r.allow_all_models) !== 0,
    models: r.models ? JSON.parse(r.models) : null,
    workspaces: JSON.parse(r.workspaces),
    status: r.status as Integration['status'],
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}

/**
 * The integrations a scope sees: its workspaces' own, and organisation-level ones — all of them for an
 * organisation-wide scope, else those shared with one of its workspaces.
 */
function visible(db: Kysely<Database>, scope: TenantScope) {
  return db
    .selectFrom('integrations')
    .where('organisation_id', '=', scope.organisationId)
    .where('status', '=', 'active')
    .where((eb) => {
      const own = eb('workspace_id', 'in', inList(scope));
      if (scope.organisationWide) return eb.or([own, eb('workspace_id', 'is', null)]);
      const shared = scope.workspaceIds.map((w) => eb('workspaces', 'like', `%${JSON.stringify(w)}%`));
      return eb.or([own, eb.and([eb('workspace_id', 'is', null), eb.or(shared.length ? shared : [eb('id', '=', '')])])]);
    });
}

/** Inserts an integration of the scope. */
export async function insertIntegration(db: Kysely<Database>, scope: TenantScope, i: Integration): Promise<void> {
  assertInScope(scope, i.organisation_id, i.workspace_id);
  await db.insertInto('integrations').values(toRow(i)).execute();
}

/** Replaces the stored fields of an integration of the scope (the caller loaded it through the scope). */
export async function updateIntegration(db: Kysely<Database>, scope: TenantScope, i: Integration, now: number): Promise<void> {
  assertInScope(scope, i.organisation_id, i.workspace_id);
  const { id, organisation_id: _o, workspace_id: _w, created_at: _c, ...rest } = toRow({ ...i, updated_at: now });
  await db.updateTable('integrations').set(rest).where('id', '=', id).where('organisation_id', '=', scope.organisationId).execute();
}

/** One active integration the scope sees, by id or slug. */
export async function getIntegration(db: Kysely<Database>, scope: TenantScope, idOrSlug: string): Promise<Integration | undefined> {
  const row = await visible(db, scope)
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', idOrSlug), eb('slug', '=', idOrSlug)]))
    .executeTakeFirst();
  return row && fromRow(row);
}

/** A page of the active integrations the scope sees (newest first), with the total; `workspace` narrows to one workspace's and those shared with it. */
export async function listIntegrations(
  db: Kysely<Database>,
  scope: TenantScope,
  page: { limit: number; offset: number },
): Promise<{ rows: Integration[]; total: number }> {
  const [rows, count] = await Promise.all([
    visible(db, scope).selectAll().orderBy('created_at', 'desc').orderBy('id').limit(page.limit).offset(page.offset).execute(),
    visible(db, scope)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst(),
  ]);
  return { rows: rows.map(fromRow), total: Number(count?.n ?? 0) };
}

/** A page of every active integration by id (the runtime snapshot loads them). */
export async function listActiveIntegrationsPage(store: Store, p: RuntimePage): Promise<Integration[]> {
  let q = store.db.selectFrom('integrations').selectAll().where('status', '=', 'active');
  if (p.afterId !== undefined) q = q.where('id', '>', p.afterId);
  const rows = await q.orderBy('id').limit(p.limit).execute();
  return rows.map(fromRow);
}

/** Active virtual keys (providers) using an integration, in the scope. */
export async function countProvidersOfIntegration(db: Kysely<Database>, integrationId: string): Promise<number> {
  const row = await db
    .selectFrom('virtual_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('integration_id', '=', integrationId)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

import type { Kysely } from 'kysely';

/**
 * SSO (control-plane.md §5), OpenID Connect sign-in:
 * - `sso_settings`: one row per organisation — the issuer, the client (its secret sealed by the
 *   secret box, with a masked hint), extra scopes and email domains (JSON text), first-login rules.
 * - `sso_logins`: sign-ins under way, keyed by the SHA-256 of their `state` — the nonce and PKCE
 *   verifier the callback needs; a row is deleted when the callback takes it (single use) and is
 *   refused after `expires_at`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sso_settings')
    .addColumn('organisation_id', 'varchar(64)', (c) => c.primaryKey().references('organisations.id'))
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('client_secret', 'text', (c) => c.notNull())
    .addColumn('client_secret_hint', 'varchar(64)', (c) => c.notNull())
    .addColumn('token_endpoint_auth_method', 'varchar(32)', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('domains', 'text', (c) => c.notNull())
    .addColumn('default_role', 'varchar(16)', (c) => c.notNull())
    .addColumn('auto_provision', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('sso_logins')
    .addColumn('state_hash', 'varchar(128)', (c) => c.primaryKey())
    .addColumn('organisation_id', 'varchar(64)', (c) => c.notNull().references('organisations.id'))
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('code_verifier', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sso_logins').execute();
  await db.schema.dropTable('sso_settings').execute();
}

import type { Kysely } from 'kysely';
import type { Database, SsoLoginsTable, SsoSettingsTable } from '../schema.js';

/** An email domain SSO accepts; with `allow_subdomains`, its subdomains too. */
export interface SsoDomain {
  domain: string;
  allow_subdomains: boolean;
}

/** An organisation's SSO settings as stored (JSON columns parsed; the secret still sealed). */
export interface SsoSettingsRecord {
  organisation_id: string;
  issuer: string;
  client_id: string;
  client_secret: string;
  client_secret_hint: string;
  token_endpoint_auth_method: 'client_secret_basic' | 'client_secret_post';
  scopes: string[];
  domains: SsoDomain[];
  default_role: 'admin' | 'member';
  auto_provision: boolean;
  created_at: number;
  updated_at: number;
}

function parse(r: SsoSettingsTable): SsoSettingsRecord {
  return {
    ...r,
    token_endpoint_auth_method: r.token_endpoint_auth_method as SsoSettingsRecord['token_endpoint_auth_method'],
    scopes: JSON.parse(r.scopes) as string[],
    domains: JSON.parse(r.domains) as SsoDomain[],
    default_role: r.default_role as SsoSettingsRecord['default_role'],
    auto_provision: Number(r.auto_provision) === 1,
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}

/** The organisation's SSO settings, or undefined when SSO is off. */
export async function getSsoSettings(db: Kysely<Database>, organisationId: string): Promise<SsoSettingsRecord | undefined> {
  const row = await db.selectFrom('sso_settings').selectAll().where('organisation_id', '=', organisationId).executeTakeFirst();
  return row && parse(row);
}

/** Every organisation's SSO settings (few rows: one per organisation with SSO on). */
export async function listSsoSettings(db: Kysely<Database>): Promise<SsoSettingsRecord[]> {
  return (await db.selectFrom('sso_settings').selectAll().orderBy('organisation_id').execute()).map(parse);
}

/** Inserts or replaces the organisation's SSO settings (`created_at` is kept on replace). */
export async function saveSsoSettings(db: Kysely<Database>, s: SsoSettingsRecord): Promise<void> {
  const row: SsoSettingsTable = {
    ...s,
    scopes: JSON.stringify(s.scopes),
    domains: JSON.stringify(s.domains),
    auto_provision: s.auto_provision ? 1 : 0,
  };
  const { organisation_id: _id, created_at: _created, ...changes } = row;
  await db
    .insertInto('sso_settings')
    .values(row)
    .onConflict((oc) => oc.column('organisation_id').doUpdateSet(changes))
    .execute();
}

/** Removes the organisation's SSO settings and its sign-ins under way; false when there were none. */
export async function deleteSsoSettings(db: Kysely<Database>, organisationId: string): Promise<boolean> {
  await db.deleteFrom('sso_logins').where('organisation_id', '=', organisationId).execute();
  const r = await db.deleteFrom('sso_settings').where('organisation_id', '=', organisationId).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** Records a sign-in under way (and drops the expired ones). */
export async function insertSsoLogin(db: Kysely<Database>, login: SsoLoginsTable, now: number): Promise<void> {
  await db.deleteFrom('sso_logins').where('expires_at', '<=', now).execute();
  await db.insertInto('sso_logins').values(login).execute();
}

/**
 * Takes the sign-in of `stateHash` (deletes it, so a replayed callback finds nothing); undefined when
 * there is none or it expired.
 */
export async function takeSsoLogin(db: Kysely<Database>, stateHash: string, now: number): Promise<SsoLoginsTable | undefined> {
  const row = await db.deleteFrom('sso_logins').where('state_hash', '=', stateHash).returningAll().executeTakeFirst();
  if (!row || Number(row.expires_at) <= now) return undefined;
  return row;
}

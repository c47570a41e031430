import type { Kysely } from 'kysely';
import type { Database, JwtSettingsTable } from '../schema.js';
import type { Store } from '../store.js';

/** An organisation's JWT settings as stored (JSON columns parsed). */
export interface JwtSettingsRecord {
  organisation_id: string;
  jwks_url: string | null;
  jwks: { keys: unknown[] } | null;
  issuer: string | null;
  audience: string | null;
  algorithms: string[];
  created_at: number;
  updated_at: number;
}

function parse(r: JwtSettingsTable): JwtSettingsRecord {
  return {
    ...r,
    jwks: r.jwks === null ? null : (JSON.parse(r.jwks) as { keys: unknown[] }),
    algorithms: JSON.parse(r.algorithms) as string[],
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}

/** The organisation's JWT settings, or undefined when JWT authentication is off. */
export async function getJwtSettings(db: Kysely<Database>, organisationId: string): Promise<JwtSettingsRecord | undefined> {
  const row = await db.selectFrom('jwt_settings').selectAll().where('organisation_id', '=', organisationId).executeTakeFirst();
  return row && parse(row);
}

/** Inserts or replaces the organisation's JWT settings (`created_at` is kept on replace). */
export async function saveJwtSettings(db: Kysely<Database>, s: JwtSettingsRecord): Promise<void> {
  const row = { ...s, jwks: s.jwks === null ? null : JSON.stringify(s.jwks), algorithms: JSON.stringify(s.algorithms) };
  const { organisation_id: _id, created_at: _created, ...changes } = row;
  await db
    .insertInto('jwt_settings')
    .values(row)
    .onConflict((oc) => oc.column('organisation_id').doUpdateSet(changes))
    .execute();
}

/** Removes the organisation's JWT settings; false when there were none. */
export async function deleteJwtSettings(db: Kysely<Database>, organisationId: string): Promise<boolean> {
  const r = await db.deleteFrom('jwt_settings').where('organisation_id', '=', organisationId).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** Every organisation's JWT settings (the runtime's JWT section; one row per organisation). */
export async function listJwtSettings(store: Store): Promise<JwtSettingsRecord[]> {
  return (await store.db.selectFrom('jwt_settings').selectAll().orderBy('organisation_id').execute()).map(parse);
}

/** Table types of the identity tables (migration 0020); `schema.ts` adds them to `Database`. */

export interface JwtSettingsTable {
  organisation_id: string;
  jwks_url: string | null;
  /** Inline JWKS, JSON text. */
  jwks: string | null;
  issuer: string | null;
  audience: string | null;
  /** JSON array of algorithm names. */
  algorithms: string;
  created_at: number;
  updated_at: number;
}

export interface ScimTokensTable {
  id: string;
  organisation_id: string;
  token_hash: string;
  token_hint: string;
  created_at: number;
  revoked_at: number | null;
}

export interface ScimUsersTable {
  user_id: string;
  organisation_id: string;
  user_name: string;
  external_id: string | null;
  /** JSON object: the other attributes the directory sent (name, emails, displayName, ...). */
  attributes: string;
}

export interface ScimGroupsTable {
  id: string;
  organisation_id: string;
  display_name: string;
  external_id: string | null;
  created_at: number;
  updated_at: number;
}

export interface ScimGroupMembersTable {
  group_id: string;
  user_id: string;
}

export interface ScimWorkspaceMappingsTable {
  id: string;
  organisation_id: string;
  workspace_id: string;
  group_id: string;
  role: string;
  created_at: number;
}

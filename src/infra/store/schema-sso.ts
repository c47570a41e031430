/** Table types of the SSO tables (migration 0027); `schema.ts` adds them to `Database`. */

export interface SsoSettingsTable {
  organisation_id: string;
  issuer: string;
  client_id: string;
  /** Sealed by the secret box (context `<organisation id>:sso`). */
  client_secret: string;
  client_secret_hint: string;
  token_endpoint_auth_method: string;
  /** JSON array of extra scopes. */
  scopes: string;
  /** JSON array of `{domain, allow_subdomains}`. */
  domains: string;
  default_role: string;
  /** 1 or 0. */
  auto_provision: number;
  created_at: number;
  updated_at: number;
}

export interface SsoLoginsTable {
  state_hash: string;
  organisation_id: string;
  nonce: string;
  code_verifier: string;
  redirect_uri: string;
  created_at: number;
  expires_at: number;
}

import type { ManagerType } from '../store/repos/secret-references.js';
import type { AuthConfig } from './auth-config.js';

/** A secret reference as the resolver uses it: its opened `auth_config` and where the secret is. */
export interface SecretSource {
  id: string;
  name: string;
  organisationId: string;
  managerType: ManagerType;
  auth: AuthConfig;
  /** The secret's name (AWS: SecretId; Azure: secret name; Vault: path under the KV v2 mount). */
  path: string;
  /** The member of a JSON secret to return; null: the whole value. */
  key: string | null;
  /** Changes whenever the reference is edited (its `updated_at`): a cached value of another version is not used. */
  version: number;
  allowAllWorkspaces: boolean;
  allowedWorkspaces: readonly string[];
}

/** Where and how fetchers connect: the outbound guard's DNS lookup, extra CAs, a timeout. */
export interface FetchContext {
  /** A `net.connect` lookup that refuses non-public addresses unless trusted (`OutboundPolicy.lookup`). */
  lookup: import('node:net').LookupFunction;
  /** Checks a URL before it is called (the custom-host guard); throws 400 when refused. */
  checkUrl(url: string): Promise<void>;
  /** Extra trusted CA certificates (PEM), from `SECRET_MANAGER_CA_FILE`. */
  ca?: string;
  timeoutMs: number;
}

/** A secret manager client: the raw secret text at `source.path`. */
export type SecretFetcher = (source: SecretSource, ctx: FetchContext) => Promise<string>;

/**
 * The member `key` of a JSON secret (strings as they are, other values as JSON text), or the whole
 * text without a key. Throws an Error naming the key (never the value) when the text is not a JSON
 * object holding it.
 */
export function pickMember(text: string, key: string | null): string {
  if (key === null) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`the secret is not JSON, so its member '${key}' cannot be read`);
  }
  if (typeof parsed !== 'object' || parsed === null || !(key in parsed)) throw new Error(`the secret has no member '${key}'`);
  const v = (parsed as Record<string, unknown>)[key];
  return typeof v === 'string' ? v : JSON.stringify(v);
}

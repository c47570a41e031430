import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject } from '../../foundation/lib/json.js';
import type { ManagerType } from '../store/repos/secret-references.js';

/** `auth_config` of an `aws_sm` reference. @see https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_GetSecretValue.html */
export interface AwsAuth {
  region: string;
  access_key_id: string;
  secret_access_key: string;
  session_token?: string;
  /** A custom endpoint (VPC endpoint, LocalStack); default the region's. */
  endpoint?: string;
}

/** `auth_config` of an `azure_kv` reference (a service principal). @see https://learn.microsoft.com/en-us/rest/api/keyvault/secrets/get-secret/get-secret */
export interface AzureAuth {
  vault_url: string;
  tenant_id: string;
  client_id: string;
  client_secret: string;
  /** Entra authority (sovereign clouds); default `https://login.microsoftonline.com`. */
  authority_host?: string;
}

/** `auth_config` of a `hashicorp_vault` reference: a token, or an AppRole login. @see https://developer.hashicorp.com/vault/api-docs/secret/kv/kv-v2 */
export interface VaultAuth {
  vault_addr: string;
  token?: string;
  role_id?: string;
  secret_id?: string;
  namespace?: string;
  /** The KV v2 mount; default `secret`. */
  mount?: string;
}

export type AuthConfig = AwsAuth | AzureAuth | VaultAuth;

interface Field {
  required: boolean;
  secret: boolean;
  url?: boolean;
}

const FIELDS: Record<ManagerType, Record<string, Field>> = {
  aws_sm: {
    region: { required: true, secret: false },
    access_key_id: { required: true, secret: true },
    secret_access_key: { required: true, secret: true },
    session_token: { required: false, secret: true },
    endpoint: { required: false, secret: false, url: true },
  },
  azure_kv: {
    vault_url: { required: true, secret: false, url: true },
    tenant_id: { required: true, secret: false },
    client_id: { required: true, secret: false },
    client_secret: { required: true, secret: true },
    authority_host: { required: false, secret: false, url: true },
  },
  hashicorp_vault: {
    vault_addr: { required: true, secret: false, url: true },
    token: { required: false, secret: true },
    role_id: { required: false, secret: true },
    secret_id: { required: false, secret: true },
    namespace: { required: false, secret: false },
    mount: { required: false, secret: false },
  },
};

function invalid(param: string, message: string): GatewayError {
  return new GatewayError('invalid_request', message, { param });
}

/**
 * Validates an `auth_config` for its manager: an object of non-empty strings, the manager's fields
 * only, the required ones present, URLs valid http(s) URLs; a Vault reference has a `token` or both
 * `role_id` and `secret_id` (not both kinds). 400 naming `auth_config.<field>` otherwise.
 */
export function checkAuthConfig(type: ManagerType, value: unknown): AuthConfig {
  if (!isObject(value)) throw invalid('auth_config', 'auth_config must be an object.');
  const fields = FIELDS[type];
  for (const [k, v] of Object.entries(value)) {
    if (!(k in fields)) throw invalid(`auth_config.${k}`, `Unknown auth_config field '${k}' for manager_type '${type}'.`);
    if (typeof v !== 'string' || v.length === 0 || v.length > 8192)
      throw invalid(`auth_config.${k}`, `auth_config.${k} must be a non-empty string.`);
    if (fields[k]!.url && !/^https?:\/\//i.test(v)) throw invalid(`auth_config.${k}`, `auth_config.${k} must be an http(s) URL.`);
    if (fields[k]!.url && !URL.canParse(v)) throw invalid(`auth_config.${k}`, `auth_config.${k} must be a valid URL.`);
  }
  for (const [k, f] of Object.entries(fields))
    if (f.required && value[k] === undefined) throw invalid(`auth_config.${k}`, `auth_config.${k} is required for manager_type '${type}'.`);
  if (type === 'hashicorp_vault') {
    const approle = value.role_id !== undefined || value.secret_id !== undefined;
    if (value.token !== undefined && approle)
      throw invalid('auth_config.token', 'auth_config takes either token or role_id and secret_id (AppRole), not both.');
    if (value.token === undefined && (value.role_id === undefined || value.secret_id === undefined)) {
      throw invalid(
        value.role_id === undefined ? 'auth_config.role_id' : 'auth_config.secret_id',
        'auth_config needs a token, or role_id and secret_id (AppRole).',
      );
    }
  }
  return value as unknown as AuthConfig;
}

/** The URL fields of an `auth_config` (each passes the custom-host guard), by field name. */
export function authUrls(type: ManagerType, auth: AuthConfig): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [k, f] of Object.entries(FIELDS[type])) {
    const v = (auth as unknown as Record<string, unknown>)[k];
    if (f.url && typeof v === 'string') out.push([k, v]);
  }
  return out;
}

/** The public view of an `auth_config`: secret members by their hint (`AKI…WXYZ`, or `…` under 12 characters). */
export function maskAuthConfig(type: ManagerType, auth: AuthConfig): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(auth as unknown as Record<string, string>)) {
    out[k] = FIELDS[type][k]?.secret ? (v.length >= 12 ? `${v.slice(0, 3)}…${v.slice(-4)}` : '…') : v;
  }
  return out;
}

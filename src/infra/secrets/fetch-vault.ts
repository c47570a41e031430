import { Agent, request } from 'undici';
import type { VaultAuth } from './auth-config.js';
import type { FetchContext, SecretSource } from './secret-source.js';

const agents = new Map<string, Agent>();

function agentFor(ctx: FetchContext): Agent {
  const key = ctx.ca ?? '';
  let a = agents.get(key);
  if (!a) {
    a = new Agent({
      connect: { lookup: ctx.lookup, ...(ctx.ca ? { ca: ctx.ca } : {}), timeout: ctx.timeoutMs },
      headersTimeout: ctx.timeoutMs,
      bodyTimeout: ctx.timeoutMs,
    });
    agents.set(key, a);
  }
  return a;
}

async function call(
  ctx: FetchContext,
  url: string,
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
): Promise<Record<string, unknown>> {
  await ctx.checkUrl(url);
  const res = await request(url, { ...init, dispatcher: agentFor(ctx), maxRedirections: 0 } as Parameters<typeof request>[1]);
  const text = await res.body.text();
  if (res.statusCode < 200 || res.statusCode >= 300) {
    let reason = '';
    try {
      const errors = (JSON.parse(text) as { errors?: unknown }).errors;
      if (Array.isArray(errors))
        reason = `: ${errors
          .filter((e) => typeof e === 'string')
          .join('; ')
          .slice(0, 200)}`;
    } catch {
      // Not JSON: the status says enough.
    }
    throw new Error(`Vault answered ${res.statusCode}${reason}`);
  }
  return JSON.parse(text) as Record<string, unknown>;
}

/**
 * Reads a KV v2 secret from HashiCorp Vault over its HTTP API: with the configured token, or after an
 * AppRole login (`POST /v1/auth/approle/login`) whose client token is used for this read. The value is
 * the JSON text of the secret's data (a member of it is picked by the reference's `secret_key`).
 * @see https://developer.hashicorp.com/vault/api-docs/secret/kv/kv-v2#read-secret-version
 * @see https://developer.hashicorp.com/vault/api-docs/auth/approle#login-with-approle
 */
export async function fetchVault(source: SecretSource, ctx: FetchContext): Promise<string> {
  const auth = source.auth as VaultAuth;
  const base = auth.vault_addr.replace(/\/+$/, '');
  const headers: Record<string, string> = auth.namespace ? { 'x-vault-namespace': auth.namespace } : {};
  let token = auth.token;
  if (!token) {
    const login = await call(ctx, `${base}/v1/auth/approle/login`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ role_id: auth.role_id, secret_id: auth.secret_id }),
    });
    token = (login.auth as { client_token?: string } | undefined)?.client_token;
    if (!token) throw new Error('Vault AppRole login answered no client token');
  }
  const mount = (auth.mount ?? 'secret').replace(/^\/+|\/+$/g, '');
  const path = source.path.replace(/^\/+/, '').split('/').map(encodeURIComponent).join('/');
  const read = await call(ctx, `${base}/v1/${mount}/data/${path}`, { method: 'GET', headers: { ...headers, 'x-vault-token': token } });
  const data = (read.data as { data?: unknown } | undefined)?.data;
  if (typeof data !== 'object' || data === null) throw new Error('Vault answered no secret data');
  return JSON.stringify(data);
}

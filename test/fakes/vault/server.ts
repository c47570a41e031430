import type { ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { FakeServer, sendJson, type RecordedRequest } from '../shared/fake-server.js';

/** What the fake holds: accepted tokens, AppRole credentials, an optional namespace, KV v2 secrets by mount and path. */
export interface FakeVaultOptions {
  tokens: string[];
  approle?: { roleId: string; secretId: string };
  /** When set, every request must carry `X-Vault-Namespace` with it. */
  namespace?: string;
  /** `<mount>/<path>` → the secret's data. */
  secrets: Record<string, Record<string, unknown>>;
}

/**
 * A fake HashiCorp Vault: token auth (`X-Vault-Token`, 403 `permission denied` otherwise), AppRole login
 * (`POST /v1/auth/approle/login`, 400 `invalid role or secret ID` for bad credentials) issuing tokens
 * it then accepts, and KV v2 reads (`GET /v1/<mount>/data/<path>`, 404 for unknown paths). `secrets`
 * may be changed while it runs.
 * @see https://developer.hashicorp.com/vault/api-docs/secret/kv/kv-v2
 * @see https://developer.hashicorp.com/vault/api-docs/auth/approle
 */
export class FakeVault extends FakeServer {
  readonly issued = new Set<string>();
  constructor(readonly options: FakeVaultOptions) {
    super((req, res) => handle(this, req, res));
  }
}

export async function startFakeVault(options: FakeVaultOptions): Promise<FakeVault> {
  return new FakeVault(options).start();
}

function vaultError(res: ServerResponse, status: number, errors: string[]): void {
  sendJson(res, status, { errors });
}

function handle(fake: FakeVault, req: RecordedRequest, res: ServerResponse): void {
  const opts = fake.options;
  if (opts.namespace !== undefined && req.headers['x-vault-namespace'] !== opts.namespace)
    return vaultError(res, 403, ['permission denied']);
  if (req.method === 'POST' && req.path === '/v1/auth/approle/login') {
    const a = opts.approle;
    if (!a || req.body?.role_id !== a.roleId || req.body?.secret_id !== a.secretId)
      return vaultError(res, 400, ['invalid role or secret ID']);
    const token = `hvs.${randomBytes(16).toString('hex')}`;
    fake.issued.add(token);
    return sendJson(res, 200, {
      request_id: 'r',
      lease_id: '',
      renewable: false,
      lease_duration: 0,
      data: null,
      auth: { client_token: token, accessor: 'a', policies: ['default'], lease_duration: 3600, renewable: true },
    });
  }
  const token = req.headers['x-vault-token'];
  if (typeof token !== 'string' || !(opts.tokens.includes(token) || fake.issued.has(token)))
    return vaultError(res, 403, ['permission denied']);
  const m = /^\/v1\/([^/]+)\/data\/(.+)$/.exec(req.path);
  if (req.method !== 'GET' || !m) return vaultError(res, 404, []);
  const data = opts.secrets[`${m[1]}/${decodeURIComponent(m[2]!)}`];
  if (!data) return vaultError(res, 404, []);
  sendJson(res, 200, {
    request_id: 'r',
    lease_id: '',
    renewable: false,
    lease_duration: 0,
    data: { data, metadata: { created_time: '2026-01-01T00:00:00Z', deletion_time: '', destroyed: false, version: 1 } },
  });
}

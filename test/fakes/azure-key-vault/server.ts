import https from 'node:https';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A self-signed certificate for 127.0.0.1 and localhost, made with the `openssl` CLI. */
export interface TestCertificate {
  cert: string;
  key: string;
}

/**
 * The vault's host name. Key Vault clients check that the vault's host ends with the challenge's
 * resource domain (`.vault.azure.test` here, as `.vault.azure.net` in Azure), so the fake is reached by
 * name: tests resolve it to 127.0.0.1 (`lookup` below).
 */
export const VAULT_HOST = 'myvault.vault.azure.test';
const RESOURCE = 'https://vault.azure.test';

/** A `net.connect` lookup resolving {@link VAULT_HOST} to 127.0.0.1 (other names as the system does). */
export const fakeVaultLookup: import('node:net').LookupFunction = (hostname, options, callback) => {
  if (hostname === VAULT_HOST) {
    if (options.all)
      (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
        { address: '127.0.0.1', family: 4 },
      ]);
    else callback(null, '127.0.0.1', 4);
    return;
  }
  import('node:dns').then((dns) => dns.lookup(hostname, options, callback as never));
};

/** Generates a throw-away self-signed certificate (RSA 2048, one day) valid for 127.0.0.1, localhost and {@link VAULT_HOST}. */
export function selfSignedCertificate(): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'fake-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        `subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:${VAULT_HOST}`,
      ],
      { stdio: 'ignore' },
    );
    return { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What the fake holds: one tenant, its service principal, and secrets by name. */
export interface FakeKeyVaultOptions {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  secrets: Record<string, string>;
  tls: TestCertificate;
}

/**
 * A fake Azure Key Vault and Entra ID token endpoint on one HTTPS server (a self-signed certificate):
 *
 * - Key Vault (`GET /secrets/<name>?api-version=…`): a request without a valid bearer token gets 401
 *   with the challenge `WWW-Authenticate: Bearer authorization="<origin>/<tenant>", resource="https://vault.azure.test"`
 *   (the challenge-based flow of the official client); a token this fake issued for scope
 *   `https://vault.azure.test/.default` reads the secret (404 `SecretNotFound` for unknown names).
 * - Entra ID (`/<tenant>/v2.0/.well-known/openid-configuration`, `POST /<tenant>/oauth2/v2.0/token`):
 *   the client-credentials grant with the right client id and secret issues a token; others get 401
 *   `invalid_client` as Entra answers.
 * @see https://learn.microsoft.com/en-us/azure/key-vault/general/authentication-requests-and-responses
 * @see https://learn.microsoft.com/en-us/entra/identity-platform/v2-oauth2-client-creds-grant-flow
 */
export class FakeKeyVault {
  origin = '';
  /** The vault URL a client is given: `https://myvault.vault.azure.test:<port>`. */
  vaultUrl = '';
  readonly tokens = new Map<string, string>();
  readonly requests: Array<{ method: string; path: string; authorized: boolean }> = [];
  private server?: https.Server;

  constructor(readonly options: FakeKeyVaultOptions) {}

  async start(): Promise<this> {
    this.server = https.createServer({ cert: this.options.tls.cert, key: this.options.tls.key }, (req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const port = (this.server.address() as AddressInfo).port;
    this.origin = `https://127.0.0.1:${port}`;
    this.vaultUrl = `https://${VAULT_HOST}:${port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.origin);
    const o = this.options;
    if (req.method === 'GET' && url.pathname === `/${o.tenantId}/v2.0/.well-known/openid-configuration`) {
      const base = `${this.origin}/${o.tenantId}`;
      return this.send(res, 200, {
        token_endpoint: `${base}/oauth2/v2.0/token`,
        authorization_endpoint: `${base}/oauth2/v2.0/authorize`,
        issuer: `${base}/v2.0`,
        jwks_uri: `${base}/discovery/v2.0/keys`,
        end_session_endpoint: `${base}/oauth2/v2.0/logout`,
        token_endpoint_auth_methods_supported: ['client_secret_post', 'private_key_jwt', 'client_secret_basic'],
        response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
        scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
        subject_types_supported: ['pairwise'],
        id_token_signing_alg_values_supported: ['RS256'],
        tenant_region_scope: 'EU',
      });
    }
    if (req.method === 'POST' && url.pathname === `/${o.tenantId}/oauth2/v2.0/token`) {
      const form = new URLSearchParams(body);
      if (
        form.get('grant_type') !== 'client_credentials' ||
        form.get('client_id') !== o.clientId ||
        form.get('client_secret') !== o.clientSecret
      ) {
        return this.send(res, 401, {
          error: 'invalid_client',
          error_description: 'AADSTS7000215: Invalid client secret provided.',
          error_codes: [7000215],
        });
      }
      const scope = form.get('scope') ?? '';
      const token = randomBytes(24).toString('base64url');
      this.tokens.set(token, scope);
      return this.send(res, 200, { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: token });
    }
    const m = /^\/secrets\/([^/]+)\/?([^/]*)$/.exec(url.pathname);
    if (req.method === 'GET' && m && url.searchParams.has('api-version')) {
      const auth = req.headers.authorization;
      const token = typeof auth === 'string' && auth.startsWith('Bearer ') ? auth.slice(7) : undefined;
      const authorized = token !== undefined && this.tokens.get(token)?.split(' ').includes(`${RESOURCE}/.default`) === true;
      this.requests.push({ method: 'GET', path: url.pathname, authorized });
      if (!authorized) {
        return this.send(
          res,
          401,
          { error: { code: 'Unauthorized', message: 'AKV10000: Request is missing a Bearer or PoP token.' } },
          {
            'www-authenticate': `Bearer authorization="${this.origin}/${o.tenantId}", resource="${RESOURCE}"`,
          },
        );
      }
      const name = decodeURIComponent(m[1]!);
      const value = o.secrets[name];
      if (value === undefined)
        return this.send(res, 404, {
          error: { code: 'SecretNotFound', message: `A secret with (name/id) ${name} was not found in this key vault.` },
        });
      return this.send(res, 200, {
        value,
        id: `${this.vaultUrl}/secrets/${name}/0123456789abcdef`,
        attributes: { enabled: true, created: 1_700_000_000, updated: 1_700_000_000, recoveryLevel: 'Recoverable+Purgeable' },
      });
    }
    this.send(res, 404, { error: { code: 'NotFound', message: `Unknown path ${url.pathname}` } });
  }
}

export async function startFakeKeyVault(options: FakeKeyVaultOptions): Promise<FakeKeyVault> {
  return new FakeKeyVault(options).start();
}

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** An account of the test identity provider: the claims it answers for its id. */
export interface TestAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface TestIssuer {
  /** http://127.0.0.1:<port> — the issuer identifier. */
  url: string;
  clientId: string;
  clientSecret: string;
  /** Accounts by id (the login typed into the dev login form); add or change them at will. */
  accounts: Map<string, TestAccount>;
  close(): Promise<void>;
}

/**
 * A real OpenID Connect provider (`oidc-provider`, its development login and consent forms) on
 * 127.0.0.1, with one confidential client whose redirect URI is `redirectUri`.
 */
export async function startTestIssuer(redirectUri: string): Promise<TestIssuer> {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  const server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'gateway-test';
  const clientSecret = 'issuer-secret-' + Math.random().toString(36).slice(2) + Math.random().toString(36).slice(2);
  const accounts = new Map<string, TestAccount>();
  const provider = new Provider(url, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    cookies: { keys: ['test-cookie-key-0123456789abcdef'] },
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx, id) {
      const a = accounts.get(id);
      if (!a) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, ...a }) };
    },
  });
  handler = provider.callback();
  return {
    url,
    clientId,
    clientSecret,
    accounts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

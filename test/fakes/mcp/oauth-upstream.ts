import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/**
 * An OAuth-protected upstream MCP server for tests: an SDK `McpServer` (stateless Streamable HTTP at
 * `/mcp`; the older HTTP+SSE transport at `/sse`, its messages posted to `/messages`, a resource of its own)
 * that accepts only JWT access tokens of its authorization server for its own resource (verified
 * with jose against the server's JWKS) and advertises RFC 9728 protected-resource metadata (in its 401's
 * `WWW-Authenticate` and at `/.well-known/oauth-protected-resource/mcp` or `/sse`); and that authorization server,
 * `oidc-provider` with resource indicators (JWT access tokens for the MCP server, `accessTokenTtl`
 * seconds), refresh tokens rotated on every use (a refresh token used twice revokes the grant), RFC 7009
 * revocation (a refresh token revoked ends its grant; a JWT access token is refused as `unsupported_token_type`),
 * open RFC 7591 dynamic client registration when asked (`registration`), and its development login and consent forms.
 */
export interface OAuthUpstream {
  /** The MCP endpoint (`http://127.0.0.1:<port>/mcp`), the protected resource. */
  mcpUrl: string;
  /** The HTTP+SSE endpoint (`http://127.0.0.1:<port>/sse`), a protected resource of its own (its messages go to `/messages`). */
  sseUrl: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Access tokens the MCP server accepted, in order. */
  accepted: string[];
  /** Requests it refused with 401. */
  refused: number;
  /** Refresh grants the authorization server answered successfully. */
  refreshes: number;
  /** Grants ended by a token revocation (RFC 7009: revoking a refresh token revokes its grant). */
  revokedGrants: number;
  /** Revocation requests the authorization server refused (a JWT access token cannot be revoked: `unsupported_token_type`). */
  refusedRevocations: string[];
  /** Clients registered dynamically (RFC 7591), when registration is on. */
  registrations: number;
  /** Tokens the MCP server refuses once each, on their next POST, as if revoked. */
  refuseOnce: Set<string>;
  /** Tokens refused once each on their next GET (the session stream). */
  refuseGetOnce: Set<string>;
  close(): Promise<void>;
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

/** The MCP server of one request: `whoami` answers the token's subject. */
function mcpServerFor(subject: string): McpServer {
  const mcp = new McpServer({ name: 'oauth-upstream', version: '1.0.0' }, { capabilities: { tools: {} } });
  mcp.server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [{ name: 'whoami', description: 'Answers the subject of the access token.', inputSchema: { type: 'object', properties: {} } }],
  }));
  mcp.server.setRequestHandler(CallToolRequestSchema, async (req) => ({
    content: [{ type: 'text', text: req.params.name === 'whoami' ? subject : 'unknown tool' }],
    isError: req.params.name !== 'whoami',
  }));
  return mcp;
}

/** Starts both on 127.0.0.1; the client's redirect URI is `redirectUri` (the gateway's callback). */
export async function startOAuthUpstream(
  redirectUri: string,
  opts: { accessTokenTtl?: number; registration?: boolean } = {},
): Promise<OAuthUpstream> {
  let asHandler: (req: IncomingMessage, res: ServerResponse) => void = (_q, s) => s.writeHead(503).end();
  let mcpHandler: (req: IncomingMessage, res: ServerResponse) => void = (_q, s) => s.writeHead(503).end();
  const as = await listen((q, s) => asHandler(q, s));
  const rs = await listen((q, s) => mcpHandler(q, s));
  const mcpUrl = `${rs.url}/mcp`;
  const sseUrl = `${rs.url}/sse`;
  const up: OAuthUpstream = {
    mcpUrl,
    sseUrl,
    issuer: as.url,
    clientId: 'mcp-gateway',
    clientSecret: `as-secret-${Math.random().toString(36).slice(2)}`,
    accepted: [],
    refused: 0,
    refreshes: 0,
    revokedGrants: 0,
    refusedRevocations: [],
    registrations: 0,
    refuseOnce: new Set(),
    refuseGetOnce: new Set(),
    close: async () => undefined,
  };
  const provider = new Provider(as.url, {
    clients: [
      {
        client_id: up.clientId,
        client_secret: up.clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    ],
    scopes: ['tools'],
    cookies: { keys: ['oauth-upstream-cookie-key-0123456789'] },
    features: {
      devInteractions: { enabled: true },
      revocation: { enabled: true },
      registration: { enabled: opts.registration === true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => mcpUrl,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({
          scope: 'tools',
          audience: resource === sseUrl ? sseUrl : mcpUrl,
          accessTokenTTL: opts.accessTokenTtl ?? 3600,
          accessTokenFormat: 'jwt',
        }),
      },
    },
    issueRefreshToken: () => true,
    rotateRefreshToken: () => true,
    async findAccount(_ctx, id) {
      return { accountId: id, claims: async () => ({ sub: id }) };
    },
  });
  provider.on('grant.revoked', () => up.revokedGrants++);
  provider.on('registration_create.success', () => up.registrations++);
  provider.on(
    'revocation.error',
    (_ctx: unknown, err: unknown) => void up.refusedRevocations.push((err as { error?: string }).error ?? 'error'),
  );
  provider.on('grant.success', (ctx: { oidc?: { params?: { grant_type?: string } } }) => {
    if (ctx.oidc?.params?.grant_type === 'refresh_token') up.refreshes++;
  });
  asHandler = provider.callback();
  const jwks = createRemoteJWKSet(new URL(`${as.url}/jwks`));
  /** The HTTP+SSE sessions by id (a session's messages are posted with its id in the query). */
  const sseSessions = new Map<string, SSEServerTransport>();
  mcpHandler = (req, res) => {
    void (async () => {
      const path = (req.url ?? '').split('?')[0]!;
      const metadata = /^\/\.well-known\/oauth-protected-resource\/(mcp|sse)$/.exec(path);
      if (metadata) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            resource: metadata[1] === 'sse' ? sseUrl : mcpUrl,
            authorization_servers: [as.url],
            scopes_supported: ['tools'],
            bearer_methods_supported: ['header'],
          }),
        );
        return;
      }
      const overSse = path === '/sse' || path === '/messages';
      if (path !== '/mcp' && !overSse) return void res.writeHead(404).end();
      const resource = overSse ? sseUrl : mcpUrl;
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      let subject: string | undefined;
      if (token && !(req.method === 'POST' ? up.refuseOnce : up.refuseGetOnce).delete(token)) {
        subject = await jwtVerify(token, jwks, { issuer: as.url, audience: resource }).then(
          (v) => v.payload.sub,
          () => undefined,
        );
      }
      if (!token || subject === undefined) {
        up.refused++;
        const metadataUrl = `${rs.url}/.well-known/oauth-protected-resource/${overSse ? 'sse' : 'mcp'}`;
        res
          .writeHead(401, {
            'www-authenticate': `Bearer error="invalid_token", resource_metadata="${metadataUrl}"`,
            'content-type': 'application/json',
          })
          .end(JSON.stringify({ error: 'invalid_token' }));
        return;
      }
      up.accepted.push(token);
      if (path === '/sse') {
        if (req.method !== 'GET') return void res.writeHead(405, { allow: 'GET' }).end();
        const transport = new SSEServerTransport('/messages', res);
        sseSessions.set(transport.sessionId, transport);
        const server = mcpServerFor(subject);
        res.on('close', () => {
          sseSessions.delete(transport.sessionId);
          void server.close();
        });
        await server.connect(transport);
        return;
      }
      if (path === '/messages') {
        const transport =
          req.method === 'POST' ? sseSessions.get(new URL(req.url ?? '', 'http://x').searchParams.get('sessionId') ?? '') : undefined;
        if (!transport) return void res.writeHead(404).end('unknown session');
        await transport.handlePostMessage(req, res);
        return;
      }
      // Stateless: no session stream to offer (an SDK client then polls nothing and holds no GET open).
      if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      const server = mcpServerFor(subject);
      res.on('close', () => void transport.close().then(() => server.close()));
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    });
  };
  up.close = async () => {
    await stop(rs.server);
    await stop(as.server);
  };
  return up;
}

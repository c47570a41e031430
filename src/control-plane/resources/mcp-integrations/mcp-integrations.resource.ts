import { Type } from 'typebox';
import { GatewayError } from '../../../errors/gateway-error.js';
import { uuid } from '../../../lib/ids.js';
import { MCP_SECTION } from '../../../mcp/mcp-section.js';
import { countServersOfMcpIntegration, deleteMcpConnectionsOfIntegration, deleteMcpIntegration, getMcpIntegration, insertMcpIntegration, listMcpIntegrations, updateMcpIntegration, type McpIntegration, type McpOAuthSettings } from '../../../store/repos/mcp.js';
import { defineResource, type ResourceContext } from '../../resource/define-resource.js';
import { IsoTime, iso } from '../../resource/paging.js';
import { Slug, slugify } from '../../resource/slug.js';
import { checkCustomHost, credentialHint } from '../integrations/integration-input.js';
import { assertMayWriteMcpIntegration, checkHeaders, sealHeaders } from './mcp-integration-input.js';

const Transport = Type.Union([Type.Literal('http'), Type.Literal('sse')]);
const AuthType = Type.Union([Type.Literal('none'), Type.Literal('headers'), Type.Literal('oauth')]);
const Headers = Type.Record(Type.String(), Type.String({ maxLength: 8192 }), { maxProperties: 50 });
const Url = Type.String({ minLength: 1, maxLength: 2048 });
const OAuthInput = Type.Object(
  {
    authorization_server: Type.Optional(Url),
    client_id: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    client_secret: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    scopes: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 256, pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' }), { maxItems: 50 })),
  },
  { additionalProperties: false },
);
const OAuthAnswer = Type.Object({
  authorization_server: Type.Optional(Type.String()),
  client_id: Type.Optional(Type.String()),
  client_secret: Type.Optional(Type.String({ description: 'Masked hint; the secret is write-only.' })),
  scopes: Type.Optional(Type.Array(Type.String())),
});

const CreateMcpIntegration = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    slug: Type.Optional(Slug),
    url: Url,
    transport: Type.Optional(Transport),
    auth_type: Type.Optional(AuthType),
    headers: Type.Optional(Headers),
    oauth: Type.Optional(OAuthInput),
    workspace_id: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
const UpdateMcpIntegration = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    url: Type.Optional(Url),
    transport: Type.Optional(Transport),
    auth_type: Type.Optional(AuthType),
    headers: Type.Optional(Headers),
    oauth: Type.Optional(OAuthInput),
  },
  { additionalProperties: false },
);
const McpIntegrationAnswer = Type.Object({
  id: Type.String(),
  object: Type.Literal('mcp_integration'),
  name: Type.String(),
  slug: Type.String(),
  url: Type.String(),
  transport: Transport,
  auth_type: AuthType,
  headers: Type.Record(Type.String(), Type.String()),
  oauth: Type.Union([OAuthAnswer, Type.Null()]),
  workspace_id: Type.Union([Type.String(), Type.Null()]),
  created_at: IsoTime,
  last_updated_at: IsoTime,
});

/** The OAuth settings in an audit row: no client secret, not even its hint. */
function oauthAuditDetails(o: McpOAuthSettings) {
  return { authorization_server: o.authorization_server ?? null, client_id: o.client_id ?? null, scopes: o.scopes ?? [], client_secret: o.client_secret_hint !== undefined };
}

/** The OAuth settings as answered: the client secret only by its hint. */
function presentOAuth(o: McpOAuthSettings) {
  const { client_secret_hint, ...rest } = o;
  return { ...rest, ...(client_secret_hint ? { client_secret: client_secret_hint } : {}) };
}

/** The public view: header values and the OAuth client secret only by their hints. */
function present(i: McpIntegration) {
  return {
    id: i.id,
    object: 'mcp_integration' as const,
    name: i.name,
    slug: i.slug,
    url: i.url,
    transport: i.transport,
    auth_type: i.auth_type,
    headers: i.header_hints,
    oauth: i.auth_type === 'oauth' ? presentOAuth(i.oauth) : null,
    workspace_id: i.workspace_id,
    created_at: iso(i.created_at),
    last_updated_at: iso(i.updated_at),
  };
}

type OAuthBody = { authorization_server?: string; client_id?: string; client_secret?: string; scopes?: string[] };

/**
 * Checks the OAuth settings: only with `auth_type: oauth`; the authorization server is an https URL (or
 * http to an allowed custom host) through the custom-host guard; a client secret needs a client id.
 */
async function checkOAuth(ctx: ResourceContext, authType: string, oauth: OAuthBody | undefined): Promise<void> {
  if (oauth === undefined) return;
  if (authType !== 'oauth') throw new GatewayError('invalid_request', "oauth settings are sent only with auth_type 'oauth'.", { param: 'oauth' });
  if (oauth.authorization_server !== undefined) await checkCustomHost(ctx.deps.http.outbound, oauth.authorization_server, 'oauth.authorization_server');
  if (oauth.client_secret !== undefined && oauth.client_id === undefined) throw new GatewayError('invalid_request', 'oauth.client_secret needs oauth.client_id.', { param: 'oauth.client_secret' });
}

/** The stored OAuth settings and sealed client secret of an `auth_type: oauth` integration; empty otherwise. */
function sealOAuth(ctx: ResourceContext, id: string, authType: string, oauth: OAuthBody | undefined): { oauth: McpOAuthSettings; oauth_secret_ciphertext: string } {
  if (authType !== 'oauth' || oauth === undefined) return { oauth: {}, oauth_secret_ciphertext: '' };
  const { client_secret, ...rest } = oauth;
  if (client_secret === undefined) return { oauth: rest, oauth_secret_ciphertext: '' };
  return { oauth: { ...rest, client_secret_hint: credentialHint(client_secret) }, oauth_secret_ciphertext: ctx.deps.secrets.encrypt(client_secret, `${id}:oauth`) };
}

/**
 * Checks what a write sets: the URL through the custom-host guard, headers only with `auth_type:
 * headers` and valid.
 */
async function checkInput(ctx: ResourceContext, next: { url: string; auth_type: string }, headers: Record<string, string> | undefined, hasStoredHeaders = false): Promise<void> {
  await checkCustomHost(ctx.deps.http.outbound, next.url, 'url');
  if (headers === undefined) {
    if (next.auth_type === 'headers' && !hasStoredHeaders) throw new GatewayError('invalid_request', "auth_type 'headers' needs headers.", { param: 'headers' });
    return;
  }
  if (next.auth_type !== 'headers') throw new GatewayError('invalid_request', "headers are sent only with auth_type 'headers'.", { param: 'headers' });
  if (Object.keys(headers).length === 0) throw new GatewayError('invalid_request', "auth_type 'headers' needs at least one header.", { param: 'headers' });
  checkHeaders(headers);
}

/**
 * `/v1/mcp-integrations`: upstream MCP servers (URL, transport `http` = Streamable HTTP or the older
 * `sse`, and their auth), held at organisation level or in one workspace (`workspace_id`). Header values
 * are write-only, sealed at rest and shown by hints. A workspace exposes one through `/v1/mcp-servers`.
 */
export const mcpIntegrationsResource = defineResource({
  name: 'mcp_integration',
  paths: ['/v1/mcp-integrations'],
  tag: 'mcp',
  noun: { one: 'an MCP integration', many: 'MCP integrations' },
  permissions: { read: 'mcp_servers.read', write: 'mcp_servers.write' },
  runtimeSections: [MCP_SECTION],
  schemas: { create: CreateMcpIntegration, update: UpdateMcpIntegration, listQuery: Type.Object({}), answer: McpIntegrationAnswer },
  removal: 'delete',
  unique: { param: 'slug', message: 'An MCP integration with this slug already exists in this organisation.' },
  repo: {
    get: getMcpIntegration,
    list: (db, scope, _query, page) => listMcpIntegrations(db, scope, page),
    remove: (db, scope, i) => deleteMcpIntegration(db, scope, i),
  },
  idOf: (i) => i.id,
  workspaceOf: (i) => i.workspace_id,
  present,
  async beforeRemove(ctx, i) {
    await assertMayWriteMcpIntegration(ctx, i.workspace_id);
    const servers = await countServersOfMcpIntegration(ctx.db, i.id);
    if (servers > 0) throw new GatewayError('conflict', `MCP integration '${i.slug}' is used by ${servers} MCP server(s); delete them first.`, { param: 'id' });
  },
  async create(ctx, body) {
    const workspaceId = body.workspace_id === undefined ? null : ctx.workspaceId;
    await assertMayWriteMcpIntegration(ctx, workspaceId);
    const authType = body.auth_type ?? (body.headers ? 'headers' : 'none');
    await checkInput(ctx, { url: body.url, auth_type: authType }, body.headers);
    await checkOAuth(ctx, authType, body.oauth);
    const id = uuid();
    const { sealed, hints } = sealHeaders(ctx.deps.secrets, id, body.headers ?? {});
    const oauth = sealOAuth(ctx, id, authType, authType === 'oauth' ? (body.oauth ?? {}) : undefined);
    const record: McpIntegration = {
      id,
      organisation_id: ctx.scope.organisationId,
      workspace_id: workspaceId,
      name: body.name,
      slug: body.slug ?? slugify(body.name, 'mcp'),
      url: body.url,
      transport: body.transport ?? 'http',
      auth_type: authType as McpIntegration['auth_type'],
      headers_ciphertext: sealed,
      header_hints: hints,
      ...oauth,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertMcpIntegration(ctx.db, ctx.scope, record);
    // No URL in the audit row: some upstreams take a credential in their URL's query.
    return { record, details: { name: record.name, slug: record.slug, transport: record.transport, auth_type: record.auth_type, workspace_id: workspaceId, headers: Object.keys(hints), ...(authType === 'oauth' ? { oauth: oauthAuditDetails(oauth.oauth) } : {}) } };
  },
  async update(ctx, i, body) {
    await assertMayWriteMcpIntegration(ctx, i.workspace_id);
    const next: McpIntegration = { ...i, updated_at: ctx.now };
    if (body.name !== undefined) next.name = body.name;
    if (body.url !== undefined) next.url = body.url;
    if (body.transport !== undefined) next.transport = body.transport;
    if (body.auth_type !== undefined) next.auth_type = body.auth_type as McpIntegration['auth_type'];
    // Headers are checked when given, or when the auth type changes (`none` drops them).
    if (body.headers !== undefined || body.auth_type !== undefined || body.url !== undefined) {
      const keep = body.headers === undefined && next.auth_type === 'headers' && i.headers_ciphertext !== '';
      await checkInput(ctx, next, body.headers, keep);
      if (!keep) {
        const { sealed, hints } = sealHeaders(ctx.deps.secrets, i.id, next.auth_type === 'headers' ? (body.headers ?? {}) : {});
        next.headers_ciphertext = sealed;
        next.header_hints = hints;
      }
    }
    // OAuth settings are replaced as a whole when given; leaving `oauth` drops them and every connection.
    await checkOAuth(ctx, next.auth_type, body.oauth);
    let connectionsDropped = false;
    if (next.auth_type !== 'oauth' && i.auth_type === 'oauth') {
      Object.assign(next, sealOAuth(ctx, i.id, next.auth_type, undefined));
      connectionsDropped = true;
    } else if (body.oauth !== undefined || (next.auth_type === 'oauth' && i.auth_type !== 'oauth')) {
      Object.assign(next, sealOAuth(ctx, i.id, 'oauth', body.oauth ?? {}));
      connectionsDropped = i.auth_type === 'oauth';
    }
    // Tokens issued under other settings (another server, client or scopes) are not reused.
    if (connectionsDropped || (next.auth_type === 'oauth' && next.url !== i.url)) await deleteMcpConnectionsOfIntegration(ctx.db, i.id);
    await updateMcpIntegration(ctx.db, ctx.scope, next);
    return { record: next, details: { changed: Object.keys(body), ...(body.headers ? { headers: Object.keys(body.headers) } : {}), ...(body.oauth ? { oauth: oauthAuditDetails(next.oauth) } : {}) } };
  },
});

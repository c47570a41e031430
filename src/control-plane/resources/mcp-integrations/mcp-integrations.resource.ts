import { Type } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { uuid } from '../../../foundation/lib/ids.js';
import { MCP_SECTION } from '../../../features/mcp/mcp-section.js';
import { revokeDroppedUpstream } from '../../../features/mcp/oauth/revoke-removed-connections.js';
import {
  countServersOfMcpIntegration,
  deleteMcpConnectionsOfIntegration,
  deleteMcpIntegration,
  getMcpIntegration,
  insertMcpIntegration,
  listMcpIntegrations,
  updateMcpIntegration,
  type McpIntegration,
  type McpOAuthSettings,
} from '../../../infra/store/repos/mcp.js';
import { defineResource, type ResourceContext } from '../../resource/define-resource.js';
import { IsoTime, iso } from '../../../identity/paging.js';
import { Slug, slugify } from '../../resource/slug.js';
import { sealHeaders } from '../../../foundation/lib/sealed-values.js';
import type { HeaderSecretMapping } from '../../../infra/store/repos/secret-references.js';
import { checkCustomHost, credentialHint } from '../integrations/integration-input.js';
import { HeaderSecretMappings, checkHeaderMappings } from '../secret-references/header-secret-mappings.js';
import { assertMayWriteMcpIntegration, checkHeaders, headerNameProblem } from './mcp-integration-input.js';
import { StringEnum } from '../../../foundation/spec/string-enum.js';
import { Nullable } from '../../../foundation/spec/nullable.js';

const Transport = StringEnum(['http', 'sse']);
const AuthType = StringEnum(['none', 'headers', 'oauth']);
const Headers = Type.Record(Type.String(), Type.String({ maxLength: 8192 }), { maxProperties: 50 });
const Url = Type.String({ minLength: 1, maxLength: 2048 });
const OAuthInput = Type.Object(
  {
    authorization_server: Type.Optional(Url),
    client_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description:
          "The client registered for the gateway at the authorization server. Left out: the gateway registers itself there at the first connect (RFC 7591), when the server's metadata has a registration_endpoint.",
      }),
    ),
    client_secret: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    scopes: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 256, pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' }), { maxItems: 50 }),
    ),
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
    secret_mappings: Type.Optional(HeaderSecretMappings),
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
    secret_mappings: Type.Optional(HeaderSecretMappings),
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
  secret_mappings: HeaderSecretMappings,
  oauth: Nullable(OAuthAnswer),
  workspace_id: Nullable(Type.String()),
  created_at: IsoTime,
  last_updated_at: IsoTime,
});

/** The OAuth settings in an audit row: no client secret, not even its hint. */
function oauthAuditDetails(o: McpOAuthSettings) {
  return {
    authorization_server: o.authorization_server ?? null,
    client_id: o.client_id ?? null,
    scopes: o.scopes ?? [],
    client_secret: o.client_secret_hint !== undefined,
  };
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
    secret_mappings: i.secret_mappings,
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
  if (authType !== 'oauth')
    throw new GatewayError('invalid_request', "oauth settings are sent only with auth_type 'oauth'.", { param: 'oauth' });
  if (oauth.authorization_server !== undefined)
    await checkCustomHost(ctx.deps.http.outbound, oauth.authorization_server, 'oauth.authorization_server');
  if (oauth.client_secret !== undefined && oauth.client_id === undefined)
    throw new GatewayError('invalid_request', 'oauth.client_secret needs oauth.client_id.', { param: 'oauth.client_secret' });
}

/** The stored OAuth settings and sealed client secret of an `auth_type: oauth` integration; empty otherwise. */
function sealOAuth(
  ctx: ResourceContext,
  id: string,
  authType: string,
  oauth: OAuthBody | undefined,
): { oauth: McpOAuthSettings; oauth_secret_ciphertext: string } {
  if (authType !== 'oauth' || oauth === undefined) return { oauth: {}, oauth_secret_ciphertext: '' };
  const { client_secret, ...rest } = oauth;
  if (client_secret === undefined) return { oauth: rest, oauth_secret_ciphertext: '' };
  return {
    oauth: { ...rest, client_secret_hint: credentialHint(client_secret) },
    oauth_secret_ciphertext: ctx.deps.secrets.encrypt(client_secret, `${id}:oauth`),
  };
}

/**
 * Checks what a write sets: the URL through the custom-host guard; headers and secret mappings only
 * with `auth_type: headers`, which needs at least one of them (`kept`: what the row keeps of its own).
 */
async function checkInput(
  ctx: ResourceContext,
  next: { url: string; auth_type: string },
  body: { headers?: Record<string, string>; secret_mappings?: readonly HeaderSecretMapping[] },
  kept = { headers: false, mappings: false },
): Promise<void> {
  await checkCustomHost(ctx.deps.http.outbound, next.url, 'url');
  const mappings = body.secret_mappings?.length ?? 0;
  if (next.auth_type !== 'headers') {
    if (body.headers !== undefined)
      throw new GatewayError('invalid_request', "headers are sent only with auth_type 'headers'.", { param: 'headers' });
    if (mappings > 0)
      throw new GatewayError('invalid_request', "secret_mappings are sent only with auth_type 'headers'.", { param: 'secret_mappings' });
    return;
  }
  if (body.headers !== undefined) checkHeaders(body.headers);
  const headers = body.headers !== undefined ? Object.keys(body.headers).length : kept.headers ? 1 : 0;
  if (headers === 0 && mappings === 0 && !(body.secret_mappings === undefined && kept.mappings)) {
    throw new GatewayError('invalid_request', "auth_type 'headers' needs at least one header (in headers or secret_mappings).", {
      param: 'headers',
    });
  }
}

/**
 * `/v1/mcp-integrations`: upstream MCP servers (URL, transport `http` = Streamable HTTP or the older
 * `sse`, and their auth), held at organisation level or in one workspace (`workspace_id`). Header values
 * are write-only, sealed at rest and shown by hints; `secret_mappings` fill headers from secret
 * references at call time, overriding a static header of the same name. A workspace exposes one through `/v1/mcp-servers`.
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
    if (servers > 0)
      throw new GatewayError('conflict', `MCP integration '${i.slug}' is used by ${servers} MCP server(s); delete them first.`, {
        param: 'id',
      });
    // Its users' grants at the upstream end with it (revoked once the deletion commits).
    revokeDroppedUpstream(ctx.deps, i, await deleteMcpConnectionsOfIntegration(ctx.db, i.id), ctx.afterCommit);
  },
  async create(ctx, body) {
    const workspaceId = body.workspace_id === undefined ? null : ctx.workspaceId;
    await assertMayWriteMcpIntegration(ctx, workspaceId);
    const authType = body.auth_type ?? (body.headers || body.secret_mappings?.length ? 'headers' : 'none');
    await checkInput(ctx, { url: body.url, auth_type: authType }, body);
    await checkOAuth(ctx, authType, body.oauth);
    const mappings =
      authType === 'headers' ? await checkHeaderMappings(ctx, body.secret_mappings ?? [], headerNameProblem, workspaceId) : [];
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
      secret_mappings: mappings,
      ...oauth,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertMcpIntegration(ctx.db, ctx.scope, record);
    // No URL in the audit row: some upstreams take a credential in their URL's query.
    return {
      record,
      details: {
        name: record.name,
        slug: record.slug,
        transport: record.transport,
        auth_type: record.auth_type,
        workspace_id: workspaceId,
        headers: Object.keys(hints),
        secret_mappings: mappings,
        ...(authType === 'oauth' ? { oauth: oauthAuditDetails(oauth.oauth) } : {}),
      },
    };
  },
  async update(ctx, i, body) {
    await assertMayWriteMcpIntegration(ctx, i.workspace_id);
    const next: McpIntegration = { ...i, updated_at: ctx.now };
    if (body.name !== undefined) next.name = body.name;
    if (body.url !== undefined) next.url = body.url;
    if (body.transport !== undefined) next.transport = body.transport;
    if (body.auth_type !== undefined) next.auth_type = body.auth_type as McpIntegration['auth_type'];
    // Headers and secret mappings are checked when given, or when the auth type changes (an auth type
    // other than `headers` drops both); each is replaced as a whole when given.
    if (body.headers !== undefined || body.secret_mappings !== undefined || body.auth_type !== undefined || body.url !== undefined) {
      const isHeaders = next.auth_type === 'headers';
      const kept = {
        headers: body.headers === undefined && isHeaders && i.headers_ciphertext !== '',
        mappings: body.secret_mappings === undefined && isHeaders && i.secret_mappings.length > 0,
      };
      await checkInput(ctx, next, body, kept);
      if (!kept.headers) {
        const { sealed, hints } = sealHeaders(ctx.deps.secrets, i.id, isHeaders ? (body.headers ?? {}) : {});
        next.headers_ciphertext = sealed;
        next.header_hints = hints;
      }
      if (!kept.mappings)
        next.secret_mappings =
          isHeaders && body.secret_mappings ? await checkHeaderMappings(ctx, body.secret_mappings, headerNameProblem, i.workspace_id) : [];
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
    // Tokens issued under other settings (another server, client or scopes) are not reused: their grants are
    // revoked, with the settings they were issued under, once the write commits.
    if (connectionsDropped || (next.auth_type === 'oauth' && next.url !== i.url))
      revokeDroppedUpstream(ctx.deps, i, await deleteMcpConnectionsOfIntegration(ctx.db, i.id), ctx.afterCommit);
    await updateMcpIntegration(ctx.db, ctx.scope, next);
    return {
      record: next,
      details: {
        changed: Object.keys(body),
        ...(body.headers ? { headers: Object.keys(body.headers) } : {}),
        ...(body.secret_mappings ? { secret_mappings: next.secret_mappings } : {}),
        ...(body.oauth ? { oauth: oauthAuditDetails(next.oauth) } : {}),
      },
    };
  },
});

import { Type } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { uuid } from '../../../foundation/lib/ids.js';
import { narrowTo } from '../../../kernel/tenant-scope.js';
import { MCP_SECTION } from '../../../features/mcp/mcp-section.js';
import {
  deleteMcpServer,
  getMcpIntegration,
  getMcpServer,
  insertMcpServer,
  listMcpServers,
  updateMcpServer,
  type McpServer,
  type McpToolFilter,
} from '../../../infra/store/repos/mcp.js';
import { defineResource, type ResourceContext } from '../../resource/define-resource.js';
import { IsoTime, iso } from '../../../identity/paging.js';
import { Slug, slugify } from '../../resource/slug.js';
import { connectAction, listConnectionsAction, revokeConnectionAction } from './mcp-connection-actions.js';
import { StringEnum } from '../../../foundation/spec/string-enum.js';

const ToolName = Type.String({ minLength: 1, maxLength: 128 });
const Tools = Type.Object(
  { allow: Type.Optional(Type.Array(ToolName, { maxItems: 1000 })), deny: Type.Optional(Type.Array(ToolName, { maxItems: 1000 })) },
  { additionalProperties: false },
);
const Access = StringEnum(['allow', 'deny']);

const CreateMcpServer = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    slug: Type.Optional(Slug),
    mcp_integration_id: Type.String({ minLength: 1 }),
    tools: Type.Optional(Tools),
    default_user_access: Type.Optional(Access),
    workspace_id: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
const UpdateMcpServer = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    mcp_integration_id: Type.Optional(Type.String({ minLength: 1 })),
    tools: Type.Optional(Tools),
    default_user_access: Type.Optional(Access),
  },
  { additionalProperties: false },
);
const McpServerAnswer = Type.Object({
  id: Type.String(),
  object: Type.Literal('mcp_server'),
  name: Type.String(),
  slug: Type.String(),
  mcp_integration_id: Type.String(),
  workspace_id: Type.String(),
  tools: Tools,
  default_user_access: Access,
  endpoint: Type.String(),
  created_at: IsoTime,
  last_updated_at: IsoTime,
});

function present(s: McpServer) {
  return {
    id: s.id,
    object: 'mcp_server' as const,
    name: s.name,
    slug: s.slug,
    mcp_integration_id: s.mcp_integration_id,
    workspace_id: s.workspace_id,
    tools: s.tools,
    default_user_access: s.default_user_access,
    endpoint: `/v1/mcp/${s.slug}/mcp`,
    created_at: iso(s.created_at),
    last_updated_at: iso(s.updated_at),
  };
}

/**
 * Checks a tool filter: no name twice in a list, and no name both allowed and denied (a collision
 * that would leave the tool's fate to evaluation order): 400 naming the entry.
 */
export function checkTools(tools: McpToolFilter): void {
  for (const list of ['allow', 'deny'] as const) {
    const seen = new Set<string>();
    (tools[list] ?? []).forEach((name, i) => {
      if (seen.has(name))
        throw new GatewayError('invalid_request', `tools.${list}[${i}]: tool '${name}' is listed twice.`, { param: `tools.${list}[${i}]` });
      seen.add(name);
    });
  }
  const allowed = new Set(tools.allow ?? []);
  (tools.deny ?? []).forEach((name, i) => {
    if (allowed.has(name))
      throw new GatewayError('invalid_request', `tools.deny[${i}]: tool '${name}' is both allowed and denied.`, {
        param: `tools.deny[${i}]`,
      });
  });
}

/** The integration a server of `workspaceId` may expose: an organisation-level one or one of that workspace (404 otherwise). */
async function integrationFor(ctx: ResourceContext, workspaceId: string, ref: string): Promise<string> {
  const i = await getMcpIntegration(ctx.db, narrowTo(ctx.scope, workspaceId), ref);
  if (!i) throw new GatewayError('not_found', `Unknown MCP integration '${ref}'.`, { param: 'mcp_integration_id' });
  return i.id;
}

/**
 * `/v1/mcp-servers`: an MCP integration exposed in a workspace at `/v1/mcp/{slug}/mcp`, with its tool
 * filter (`tools.allow`: only these; `tools.deny`: never these) and `default_user_access` (`deny`: user
 * principals other than workspace admins may not call it). Managers write them while
 * `managersWriteMcpServers` is on (the role's `mcp_servers.write`). Actions: `POST /{id}/connect`,
 * `GET|DELETE /{id}/connections` (per-user upstream OAuth, `mcp-connection-actions.ts`).
 */
export const mcpServersResource = defineResource({
  name: 'mcp_server',
  paths: ['/v1/mcp-servers'],
  tag: 'mcp',
  noun: { one: 'an MCP server', many: 'MCP servers' },
  permissions: { read: 'mcp_servers.read', write: 'mcp_servers.write' },
  runtimeSections: [MCP_SECTION],
  schemas: { create: CreateMcpServer, update: UpdateMcpServer, listQuery: Type.Object({}), answer: McpServerAnswer },
  removal: 'delete',
  unique: { param: 'slug', message: 'An MCP server with this slug already exists in this workspace.' },
  repo: {
    get: getMcpServer,
    list: (db, scope, _query, page) => listMcpServers(db, scope, page),
    remove: (db, scope, s) => deleteMcpServer(db, scope, s),
  },
  actions: [connectAction, listConnectionsAction, revokeConnectionAction],
  idOf: (s) => s.id,
  workspaceOf: (s) => s.workspace_id,
  present,
  async create(ctx, body) {
    const workspaceId = ctx.workspaceId;
    const tools = body.tools ?? {};
    checkTools(tools);
    const record: McpServer = {
      id: uuid(),
      organisation_id: ctx.scope.organisationId,
      workspace_id: workspaceId,
      name: body.name,
      slug: body.slug ?? slugify(body.name, 'mcp'),
      mcp_integration_id: await integrationFor(ctx, workspaceId, body.mcp_integration_id),
      tools,
      default_user_access: body.default_user_access ?? 'allow',
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertMcpServer(ctx.db, ctx.scope, record);
    return {
      record,
      details: {
        name: record.name,
        slug: record.slug,
        mcp_integration_id: record.mcp_integration_id,
        tools,
        default_user_access: record.default_user_access,
      },
    };
  },
  async update(ctx, s, body) {
    const next: McpServer = { ...s, updated_at: ctx.now };
    if (body.name !== undefined) next.name = body.name;
    if (body.mcp_integration_id !== undefined) next.mcp_integration_id = await integrationFor(ctx, s.workspace_id, body.mcp_integration_id);
    if (body.tools !== undefined) {
      checkTools(body.tools);
      next.tools = body.tools;
    }
    if (body.default_user_access !== undefined) next.default_user_access = body.default_user_access;
    await updateMcpServer(ctx.db, ctx.scope, next);
    return { record: next, details: { changed: Object.keys(body) } };
  },
});

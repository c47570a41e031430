import type { Kysely } from 'kysely';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { effectiveSetting, type StoredSettings } from '../../../kernel/settings.js';
import { isOrganisationAdmin } from '../../../kernel/roles.js';
import type { Database } from '../../../infra/store/schema.js';
import type { ResourceContext } from '../../resource/define-resource.js';

/** An HTTP header name (RFC 9110 token). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;

/**
 * Headers the gateway sets itself on the upstream request (transport, session, protocol, framing): an
 * integration may not override them.
 */
const RESERVED = new Set([
  'host',
  'content-length',
  'content-type',
  'accept',
  'connection',
  'transfer-encoding',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
  'x-gateway-api-key',
  'cookie',
]);

/** 400 naming `param`. */
function invalid(param: string, message: string): GatewayError {
  return new GatewayError('invalid_request', message, { param });
}

/**
 * Why a header may not be configured on an MCP integration (not an HTTP token, or one the gateway sets
 * itself); undefined when it may.
 */
export function headerNameProblem(name: string): string | undefined {
  if (!TOKEN.test(name)) return `'${name}' is not a valid HTTP header name.`;
  if (RESERVED.has(name.toLowerCase())) return `the gateway sets '${name}' itself; it cannot be configured.`;
  return undefined;
}

/**
 * Checks upstream headers: names are HTTP tokens, not reserved, not given twice in any case; values are
 * non-empty text without line breaks. 400 naming `headers.<name>` otherwise.
 */
export function checkHeaders(headers: Record<string, string>): void {
  const seen = new Set<string>();
  for (const [name, value] of Object.entries(headers)) {
    const param = `headers.${name}`;
    const problem = headerNameProblem(name);
    if (problem) throw invalid(param, `${param}: ${problem}`);
    const lower = name.toLowerCase();
    if (seen.has(lower)) throw invalid(param, `${param}: header '${name}' is given twice.`);
    seen.add(lower);
    if (value.length === 0 || /[\r\n\0]/.test(value)) throw invalid(param, `${param}: the value must be non-empty text on one line.`);
  }
}

/**
 * Who may write an MCP integration (control-plane.md §1): organisation-level ones need an organisation
 * principal (owner/admin); a workspace one is written by its workspace admins, and by its managers while
 * `managersWriteWsMcpIntegrations` (effective in that workspace) is true. 403 otherwise.
 */
export async function assertMayWriteMcpIntegration(ctx: ResourceContext, workspaceId: string | null): Promise<void> {
  if (workspaceId === null) {
    if (!ctx.scope.organisationWide)
      throw new GatewayError(
        'forbidden',
        'Organisation-level MCP integrations are managed by organisation owners and admins (pass workspace_id for a workspace MCP integration).',
        { param: 'workspace_id' },
      );
    return;
  }
  const p = ctx.principal;
  if (p.workspaceRole !== 'manager' || isOrganisationAdmin(p.organisationRole)) return;
  if ((await setting(ctx.db, ctx.scope.organisationId, workspaceId)) !== true) {
    throw new GatewayError(
      'forbidden',
      `Workspace managers may not write MCP integrations here: the setting managersWriteWsMcpIntegrations is off.`,
    );
  }
}

async function setting(db: Kysely<Database>, organisationId: string, workspaceId: string): Promise<unknown> {
  const ws = await db
    .selectFrom('workspaces')
    .select('settings')
    .where('id', '=', workspaceId)
    .where('organisation_id', '=', organisationId)
    .executeTakeFirst();
  const org = await db.selectFrom('organisations').select('settings').where('id', '=', organisationId).executeTakeFirst();
  const parse = (json: string | undefined) => (json ? (JSON.parse(json) as StoredSettings) : null);
  return effectiveSetting('managersWriteWsMcpIntegrations', parse(ws?.settings), parse(org?.settings)).value;
}

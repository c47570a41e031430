/**
 * The typed catalogue of permissions (control-plane.md §1): `<resource>.<action>`, with the wildcards
 * `<resource>.*` and `*`. docs/permissions.md lists the same entries (a test checks the two agree).
 */

/** Every resource a permission can name. */
export const RESOURCES = [
  'organisation',
  'workspaces',
  'users',
  'api_keys',
  'configs',
  'prompts',
  'guardrails',
  'rate_limits',
  'usage_limits',
  'virtual_keys',
  'providers',
  'integrations',
  'secret_references',
  'mcp_servers',
  'agent_servers',
  'logs',
  'analytics',
  'audit_logs',
  'completions',
  'mcp',
  'agents',
] as const;

/** A resource of the catalogue. */
export type Resource = (typeof RESOURCES)[number];

/**
 * Every permission with what it allows. Actions are `read`, `write`, `rotate`, `invoke`; `render` on
 * prompts is the gateway's own (render a template without running it).
 */
export const PERMISSIONS = {
  'organisation.read': 'Read the organisation and its settings.',
  'organisation.write': 'Change the organisation settings, SSO, SCIM and JWT settings.',
  'workspaces.read': 'List and read workspaces, their settings and members.',
  'workspaces.write': 'Create, update and archive workspaces; manage their members.',
  'users.read': 'List and read users.',
  'users.write': 'Create, update and delete users.',
  'api_keys.read': 'List and read gateway API keys (never their values).',
  'api_keys.write': 'Create, update and revoke gateway API keys (granting only scopes the caller holds).',
  'api_keys.rotate': 'Rotate gateway API keys.',
  'configs.read': 'List and read stored configs and their versions.',
  'configs.write': 'Create, update (new version) and archive stored configs.',
  'prompts.read': 'List and read prompts, partials and their versions.',
  'prompts.write': 'Create, update, version, label and archive prompts and partials.',
  'prompts.render': 'Render a prompt template without running it.',
  'guardrails.read': 'List and read guardrails.',
  'guardrails.write': 'Create, update and delete guardrails.',
  'rate_limits.read': 'List and read rate-limit policies.',
  'rate_limits.write': 'Create, update and archive rate-limit policies.',
  'usage_limits.read': 'List and read usage-limit policies.',
  'usage_limits.write': 'Create, update, reset and archive usage-limit policies.',
  'virtual_keys.read': 'List and read virtual keys (`/v1/virtual-keys` and its alias `/v1/providers`; never the secret).',
  'virtual_keys.write': 'Create, update and archive virtual keys (`/v1/virtual-keys` and `/v1/providers`).',
  'providers.read': 'List and read integration-backed providers.',
  'providers.write': 'Create, update and archive integration-backed providers.',
  'integrations.read': 'List and read integrations.',
  'integrations.write': 'Create, update and delete integrations.',
  'secret_references.read': 'List and read secret references.',
  'secret_references.write': 'Create, update, test and delete secret references.',
  'mcp_servers.read': "List and read MCP servers and integrations, and the users' OAuth connections to MCP servers.",
  'mcp_servers.write': 'Create, update and delete MCP servers and integrations.',
  'agent_servers.read': 'List and read agent servers.',
  'agent_servers.write': 'Create, update and delete agent servers.',
  'logs.read': 'List and read request logs.',
  'analytics.read': 'Read analytics.',
  'audit_logs.read': 'Read the audit log (organisation-level principals only).',
  'completions.write':
    'The data plane: chat, completions, embeddings, images, audio, moderations, rerank, responses, files, batches, fine-tuning, models, prompt completions.',
  'mcp.invoke': "Call MCP servers through the gateway; connect and revoke one's own upstream OAuth connection.",
  'agents.invoke': 'Call agents through the gateway.',
} as const satisfies Record<string, string>;

/** A permission of the catalogue (`<resource>.<action>`). */
export type Permission = keyof typeof PERMISSIONS;

/** What a key may hold: a permission, a resource wildcard `<resource>.*`, or `*`. */
export type Scope = Permission | `${Resource}.*` | '*';

/** Every permission, in catalogue order. */
export const PERMISSION_LIST = Object.keys(PERMISSIONS) as Permission[];

const PERMISSION_SET: ReadonlySet<string> = new Set(PERMISSION_LIST);
const RESOURCE_SET: ReadonlySet<string> = new Set(RESOURCES);

/** Whether a string is a scope a key may hold (a catalogued permission or a wildcard). */
export function isScope(value: string): value is Scope {
  if (value === '*' || PERMISSION_SET.has(value)) return true;
  return value.endsWith('.*') && RESOURCE_SET.has(value.slice(0, -2));
}

/** Whether a string is a catalogued permission. */
export function isPermission(value: string): value is Permission {
  return PERMISSION_SET.has(value);
}

/**
 * Whether the held scopes cover the wanted scope: `*` covers everything; `<resource>.*` covers that
 * resource's permissions and its own wildcard; a permission covers itself. A held string that is not a
 * scope of the catalogue covers nothing.
 */
export function covers(held: readonly string[], wanted: Scope): boolean {
  if (held.includes('*') || held.includes(wanted)) return true;
  if (wanted === '*') return false;
  const dot = wanted.indexOf('.');
  return held.includes(`${wanted.slice(0, dot)}.*`);
}

import type { Generated } from 'kysely';

/**
 * Table types of the store. JSON columns are text holding JSON; times are Unix milliseconds
 * (bigint in PostgreSQL, parsed back to number). A feature that owns its tables declares them in its
 * own folder and adds them to `Database` by module augmentation (`features/guardrails/guardrails-tables.ts`);
 * the others are still declared here. Migrations are in `migrations/`.
 */
export interface OrganisationsTable {
  id: string;
  name: string;
  slug: string;
  settings: string;
  created_at: number;
  /** The workspace organisation keys act in when they name none (null only before the bootstrap sets it). */
  default_workspace_id: string | null;
}

export interface WorkspacesTable {
  id: string;
  organisation_id: string;
  name: string;
  slug: string;
  status: string;
  settings: string;
  /** Optional on insert (migration 0014): null, `{}` and null. */
  description?: string | null;
  metadata?: string;
  defaults?: string | null;
  created_at: number;
  updated_at: number;
}

/** A user of an organisation (migration 0014); email unique per organisation, case-insensitively. */
export interface UsersTable {
  id: string;
  organisation_id: string;
  email: string;
  name: string | null;
  role: string;
  status: string;
  created_at: number;
  updated_at: number;
}

/** A user's role in a workspace (migration 0014). */
export interface WorkspaceMembersTable {
  workspace_id: string;
  user_id: string;
  role: string;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  organisation_id: string;
  workspace_id: string | null;
  name: string;
  type: string;
  key_hash: string;
  /** First characters of the key, shown in lists (never enough to use it). */
  key_hint: string;
  scopes: string;
  status: string;
  expires_at: number | null;
  rotation_policy: string | null;
  metadata: string;
  /** JSON `ApiKeyDefaults`, or null (optional on insert). */
  defaults?: string | null;
  /** Hash of the value before the last rotation, valid until `key_transition_expires_at`. */
  previous_key_hash?: string | null;
  key_transition_expires_at?: number | null;
  /** `api` (made by `POST /v1/api-keys`) or `auto` (made when a user joined a workspace). */
  creation_mode?: string;
  last_used_at?: number | null;
  /** When the schedule rotates the key next (ms), or null. */
  next_rotation_at?: number | null;
  /** A value waiting to be shown once by `reveal`, sealed by the secret box. */
  pending_key_ciphertext?: string | null;
  pending_key_revealed_at?: number | null;
  /** The user a `workspace-user` key belongs to (migration 0014); null for service keys and older keys. */
  user_id?: string | null;
  /** 1 for the instance operator's key (the bootstrap's admin key, migration 0033), else 0 (optional on insert). */
  instance_operator?: number;
  created_at: number;
  updated_at: number;
}

export interface ConfigsTable {
  id: string;
  organisation_id: string;
  workspace_id: string;
  name: string;
  slug: string;
  status: string;
  version: number;
  created_at: number;
  updated_at: number;
}

export interface ConfigVersionsTable {
  config_id: string;
  version: number;
  config: string;
  created_at: number;
}

export interface VirtualKeysTable {
  id: string;
  workspace_id: string;
  name: string;
  slug: string;
  provider: string;
  secret: string;
  config: string;
  status: string;
  created_at: number;
  updated_at: number;
  /** The integration whose key and configurations this provider uses (null: its own). */
  integration_id: string | null;
}

export interface IntegrationsTable {
  id: string;
  organisation_id: string;
  workspace_id: string | null;
  name: string;
  slug: string;
  ai_provider_id: string;
  key_ciphertext: string;
  key_hint: string | null;
  configurations: string;
  secret_configurations: string;
  secret_mappings: string;
  pricing_adjustments: string | null;
  allow_all_models: number;
  models: string | null;
  workspaces: string;
  status: string;
  created_at: number;
  updated_at: number;
}

/** An A2A agent server of a workspace (migration 0023). */
export interface AgentServersTable {
  id: string;
  organisation_id: string;
  workspace_id: string;
  name: string;
  slug: string;
  url: string;
  headers_sealed: string;
  header_hints: string;
  skills_allow: string | null;
  /** Migration 0030: header secret mappings (JSON array; default '[]'). */
  secret_mappings?: string;
  created_at: number;
  updated_at: number;
}

/** A secret reference (migration 0025): where a secret lives in an external manager, `auth_config` sealed. */
export interface SecretReferencesTable {
  id: string;
  organisation_id: string;
  name: string;
  slug: string;
  manager_type: string;
  auth_ciphertext: string;
  auth_hint: string;
  secret_path: string;
  secret_key: string | null;
  allow_all_workspaces: number;
  allowed_workspaces: string;
  status: string;
  created_at: number;
  updated_at: number;
}

export interface RequestLogsTable {
  id: string;
  organisation_id: string;
  workspace_id: string;
  api_key_id: string | null;
  /** The user whose credential authenticated the request (null for service keys). */
  user_id: string | null;
  trace_id: string;
  endpoint: string;
  provider: string | null;
  model: string | null;
  status: number;
  stream: number;
  cache_status: string | null;
  config_id: string | null;
  prompt_id: string | null;
  target_path: string | null;
  retry_count: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost: number;
  latency_ms: number;
  metadata: string;
  error: string | null;
  hook_results: string | null;
  created_at: number;
  /** JSON: the unit prices `cost` was computed with (`infra/pricing/price-usage.ts` UnitPrices); null when none applied. */
  unit_prices?: string | null;
  /** Cache reads, cache writes (parts of `prompt_tokens`) and reasoning tokens (part of `completion_tokens`); 0 when absent (migration 0024 defaults). */
  cached_tokens?: number;
  cache_write_tokens?: number;
  reasoning_tokens?: number;
  /** Every attempt of the route, JSON `[{target_path, provider, status, latency_ms}]` (null before migration 0021). */
  attempts?: string | null;
  /** From the request's arrival to the answer's first byte (its headers), ms. */
  ttfb_ms?: number | null;
  /** The request body, secrets redacted, when the workspace's `log_bodies` is on. */
  request_body?: string | null;
  /** The answer body (a stream's chunks), secrets redacted, when the workspace's `log_bodies` is on. */
  response_body?: string | null;
  /** 1 when the row's analytics rollups were written with it; 0 for rows the backfill adds (migration 0031). */
  rolled_up?: number;
}

/** The dimensions of a rollup row (migration 0031); an absent value is ''. */
export interface RollupDimensions {
  workspace_id: string;
  api_key_id: string;
  user_id: string;
  endpoint: string;
  provider: string;
  model: string;
  status: number;
  cache_status: string;
  config_id: string;
  prompt_id: string;
}

/** Counts and sums of the request-log rows of one bucket and one combination of dimensions. */
export interface RequestLogRollupsTable extends RollupDimensions {
  organisation_id: string;
  /** 60000, 3600000 or 86400000. */
  bucket_ms: number;
  bucket_start: number;
  requests: number;
  errors: number;
  cache_hits: number;
  cost: number;
  total_tokens: number;
  prompt_tokens: number;
  completion_tokens: number;
  latency_sum: number;
  first_seen: number;
  last_seen: number;
}

/** The latency histogram of one bucket, workspace and value of one dimension (`dim` `all`: every row). */
export interface RequestLogLatencyTable {
  organisation_id: string;
  bucket_ms: number;
  dim: string;
  bucket_start: number;
  workspace_id: string;
  dim_value: string;
  requests: number;
  latency_sum: number;
  /** JSON `{"<bin>": count}` (`foundation/lib/latency-histogram.ts`). */
  hist: string;
}

/** Where the rollup backfill stands: the last row (by `created_at`, `id`) it added. */
export interface RequestLogRollupStateTable {
  id: number;
  backfill_created_at: number;
  backfill_id: string;
}

/** A monotonically increasing counter bumped by every control-plane write (replicas poll it). */
export interface RuntimeVersionTable {
  id: number;
  version: number;
}

/** The runtime change outbox (migration 0011): what each runtime version changed. */
export interface RuntimeChangesTable {
  version: number;
  seq: number;
  section: string;
  /** Null: the whole section. */
  workspace_id: string | null;
  created_at: number;
}

/** A rate-limit policy (issue 8); `conditions` and `group_by` are JSON text. */
export interface RateLimitPoliciesTable {
  id: string;
  organisation_id: string;
  workspace_id: string;
  name: string | null;
  type: string;
  unit: string;
  value: number;
  conditions: string;
  group_by: string;
  status: string;
  created_at: number;
  updated_at: number;
}

/** A stored usage-limit policy (issue 19); `conditions` and `group_by` are JSON text. */
export interface UsageLimitPoliciesTable {
  id: string;
  organisation_id: string;
  workspace_id: string;
  name: string | null;
  type: string;
  credit_limit: number;
  alert_threshold: number | null;
  periodic_reset: string | null;
  periodic_reset_days: number | null;
  next_usage_reset_at: number | null;
  conditions: string;
  group_by: string;
  status: string;
  /** `api_key:<id>` / `workspace:<id>` for a policy made by inline `usage_limits` (migration 0026). */
  owner?: string | null;
  created_at: number;
  updated_at: number;
}

/** A stored response (Responses API): the response object and its input items as JSON text. */
export interface ResponsesTable {
  id: string;
  workspace_id: string;
  /** `gateway` (run over chat completions by the gateway) or `native` (forwarded to a host serving /responses). */
  mode: string;
  provider: string | null;
  previous_response_id: string | null;
  status: string;
  response: string;
  input_items: string;
  created_at: number;
}

/** A gateway-stored file, or a mapping row for a file a provider holds (`backend`). */
export interface GatewayFilesTable {
  id: string;
  workspace_id: string;
  backend: string;
  provider: string | null;
  virtual_key: string | null;
  filename: string;
  purpose: string;
  bytes: number;
  status: string;
  storage_key: string | null;
  created_at: number;
}

/** One chunk (≤ 1 MiB) of a gateway file's content kept in the database; `pending_since` is set while its upload runs. */
export interface FileChunksTable {
  file_id: string;
  seq: number;
  data: Uint8Array;
  pending_since: number | null;
}

/** A gateway-managed batch (the batch object as JSON, the captured routing headers) or a provider-native mapping row. */
export interface BatchesTable {
  id: string;
  workspace_id: string;
  mode: string;
  provider: string | null;
  virtual_key: string | null;
  status: string;
  batch: string;
  route: string;
  lease_owner: string | null;
  lease_until: number | null;
  created_at: number;
  updated_at: number;
}

/** One input line of a gateway-managed batch: its request, state, claim and result. */
export interface BatchLinesTable {
  batch_id: string;
  line_no: number;
  custom_id: string;
  body: string;
  state: string;
  ok: number | null;
  result: string | null;
  owner: string | null;
  claimed_at: number | null;
  attempts: number;
  finished_at: number | null;
  /** Times the line was handed to the provider (migration 0009); bounded across crashes. */
  dispatches: number;
  dispatched_at: number | null;
}

/** One audit entry (control-plane.md §4); `details` is JSON text and never holds a secret. */
export interface AuditLogsTable {
  id: string;
  created_at: number;
  organisation_id: string;
  workspace_id: string | null;
  actor_type: string;
  actor_id: string | null;
  action: string;
  resource_type: string;
  resource_id: string | null;
  request_id: string | null;
  client_ip: string | null;
  details: string;
}

/** A console session: the hash of its cookie token, never the token (migration 0016). */
export interface SessionsTable {
  id: string;
  token_hash: string;
  user_id: string;
  organisation_id: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

export type {
  JwtSettingsTable,
  ScimTokensTable,
  ScimUsersTable,
  ScimGroupsTable,
  ScimGroupMembersTable,
  ScimWorkspaceMappingsTable,
} from './schema-identity.js';
import type {
  JwtSettingsTable,
  ScimTokensTable,
  ScimUsersTable,
  ScimGroupsTable,
  ScimGroupMembersTable,
  ScimWorkspaceMappingsTable,
} from './schema-identity.js';
/** MCP integrations (migration 0022): an upstream MCP server, its transport and sealed headers. */
export interface McpIntegrationsTable {
  id: string;
  organisation_id: string;
  workspace_id: string | null;
  name: string;
  slug: string;
  url: string;
  transport: string;
  auth_type: string;
  headers_ciphertext: string;
  header_hints: string;
  /** Migration 0028: OAuth settings (JSON) and the sealed client secret. */
  oauth: string;
  oauth_secret_ciphertext: string;
  /** Migration 0030: header secret mappings (JSON array; default '[]'). */
  secret_mappings?: string;
  created_at: number;
  updated_at: number;
}

/** MCP servers (migration 0022): an integration exposed in a workspace, with its tool filter. */
export interface McpServersTable {
  id: string;
  organisation_id: string;
  workspace_id: string;
  name: string;
  slug: string;
  mcp_integration_id: string;
  tools: string;
  default_user_access: string;
  created_at: number;
  updated_at: number;
}

/** MCP client sessions (migration 0022), shared by every replica. */
export interface McpSessionsTable {
  id: string;
  server_id: string;
  workspace_id: string;
  key_id: string;
  user_id: string | null;
  upstream_session_id: string | null;
  protocol_version: string;
  initialize_params: string;
  created_at: number;
  last_used_at: number;
}
export type { SsoSettingsTable, SsoLoginsTable } from './schema-sso.js';
import type { SsoSettingsTable, SsoLoginsTable } from './schema-sso.js';

export interface Database {
  organisations: OrganisationsTable;
  workspaces: WorkspacesTable;
  api_keys: ApiKeysTable;
  configs: ConfigsTable;
  config_versions: ConfigVersionsTable;
  virtual_keys: VirtualKeysTable;
  integrations: IntegrationsTable;
  secret_references: SecretReferencesTable;
  request_logs: RequestLogsTable;
  request_log_rollups: RequestLogRollupsTable;
  request_log_latency: RequestLogLatencyTable;
  request_log_rollup_state: RequestLogRollupStateTable;
  runtime_version: RuntimeVersionTable;
  runtime_changes: RuntimeChangesTable;
  rate_limit_policies: RateLimitPoliciesTable;
  usage_limit_policies: UsageLimitPoliciesTable;
  responses: ResponsesTable;
  gateway_files: GatewayFilesTable;
  batches: BatchesTable;
  batch_lines: BatchLinesTable;
  file_chunks: FileChunksTable;
  audit_logs: AuditLogsTable;
  users: UsersTable;
  workspace_members: WorkspaceMembersTable;
  sessions: SessionsTable;
  agent_servers: AgentServersTable;
  jwt_settings: JwtSettingsTable;
  scim_tokens: ScimTokensTable;
  scim_users: ScimUsersTable;
  scim_groups: ScimGroupsTable;
  scim_group_members: ScimGroupMembersTable;
  scim_workspace_mappings: ScimWorkspaceMappingsTable;
  mcp_integrations: McpIntegrationsTable;
  mcp_servers: McpServersTable;
  mcp_sessions: McpSessionsTable;
  sso_settings: SsoSettingsTable;
  sso_logins: SsoLoginsTable;
  mcp_connections: McpConnectionsTable;
  mcp_oauth_states: McpOAuthStatesTable;
  mcp_oauth_clients: McpOAuthClientsTable;
}

export type { Generated };

/** Per-user upstream OAuth connections of MCP integrations (migration 0028): tokens sealed. */
export interface McpConnectionsTable {
  id: string;
  organisation_id: string;
  mcp_integration_id: string;
  user_id: string;
  access_token_ciphertext: string;
  refresh_token_ciphertext: string;
  expires_at: number | null;
  scopes: string;
  connected_at: number;
  updated_at: number;
  /** The registered client the tokens were issued to (migration 0032); null: the integration's own `oauth.client_id`. */
  oauth_client_id: string | null;
}

/** Clients the gateway registered at MCP upstreams' authorization servers (RFC 7591, migration 0032): secrets sealed. */
export interface McpOAuthClientsTable {
  id: string;
  organisation_id: string;
  mcp_integration_id: string;
  issuer: string;
  redirect_uri: string;
  client_id: string;
  client_secret_ciphertext: string;
  token_endpoint_auth_method: string;
  secret_expires_at: number | null;
  created_at: number;
}

/** Pending upstream authorizations of MCP per-user OAuth (migration 0029): found by the state's hash, taken once. */
export interface McpOAuthStatesTable {
  state_hash: string;
  organisation_id: string;
  workspace_id: string;
  server_id: string;
  mcp_integration_id: string;
  user_id: string;
  code_verifier_ciphertext: string;
  redirect_uri: string;
  resource: string;
  created_at: number;
  expires_at: number;
}

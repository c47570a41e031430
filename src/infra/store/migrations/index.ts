import type { Migration, MigrationProvider } from 'kysely';
import * as m0001 from './0001-core.js';
import * as m0002 from './0002-cache.js';
import * as m0003 from './0003-prompts.js';
import * as m0004 from './0004-guardrails.js';
import * as m0005 from './0005-rate-limits.js';
import * as m0006 from './0006-responses.js';
import * as m0007 from './0007-files-batches.js';
import * as m0008 from './0008-file-chunks.js';
import * as m0009 from './0009-batch-line-dispatch.js';
import * as m0010 from './0010-audit-logs.js';
import * as m0011 from './0011-runtime-changes.js';
import * as m0012 from './0012-organisation-default-workspace.js';
import * as m0013 from './0013-api-key-defaults.js';
import * as m0014 from './0014-tenancy.js';
import * as m0015 from './0015-api-key-lifecycle.js';
import * as m0016 from './0016-sessions.js';
import * as m0017 from './0017-request-log-user.js';
import * as m0018 from './0018-usage-limits.js';
import * as m0019 from './0019-integrations.js';
import * as m0020 from './0020-identity.js';
import * as m0023 from './0023-agent-servers.js';
import * as m0026 from './0026-inline-usage-limits.js';
import * as m0022 from './0022-mcp.js';
import * as m0024 from './0024-request-log-prices.js';
import * as m0025 from './0025-secret-references.js';
import * as m0021 from './0021-request-log-detail.js';
import * as m0027 from './0027-sso.js';
import * as m0028 from './0028-mcp-oauth.js';
import * as m0029 from './0029-mcp-oauth-states.js';
import * as m0030 from './0030-header-secret-mappings.js';
import * as m0031 from './0031-request-log-rollups.js';
import * as m0032 from './0032-mcp-oauth-clients.js';
import * as m0033 from './0033-operator-key.js';
import * as m0034 from './0034-schema-compat.js';

/**
 * Every migration, in order. One set for SQLite and PostgreSQL. A capability adds its file and one
 * line here; names sort in the order they run.
 */
const MIGRATIONS: Record<string, Migration> = {
  '0001-core': m0001,
  '0002-cache': m0002,
  '0003-prompts': m0003,
  '0004-guardrails': m0004,
  '0005-rate-limits': m0005,
  '0006-responses': m0006,
  '0007-files-batches': m0007,
  '0008-file-chunks': m0008,
  '0009-batch-line-dispatch': m0009,
  '0010-audit-logs': m0010,
  '0011-runtime-changes': m0011,
  '0012-organisation-default-workspace': m0012,
  '0013-api-key-defaults': m0013,
  '0014-tenancy': m0014,
  '0015-api-key-lifecycle': m0015,
  '0016-sessions': m0016,
  '0017-request-log-user': m0017,
  '0018-usage-limits': m0018,
  '0019-integrations': m0019,
  '0020-identity': m0020,
  '0023-agent-servers': m0023,
  '0026-inline-usage-limits': m0026,
  '0022-mcp': m0022,
  '0024-request-log-prices': m0024,
  '0025-secret-references': m0025,
  '0021-request-log-detail': m0021,
  '0027-sso': m0027,
  '0028-mcp-oauth': m0028,
  '0029-mcp-oauth-states': m0029,
  '0030-header-secret-mappings': m0030,
  '0031-request-log-rollups': m0031,
  '0032-mcp-oauth-clients': m0032,
  '0033-operator-key': m0033,
  '0034-schema-compat': m0034,
};

/** Static provider (no directory scanning, so the build output needs nothing beside it). */
export const migrationProvider: MigrationProvider = {
  getMigrations: async () => MIGRATIONS,
};

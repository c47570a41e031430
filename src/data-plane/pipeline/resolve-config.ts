import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { InlineConfigCache } from '../../routing/config-cache.js';
import type { CompiledConfig } from '../../routing/compiled-config.js';
import type { RuntimeSnapshot } from '../../runtime/snapshot.js';

/**
 * The config of a request: inline JSON in `x-gateway-config` (compiled once per distinct string), or the
 * id or slug of a stored config of the request's workspace. Any other id, another tenant's included, is
 * 404 `not_found` (the two are indistinguishable).
 */
export function resolveConfig(
  header: string | undefined,
  workspaceId: string,
  snapshot: RuntimeSnapshot,
  inline: InlineConfigCache,
): CompiledConfig | null {
  if (!header) return null;
  if (header.startsWith('{')) return inline.get(header);
  const stored = snapshot.configs.get(`${workspaceId}:${header}`);
  if (!stored) throw new GatewayError('not_found', `No stored config '${header}' in this workspace.`, { param: 'x-gateway-config' });
  return stored;
}

import type { HeaderSecretMapping } from '../store/repos/secret-references.js';
import { openHeaders, overrideHeaders } from '../lib/sealed-values.js';
import { resolveMappedHeaders } from '../secrets/mapped-headers.js';
import { sectionOf } from '../runtime/snapshot.js';
import { SECRET_REFERENCES_SECTION, type SecretReferencesSection } from '../runtime/secret-references-section.js';
import type { GatewayDeps } from './deps.js';

/** A loaded row whose calls upstream carry headers: sealed static values and secret mappings. */
export interface HeaderSource {
  id: string;
  sealed: string;
  secretMappings: readonly HeaderSecretMapping[];
}

/**
 * The headers a call to an upstream (MCP server, agent server) carries for a caller of `workspaceId`:
 * the row's static headers (opened once per loaded `row` object) overridden, name by name without
 * case, by its secret mappings resolved through the secret resolver's cache. Throws 502
 * `provider_unreachable` naming the reference (never a value) when a mapping cannot be resolved.
 * The values are credentials: never log or answer them.
 */
export async function upstreamHeadersOf(deps: Pick<GatewayDeps, 'secrets' | 'runtime' | 'secretResolver'>, row: object, h: HeaderSource, workspaceId: string): Promise<Record<string, string>> {
  const base = openHeaders(deps.secrets, row, h.id, h.sealed);
  if (h.secretMappings.length === 0) return { ...base };
  const source = (refId: string) => sectionOf<SecretReferencesSection>(deps.runtime.current, SECRET_REFERENCES_SECTION)?.byId.get(refId);
  return overrideHeaders(base, await resolveMappedHeaders({ source, resolver: deps.secretResolver }, h.secretMappings, workspaceId));
}

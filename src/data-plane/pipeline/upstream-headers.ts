import type { HeaderSecretMapping } from '../../infra/store/repos/secret-references.js';
import { openHeaders, overrideHeaders } from '../../foundation/lib/sealed-values.js';
import { resolveMappedHeaders } from '../../infra/secrets/mapped-headers.js';
import type { SecretSource } from '../../infra/secrets/secret-source.js';
import { sectionOf } from '../../runtime/snapshot.js';
import { SECRET_REFERENCES_SECTION, type SecretReferencesSection } from '../../runtime/secret-references-section.js';
import type { GatewayDeps } from './deps.js';

type HeaderDeps = Pick<GatewayDeps, 'secrets' | 'runtime' | 'secretResolver'>;

/** A secret reference of the runtime snapshot, by id. */
function sourceOf(deps: HeaderDeps, refId: string): SecretSource | undefined {
  return sectionOf<SecretReferencesSection>(deps.runtime.current, SECRET_REFERENCES_SECTION)?.byId.get(refId);
}

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
export async function upstreamHeadersOf(
  deps: HeaderDeps,
  row: object,
  h: HeaderSource,
  workspaceId: string,
): Promise<Record<string, string>> {
  const base = openHeaders(deps.secrets, row, h.id, h.sealed);
  if (h.secretMappings.length === 0) return { ...base };
  return overrideHeaders(
    base,
    await resolveMappedHeaders({ source: (refId) => sourceOf(deps, refId), resolver: deps.secretResolver }, h.secretMappings, workspaceId),
  );
}

/**
 * Fetches the references of the mappings anew (not from the cache), after the upstream refused a
 * credential they filled; a reference that still cannot be fetched keeps its cached value.
 */
export async function refreshMappedSecrets(deps: HeaderDeps, mappings: readonly HeaderSecretMapping[]): Promise<void> {
  for (const refId of new Set(mappings.map((m) => m.secret_reference_id))) {
    const source = sourceOf(deps, refId);
    if (source) await deps.secretResolver.resolve(source, { fresh: true }).catch(() => undefined);
  }
}

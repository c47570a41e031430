import type { HeaderSecretMapping } from '../store/repos/secret-references.js';
import { secretUnavailable, type SecretResolver } from './secret-resolver.js';
import { pickMember, type SecretSource } from './secret-source.js';

/** The placeholder a `value_format` template holds once (`Bearer {{secret}}`). */
export const SECRET_PLACEHOLDER = '{{secret}}';

/** The header name a mapping fills (`headers.X-Api-Key` → `X-Api-Key`). */
export function mappedHeaderName(m: Pick<HeaderSecretMapping, 'target_field'>): string {
  return m.target_field.slice('headers.'.length);
}

/** Whether a `value_format` is a template (anything but `string` and `json`). */
export function isTemplate(format: string | undefined): format is string {
  return format !== undefined && format !== 'string' && format !== 'json';
}

/**
 * The header value of a mapping from the secret's text: the member `secret_key` of a JSON secret when
 * set, written into the template when `value_format` is one. Throws an Error naming the member or the
 * header (never the value) when the member is missing or the value cannot be a header value.
 */
export function headerValueOf(m: HeaderSecretMapping, text: string): string {
  const secret = m.secret_key ? pickMember(text, m.secret_key) : text;
  const value = isTemplate(m.value_format) ? m.value_format.replace(SECRET_PLACEHOLDER, () => secret) : secret;
  if (value === '' || /[\r\n\0]/.test(value))
    throw new Error(`its value cannot be sent as header '${mappedHeaderName(m)}' (empty, or holds a line break or NUL)`);
  return value;
}

/** What resolving header mappings needs: the references of the runtime snapshot and the resolver. */
export interface MappedHeaderDeps {
  /** The reference with this id (its `auth_config` opened), or undefined when there is none. */
  source(refId: string): SecretSource | undefined;
  resolver: SecretResolver;
}

/**
 * The headers a call to an upstream gets from its `secret_mappings`, for a caller of `workspaceId`: each
 * reference's value from the resolver's cache (a value already cached is used at once, even when due
 * for refresh, which then runs in the background; only a reference never fetched is waited for). 502
 * `provider_unreachable` naming the reference (never a value) when a reference is gone, is not shared
 * with the workspace, cannot be fetched, or its value does not fit the mapping.
 */
export async function resolveMappedHeaders(
  deps: MappedHeaderDeps,
  mappings: readonly HeaderSecretMapping[],
  workspaceId: string,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const m of mappings) {
    const source = deps.source(m.secret_reference_id);
    if (!source || !(source.allowAllWorkspaces || source.allowedWorkspaces.includes(workspaceId))) {
      throw secretUnavailable(
        { id: m.secret_reference_id, name: source?.name ?? m.secret_reference_id },
        `the reference does not exist or is not shared with this workspace (header '${mappedHeaderName(m)}').`,
      );
    }
    const text = deps.resolver.peek(source) ?? (await deps.resolver.resolve(source));
    try {
      out[mappedHeaderName(m)] = headerValueOf(m, text);
    } catch (err) {
      throw secretUnavailable(source, `${(err as Error).message}.`);
    }
  }
  return out;
}

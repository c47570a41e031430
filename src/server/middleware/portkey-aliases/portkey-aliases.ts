import type { IncomingHttpHeaders } from 'node:http';

/** The Portkey request headers read as aliases of ours: `x-portkey-<name>` → `x-gateway-<name>`. */
const ALIASED: ReadonlyMap<string, string> = new Map(
  [
    'api-key',
    'provider',
    'virtual-key',
    'config',
    'metadata',
    'trace-id',
    'custom-host',
    'forward-headers',
    'request-timeout',
    'cache-force-refresh',
    'span-id',
    'parent-span-id',
    'span-name',
  ].map((n) => [`x-portkey-${n}`, `x-gateway-${n}`]),
);

/** Whether a header name is in Portkey's namespace (the edge's one check per header; nothing else runs when none is). */
export function isPortkeyHeader(name: string): boolean {
  return name.startsWith('x-portkey-');
}

/**
 * Resolves one `x-portkey-*` header at the edge, so a Portkey client switches by changing its base URL:
 * a known alias becomes the `x-gateway-*` header of the same name (ours wins when both are sent); every
 * `x-portkey-*` header is then removed, so none reaches a provider. Answers carry our own headers.
 */
export function resolvePortkeyHeader(headers: IncomingHttpHeaders, name: string): void {
  const ours = ALIASED.get(name);
  if (ours !== undefined && headers[ours] === undefined) headers[ours] = headers[name];
  delete headers[name];
}

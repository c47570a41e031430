import { A2A_LEGACY_PROTOCOL_VERSION, isLegacyJsonRpcMethod, legacyJsonRpcToV1Method } from '@a2a-js/sdk/compat/v0_3';
import { A2A_PROTOCOL_VERSION } from '@a2a-js/sdk';

/** The A2A protocol versions the gateway proxies (control-plane.md §10). */
export type A2AVersion = '0.3' | '1.0';

/** What a proxied method does, whatever its version's name for it. */
export type MethodKind = 'send' | 'stream' | 'get' | 'cancel';

/**
 * The methods the gateway proxies, by their v1.0 names. The v0.3 names (`message/send`,
 * `message/stream`, `tasks/get`, `tasks/cancel`) are translated to these with the SDK's compat
 * table. Other A2A methods (task lists, push-notification configs, resubscription, the extended
 * card) are not proxied: a task list would show other callers' tasks.
 */
const KINDS: Readonly<Record<string, MethodKind>> = {
  SendMessage: 'send',
  SendStreamingMessage: 'stream',
  GetTask: 'get',
  CancelTask: 'cancel',
};

/** The names a version knows for the proxied methods (for error messages). */
export const METHOD_NAMES: Readonly<Record<A2AVersion, readonly string[]>> = {
  '0.3': ['message/send', 'message/stream', 'tasks/get', 'tasks/cancel'],
  '1.0': Object.keys(KINDS),
};

/**
 * The protocol version of a request from its `A2A-Version` header: absent or empty is 0.3 (as the
 * protocol says of clients that predate the header), `0.3` / `1.0` (a patch level is ignored);
 * undefined for any other version.
 */
export function versionOf(header: string | string[] | undefined): A2AVersion | undefined {
  const raw = (Array.isArray(header) ? header[0] : header)?.trim() ?? '';
  if (raw === '') return A2A_LEGACY_PROTOCOL_VERSION;
  const [major, minor = '0'] = raw.split('.');
  const mm = `${major}.${minor}`;
  if (mm === A2A_LEGACY_PROTOCOL_VERSION || mm === A2A_PROTOCOL_VERSION) return mm;
  return undefined;
}

/** What a method of this version does, or undefined when it is not one the gateway proxies (or not the version's name). */
export function kindOf(version: A2AVersion, method: string): MethodKind | undefined {
  if (version === '0.3') return isLegacyJsonRpcMethod(method) ? KINDS[legacyJsonRpcToV1Method(method)] : undefined;
  return Object.hasOwn(KINDS, method) ? KINDS[method] : undefined;
}

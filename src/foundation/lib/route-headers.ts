import type { SecretBox } from './secret-box.js';
import { hasPlainCredentials, openCredentialSettings, sealCredentialSettings } from './credential-settings.js';

/** Every captured header is treated as a credential: `Authorization`, an inline `x-gateway-config`, forwarded headers. */
const EVERY_HEADER = () => true;

const contextOf = (ownerId: string) => `${ownerId}:route.headers`;

/**
 * The routing headers a request left behind for later work (a batch's create request) as stored: every
 * value sealed with the box (the provider key in `Authorization`, an inline `x-gateway-config` with its
 * `api_key`, headers named by `x-gateway-forward-headers`), bound to `<owner id>:route.headers:<name>`.
 * Values already sealed are left alone, so this also seals rows written before they were sealed.
 */
export function sealRouteHeaders(box: SecretBox, ownerId: string, headers: Record<string, unknown>): Record<string, unknown> {
  return sealCredentialSettings(box, contextOf(ownerId), headers, EVERY_HEADER);
}

/** Whether any stored routing header is still in plaintext. */
export function hasPlainRouteHeaders(headers: Record<string, unknown>): boolean {
  return hasPlainCredentials(headers, EVERY_HEADER);
}

/** The stored routing headers in plaintext, for the work that replays them; throws `SecretBoxError` when a value does not open. */
export function openRouteHeaders(box: SecretBox, ownerId: string, headers: Record<string, unknown>): Record<string, string> {
  const opened = openCredentialSettings(box, contextOf(ownerId), headers);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(opened)) if (typeof v === 'string') out[k] = v;
  return out;
}

import type { GatewayDeps } from '../../../data-plane/pipeline/deps.js';

type UpstreamOAuthModule = typeof import('./upstream-oauth.js');

let loading: Promise<UpstreamOAuthModule> | undefined;

/**
 * The upstream OAuth module, loaded on first use: it brings `openid-client` and the MCP SDK's discovery
 * functions, which a gateway whose users never connect to an OAuth upstream does not need in memory.
 */
export function loadUpstreamOAuth(): Promise<UpstreamOAuthModule> {
  return (loading ??= import('./upstream-oauth.js'));
}

/** Closes the upstream OAuth of `deps` if the module was ever loaded (at shutdown). */
export async function closeLoadedUpstreamOAuth(deps: GatewayDeps): Promise<void> {
  if (loading) await (await loading).closeUpstreamOAuth(deps);
}

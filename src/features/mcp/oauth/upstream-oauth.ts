import type { GatewayDeps } from '../../../data-plane/pipeline/deps.js';
import { UpstreamFetch } from '../upstream-fetch.js';
import { ConnectFlow } from './connect-flow.js';
import { ConnectionTokens } from './connection-tokens.js';
import { UpstreamDiscovery } from './upstream-discovery.js';

/** Per-user upstream OAuth of one gateway: discovery (cached), the connect flow, the users' tokens. */
export interface UpstreamOAuth {
  readonly discovery: UpstreamDiscovery;
  readonly flow: ConnectFlow;
  readonly tokens: ConnectionTokens;
}

interface Held extends UpstreamOAuth {
  readonly fetcher: UpstreamFetch;
}

const instances = new WeakMap<GatewayDeps, Held>();

/**
 * The upstream OAuth of the gateway built on `deps`, made on first use and shared by the MCP endpoint and
 * the MCP servers' connect and connections routes (so one discovery cache and one refresh single flight
 * serve both). Its HTTP requests go through an MCP upstream fetch (custom-host guard, outbound policy).
 */
export function upstreamOAuth(deps: GatewayDeps): UpstreamOAuth {
  let held = instances.get(deps);
  if (!held) {
    const fetcher = new UpstreamFetch(deps.http.outbound, deps.settings.upstreamConnectTimeoutMs, deps.settings.upstreamHeadersTimeoutMs);
    const discovery = new UpstreamDiscovery(fetcher, deps.http.outbound, deps.secrets, () => deps.clock.now(), deps.store.db);
    const flow = new ConnectFlow(deps, discovery);
    held = { fetcher, discovery, flow, tokens: new ConnectionTokens(deps, discovery, flow) };
    instances.set(deps, held);
  }
  return held;
}

/** Closes the upstream OAuth's connections (at shutdown). */
export async function closeUpstreamOAuth(deps: GatewayDeps): Promise<void> {
  const held = instances.get(deps);
  instances.delete(deps);
  await held?.fetcher.close();
}

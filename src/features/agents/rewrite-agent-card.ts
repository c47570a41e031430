import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject } from '../../foundation/lib/json.js';

/**
 * The URL of an agent server behind the gateway: `<base>/v1/agents/<slug>`, with exactly one `/`
 * between the parts whatever `base` ends with (a base with a path prefix keeps it).
 */
export function gatewayAgentUrl(base: string, slug: string): string {
  const u = new URL(base);
  u.search = '';
  u.hash = '';
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/v1/agents/${encodeURIComponent(slug)}`;
  return u.toString();
}

function isJsonRpc(binding: unknown): boolean {
  return typeof binding === 'string' && binding.toUpperCase() === 'JSONRPC';
}

/** The v1.0 interfaces: the JSON-RPC ones, one per protocol version, at the gateway's URL. */
function rewriteInterfaces(list: unknown[], url: string): Record<string, unknown>[] {
  const seen = new Set<string>();
  const out: Record<string, unknown>[] = [];
  for (const i of list) {
    if (!isObject(i) || !isJsonRpc(i.protocolBinding)) continue;
    const version = typeof i.protocolVersion === 'string' ? i.protocolVersion : '';
    if (seen.has(version)) continue;
    seen.add(version);
    out.push({ ...i, url });
  }
  return out;
}

/**
 * The card as callers of the gateway see it: every JSON-RPC interface URL (v1.0
 * `supportedInterfaces`, v0.3 `url` and `additionalInterfaces`) becomes the gateway's URL of the
 * agent, interfaces of other bindings (HTTP+JSON, gRPC: the gateway proxies JSON-RPC only) are
 * dropped, `signatures` are removed (they sign the upstream's URLs, no longer the card's), the
 * extended card is not offered (the gateway does not proxy it), and with an allow-list only the
 * allowed skills are listed. A card with no JSON-RPC interface is 502.
 */
export function rewriteAgentCard(card: Record<string, unknown>, url: string, allow: readonly string[] | null): Record<string, unknown> {
  const { signatures: _signatures, ...out } = card;
  let jsonRpc = false;
  if (Array.isArray(card.supportedInterfaces)) {
    out.supportedInterfaces = rewriteInterfaces(card.supportedInterfaces, url);
    jsonRpc = (out.supportedInterfaces as unknown[]).length > 0;
  }
  if (typeof card.url === 'string') {
    // v0.3: `url` serves `preferredTransport` (JSON-RPC when absent); other transports are listed in `additionalInterfaces`.
    const additional = Array.isArray(card.additionalInterfaces)
      ? card.additionalInterfaces.filter((i) => isObject(i) && isJsonRpc(i.transport))
      : [];
    if (card.preferredTransport === undefined || isJsonRpc(card.preferredTransport) || additional.length > 0) {
      jsonRpc = true;
      out.url = url;
      out.preferredTransport = 'JSONRPC';
      if (card.additionalInterfaces !== undefined)
        out.additionalInterfaces = additional.slice(0, 1).map((i) => ({ ...(i as object), url }));
    } else {
      delete out.url;
      delete out.additionalInterfaces;
    }
  }
  if (!jsonRpc)
    throw new GatewayError('provider_error', 'The agent card declares no JSON-RPC interface (the gateway proxies JSON-RPC only).', {
      status: 502,
      provider: 'a2a',
      retryable: false,
    });
  if ('supportsAuthenticatedExtendedCard' in out) out.supportsAuthenticatedExtendedCard = false;
  if (isObject(card.capabilities) && 'extendedAgentCard' in card.capabilities)
    out.capabilities = { ...card.capabilities, extendedAgentCard: false };
  if (allow !== null && Array.isArray(card.skills))
    out.skills = card.skills.filter((s) => isObject(s) && typeof s.id === 'string' && allow.includes(s.id));
  return out;
}

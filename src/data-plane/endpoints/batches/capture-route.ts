import type { IncomingHttpHeaders } from 'node:http';
import type { RequestContext } from '../../pipeline/request-context.js';
import type { BatchRoute, StoredBatchRoute } from '../../../infra/store/repos/batches.js';
import type { SecretBox } from '../../../foundation/lib/secret-box.js';
import { openRouteHeaders, sealRouteHeaders } from '../../../foundation/lib/route-headers.js';

/** Request headers that decide how a request is routed (decisions.md, "Request headers"). */
const ROUTING_HEADERS = [
  'x-gateway-provider',
  'authorization',
  'x-gateway-virtual-key',
  'x-gateway-config',
  'x-gateway-custom-host',
  'x-gateway-metadata',
  'x-gateway-forward-headers',
  'x-gateway-request-timeout',
  'x-gateway-cache-force-refresh',
];

const NEVER = /^(x-gateway-api-key$|cookie$|host$|connection$|content-length$|transfer-encoding$|x-forwarded-)/;

/**
 * The routing facts of a batch-create request, kept so each line later runs as that request would have:
 * the routing headers above and the headers `x-gateway-forward-headers` names. The gateway key is
 * never kept (the batch remembers the key's id and runs with its current scopes); a provider key is
 * kept only when the request itself carried one in `Authorization`, and is stored sealed ({@link sealedRoute}).
 */
export function captureRoute(headers: IncomingHttpHeaders, ctx: RequestContext): BatchRoute {
  const out: Record<string, string> = {};
  const take = (name: string) => {
    if (NEVER.test(name)) return;
    const v = headers[name];
    if (typeof v === 'string') out[name] = v;
    else if (Array.isArray(v)) out[name] = v.join(', ');
  };
  for (const name of ROUTING_HEADERS) take(name);
  for (const name of (out['x-gateway-forward-headers'] ?? '').split(',')) take(name.trim().toLowerCase());
  return { headers: out, organisation_id: ctx.organisationId, api_key_id: ctx.key?.id ?? null };
}

/** The route as the batch stores it: every captured header sealed with the box, bound to the batch id. */
export function sealedRoute(box: SecretBox, batchId: string, route: BatchRoute): StoredBatchRoute {
  return { ...route, headers: sealRouteHeaders(box, batchId, route.headers) };
}

/** The stored route opened for the worker that replays it; throws `SecretBoxError` when it does not open. */
export function openedRoute(box: SecretBox, batchId: string, route: StoredBatchRoute): BatchRoute {
  return { ...route, headers: openRouteHeaders(box, batchId, route.headers) };
}

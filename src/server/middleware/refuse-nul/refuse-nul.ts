import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, preValidationHookHandler } from 'fastify';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's JSON body goes to a provider (a prompt's variables are rendered into one): a NUL
     * inside message text is legitimate there, so the body is not searched for U+0000. Whatever of
     * such a body the gateway stores, the store keeps without NUL (`infra/store/guarded-postgres-dialect.ts`).
     */
    forwardsBody?: boolean;
  }
}

/** A parsed object of keys and values (params and query objects have other prototypes), not binary data or a stream. */
function isPlain(v: object): boolean {
  return !ArrayBuffer.isView(v) && !(v instanceof ArrayBuffer) && typeof (v as { pipe?: unknown }).pipe !== 'function';
}

/** The dotted path of the first key or string holding U+0000 in `value`, or null. Iterative: a deep body cannot overflow the stack. */
function findNul(value: unknown, root: string): string | null {
  const stack: Array<[unknown, string]> = [[value, root]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return path;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path}.${i}`]);
    } else if (v !== null && typeof v === 'object' && isPlain(v)) {
      for (const key of Object.keys(v)) {
        if (key.includes('\u0000')) return `${path}.${key.replaceAll('\u0000', '\\u0000')}`;
        stack.push([(v as Record<string, unknown>)[key], `${path}.${key}`]);
      }
    }
  }
  return null;
}

function refuse(param: string): never {
  throw new GatewayError('invalid_request', `${param} contains a NUL character (U+0000), which is not allowed here.`, { param });
}

/** U+0000 in a path parameter or a query value: it can only arrive percent-encoded, so a URL without `%00` costs one substring search. */
function refuseNulInUrl(request: FastifyRequest): void {
  if (request.url.includes('%00')) {
    const where = findNul(request.params, 'params') ?? findNul(request.query, 'querystring');
    if (where) refuse(where);
  }
}

/** The check of a route whose body is forwarded to a provider (`forwardsBody`): the URL only. */
function refuseNulInForwardingRoute(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  refuseNulInUrl(request);
  done();
}

/** The check of every other route: the URL, and any key or string of a JSON body. */
function refuseNulEverywhere(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  refuseNulInUrl(request);
  const body = request.body;
  if (body !== null && typeof body === 'object') {
    const where = findNul(body, 'body');
    if (where) refuse(where);
  }
  done();
}

/**
 * Refuses U+0000 with 400 `invalid_request` before any handler or store sees it (PostgreSQL text
 * cannot hold NUL; ids, names and templates never need it), on every route registered afterwards: in
 * a path parameter or a query value, and in any key or string of a JSON body except on routes that
 * declare `config: { forwardsBody: true }`. The check is chosen once per route when it is registered
 * (an `onRoute` hook), so a request pays for no route lookup; it runs first among the route's
 * `preValidation` hooks (before the permission check), so install it after the route guard.
 */
export function installNulRefusal(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const check: preValidationHookHandler = route.config?.forwardsBody === true ? refuseNulInForwardingRoute : refuseNulEverywhere;
    const existing = route.preValidation;
    route.preValidation = existing === undefined ? [check] : [check, ...(Array.isArray(existing) ? existing : [existing])];
  });
}

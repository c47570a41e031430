import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { GatewayError } from '../../../errors/gateway-error.js';

/**
 * Routes whose JSON body goes to a provider (a prompt's variables are rendered into one): a NUL
 * inside message text is legitimate there. Whatever of such a body the gateway stores, the store
 * keeps without NUL (`store/guarded-postgres-dialect.ts`).
 */
const FORWARDED_BODIES = new Set([
  'POST /v1/chat/completions',
  'POST /v1/completions',
  'POST /v1/embeddings',
  'POST /v1/images/generations',
  'POST /v1/moderations',
  'POST /v1/rerank',
  'POST /v1/responses',
  'POST /v1/messages',
  'POST /v1/messages/count_tokens',
  'POST /v1/fine_tuning/jobs',
  'POST /v1/prompts/:promptId/completions',
  'POST /v1/prompts/:promptId/render',
]);

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

/**
 * Refuses U+0000 with 400 `invalid_request` before any handler or store sees it, for every route: in
 * a path parameter or a query value (it can only arrive percent-encoded, so a URL without `%00` costs
 * one substring search), and in any key or string of a JSON body except the bodies forwarded to
 * providers (`FORWARDED_BODIES`). PostgreSQL text cannot hold NUL; ids, names and templates never need it.
 */
export function refuseNul(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (request.url.includes('%00')) {
    const where = findNul(request.params, 'params') ?? findNul(request.query, 'querystring');
    if (where) refuse(where);
  }
  const body = request.body;
  if (body !== null && typeof body === 'object' && !FORWARDED_BODIES.has(`${request.method} ${request.routeOptions.url}`)) {
    const where = findNul(body, 'body');
    if (where) refuse(where);
  }
  done();
}

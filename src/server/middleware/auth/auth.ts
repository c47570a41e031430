import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { sha256Hex } from '../../../foundation/lib/hash.js';
import type { Runtime } from '../../../runtime/runtime.js';
import type { CredentialHeader } from '../../../data-plane/pipeline/request-context.js';
import { SESSION_COOKIE, cookieValue } from '../../../identity/session-cookies.js';
import { authenticateSession } from './session-auth.js';
import { authenticateJwt } from './jwt-auth.js';
import { looksLikeJwt } from '../../../identity/jwt/verify-jwt.js';

const hashes = new Map<string, string>();

/** SHA-256 of a presented key, remembered for the few thousand most recent distinct keys. */
function hashOf(raw: string): string {
  let h = hashes.get(raw);
  if (h === undefined) {
    if (hashes.size >= 4096) hashes.clear();
    h = sha256Hex(raw);
    hashes.set(raw, h);
  }
  return h;
}

/** Whether a request carries a gateway credential: `x-gateway-api-key`, a console session cookie or `Authorization: Bearer`. */
function hasCredential(headers: FastifyRequest['headers']): boolean {
  if (headers['x-gateway-api-key'] !== undefined) return true;
  if (typeof headers.cookie === 'string' && cookieValue(headers.cookie, SESSION_COOKIE) !== undefined) return true;
  return typeof headers.authorization === 'string' && headers.authorization.startsWith('Bearer ');
}

/** Routes of the Anthropic Messages API, where Anthropic clients send their key in `x-api-key`. */
const ANTHROPIC_ROUTES = new Set(['/v1/messages', '/v1/messages/count_tokens']);

/**
 * Authenticates every `/v1` request by its gateway key against the hashed keys of the runtime snapshot
 * (401 `invalid_api_key` when missing, unknown or expired; 403 `forbidden` for a key of an archived
 * workspace, read from the snapshot) and sets the request's key, organisation and workspace: a workspace key's own workspace, or for an organisation key its organisation's default
 * workspace (never another organisation's).
 *
 * The key is read from `x-gateway-api-key`; when that header is absent, from `Authorization: Bearer …`
 * and, on the Messages routes, from `x-api-key` (so an OpenAI or Anthropic client needs only a base URL
 * and a key). A key read from `Authorization` or `x-api-key` is removed from the request's headers, so
 * it is never taken for the provider key nor forwarded upstream, and `request.gw.credentialHeader` names
 * where it came from. With `x-gateway-api-key` present, `Authorization` keeps its meaning: the provider key.
 *
 * Without `x-gateway-api-key`, a `gw_session` cookie authenticates the request as its user's console
 * session (`session-auth.ts`); `Authorization` then keeps its meaning (the provider key).
 *
 * A rotated key's previous value is in the snapshot as its own entry whose `expiresAt` is the end of
 * the transition, so it stops working then without a reload. A key shaped like a JWT (`eyJ…` in three
 * segments) is verified as one (`jwt-auth.ts`). `usage.touch` (an in-memory set add)
 * records the key for its `last_used_at`, written later in batches.
 */
export function createAuthHook(
  runtime: Runtime,
  isPublic: (url: string) => boolean,
  now: () => number,
  usage?: { touch(keyId: string): void },
  mayAuthenticate?: (url: string) => boolean,
) {
  // Callback style (no promise per request); a throw is handled by Fastify like a rejection.
  return function authenticate(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
    const headers = request.headers;
    // A public path is served without a credential; on one that may authenticate, a credential sent anyway is checked.
    if (isPublic(request.url) && !(mayAuthenticate?.(request.url) && hasCredential(headers))) return done();
    let raw = headers['x-gateway-api-key'];
    let from: CredentialHeader = 'x-gateway-api-key';
    if (raw === undefined && typeof headers.cookie === 'string') {
      const token = cookieValue(headers.cookie, SESSION_COOKIE);
      if (token !== undefined) return authenticateSession(request, token, hashOf(token), runtime, now, done);
    }
    if (raw === undefined) {
      const auth = headers.authorization;
      if (typeof auth === 'string' && auth.startsWith('Bearer ')) {
        raw = auth.slice(7).trim();
        from = 'authorization';
      } else if (typeof headers['x-api-key'] === 'string' && ANTHROPIC_ROUTES.has(request.routeOptions.url ?? '')) {
        raw = headers['x-api-key'];
        from = 'x-api-key';
      }
    }
    if (typeof raw !== 'string' || raw.length === 0) {
      throw new GatewayError(
        'invalid_api_key',
        'Missing gateway API key: send it in the x-gateway-api-key header or as Authorization: Bearer.',
      );
    }
    // A JWT (control-plane.md §5) is told apart by its shape alone, before any JWT work.
    if (raw.charCodeAt(0) === 101 /* e */ && looksLikeJwt(raw)) return authenticateJwt(request, raw, from, runtime, now, done);
    const snapshot = runtime.current;
    const key = snapshot.apiKeysByHash.get(hashOf(raw));
    if (!key) throw new GatewayError('invalid_api_key', 'Invalid gateway API key.');
    if (key.expiresAt !== null && key.expiresAt <= now()) throw new GatewayError('invalid_api_key', 'The gateway API key has expired.');
    if (from !== 'x-gateway-api-key') {
      // Set to undefined rather than deleted: the headers object keeps its shape.
      headers[from] = undefined;
      request.gw.credentialHeader = from;
    }
    request.gw.key = key;
    usage?.touch(key.id);
    request.gw.organisationId = key.organisationId;
    const workspaceId = key.workspaceId ?? snapshot.defaultWorkspaceByOrganisation.get(key.organisationId);
    if (workspaceId !== undefined) {
      if (key.workspaceId !== null && snapshot.workspacesById.get(workspaceId)?.status === 'archived') {
        throw new GatewayError('forbidden', `Workspace '${workspaceId}' is archived: its keys are refused until it is restored.`);
      }
      request.gw.workspaceId = workspaceId;
    }
    done();
  };
}

import type { FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import type { Runtime } from '../../../runtime/runtime.js';
import type { LiveSession } from '../../../runtime/sessions-section.js';
import { CSRF_COOKIE, CSRF_HEADER, cookieValue, csrfOf, sameToken } from '../../../identity/session-cookies.js';
import { SESSION_WORKSPACE_HEADER, liveSession, sessionKeyFor } from '../../../identity/session-principal.js';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function requestedWorkspace(request: FastifyRequest): string | undefined {
  const header = request.headers[SESSION_WORKSPACE_HEADER];
  if (typeof header === 'string' && header.length) return header;
  const query = request.query as Record<string, unknown> | undefined;
  return typeof query?.workspace_id === 'string' && query.workspace_id.length ? query.workspace_id : undefined;
}

/** Sets the request's key, organisation and workspace from a live session, or throws. */
function actAs(request: FastifyRequest, runtime: Runtime, s: LiveSession, token: string, now: number): void {
  if (s.expiresAt <= now)
    throw new GatewayError('invalid_api_key', 'The console session has expired (max_session_ttl since login): log in again.');
  if (WRITES.has(request.method)) {
    const header = request.headers[CSRF_HEADER];
    const cookie = cookieValue(request.headers.cookie, CSRF_COOKIE);
    const expected = csrfOf(token);
    if (typeof header !== 'string' || !sameToken(header, expected) || !sameToken(cookie, expected)) {
      throw new GatewayError(
        'forbidden',
        `A write made with a session cookie must carry the ${CSRF_HEADER} header equal to the ${CSRF_COOKIE} cookie.`,
        { param: CSRF_HEADER },
      );
    }
  }
  const snapshot = runtime.current;
  const key = sessionKeyFor(s, snapshot, requestedWorkspace(request));
  const workspaceId = key.workspaceId ?? snapshot.defaultWorkspaceByOrganisation.get(key.organisationId);
  if (key.workspaceId !== null && snapshot.workspacesById.get(key.workspaceId)?.status === 'archived') {
    throw new GatewayError('forbidden', `Workspace '${key.workspaceId}' is archived: its resources are refused until it is restored.`);
  }
  request.gw.key = key;
  request.gw.session = s;
  request.gw.organisationId = key.organisationId;
  if (workspaceId !== undefined) request.gw.workspaceId = workspaceId;
}

/**
 * Authenticates a request by its `gw_session` cookie (no `x-gateway-api-key` sent): the session is
 * looked up by its token's hash in the runtime snapshot's sessions section — no SQL. A token this
 * replica has not loaded yet (a login on another replica a moment ago) makes it catch up with the
 * change outbox once (concurrent misses share one catch-up) before answering 401. A session past its
 * end is 401 saying it expired; a write (POST, PUT, PATCH, DELETE) must carry `x-gateway-csrf` equal
 * to the `gw_csrf` cookie, which must be the session's (403 otherwise).
 */
export function authenticateSession(
  request: FastifyRequest,
  token: string,
  tokenHash: string,
  runtime: Runtime,
  now: () => number,
  done: HookHandlerDoneFunction,
): void {
  const found = liveSession(runtime.current, tokenHash);
  if (found) {
    actAs(request, runtime, found, token, now());
    return done();
  }
  runtime.catchUp().then(
    () => {
      const s = liveSession(runtime.current, tokenHash);
      if (!s) return done(new GatewayError('invalid_api_key', 'Unknown or ended console session: log in again.'));
      try {
        actAs(request, runtime, s, token, now());
      } catch (err) {
        return done(err as Error);
      }
      done();
    },
    (err: Error) => done(err),
  );
}

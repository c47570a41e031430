import type { FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Runtime } from '../../../runtime/runtime.js';
import { sectionOf } from '../../../runtime/snapshot.js';
import type { CredentialHeader } from '../../../data-plane/pipeline/request-context.js';
import { JWT_SECTION, type JwtSection } from '../../../identity/jwt/jwt-section.js';
import { verifyJwt } from '../../../identity/jwt/verify-jwt.js';

/**
 * Authenticates a request whose gateway key is a JWT (`looksLikeJwt`): verified against the JWT
 * settings of the runtime snapshot (no SQL; JWKS keys cached), then the request acts with the
 * token's key facts (its scopes in its workspace, attributed to its subject). A key read from
 * `Authorization` is removed from the headers like a gateway key's. Failures are 401
 * `invalid_api_key` naming the reason.
 */
export function authenticateJwt(
  request: FastifyRequest,
  token: string,
  from: CredentialHeader,
  runtime: Runtime,
  now: () => number,
  done: HookHandlerDoneFunction,
): void {
  const snapshot = runtime.current;
  verifyJwt(token, snapshot, sectionOf<JwtSection>(snapshot, JWT_SECTION), now()).then(
    (key) => {
      if (from !== 'x-gateway-api-key') {
        request.headers[from] = undefined;
        request.gw.credentialHeader = from;
      }
      request.gw.key = key;
      request.gw.organisationId = key.organisationId;
      request.gw.workspaceId = key.workspaceId!;
      done();
    },
    (err: Error) => done(err),
  );
}

import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { requestDefaultsOf } from '../../runtime/core-sections.js';
import type { AuthKey, RuntimeSnapshot } from '../../runtime/snapshot.js';
import type { Workspace } from '../../infra/store/repos/organisations.js';
import { UnknownKidError } from './jwks-cache.js';
import type { JwtSection, JwtVerifier } from './jwt-section.js';

/**
 * True when a presented credential looks like a JWT (three base64url segments, the first a JSON
 * object: `eyJ`): a cheap test made before any JWT work, so gateway keys never pay for it.
 */
export function looksLikeJwt(raw: string): boolean {
  if (!raw.startsWith('eyJ')) return false;
  const first = raw.indexOf('.');
  const second = first > 0 ? raw.indexOf('.', first + 1) : -1;
  return second > first + 1 && raw.indexOf('.', second + 1) === -1;
}

function refused(reason: string): GatewayError {
  return new GatewayError('invalid_api_key', `Invalid JWT: ${reason}.`);
}

/** The 401 of a jose failure, naming its reason (control-plane.md §5). */
function reasonOf(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  if (err instanceof UnknownKidError) return refused('unknown kid');
  if (err instanceof errors.JWTExpired) return refused('expired');
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.reason === 'missing') return refused(`missing claim ${err.claim}`);
    if (err.claim === 'nbf' || err.claim === 'iat') return refused('not yet valid');
    if (err.claim === 'iss') return refused('issuer mismatch');
    if (err.claim === 'aud') return refused('audience mismatch');
    return refused(`claim ${err.claim} is invalid`);
  }
  if (err instanceof errors.JOSEAlgNotAllowed) return refused('algorithm not allowed');
  if (err instanceof errors.JWSSignatureVerificationFailed) return refused('bad signature');
  if (err instanceof errors.JWKSMultipleMatchingKeys) return refused('unknown kid (the token names no kid and several keys match)');
  if (err instanceof errors.JWTInvalid || err instanceof errors.JWSInvalid) return refused('malformed token');
  if (err instanceof errors.JOSEError) return refused(`the key does not verify this token (${err.code})`);
  return refused('malformed token');
}

function decode(token: string): { alg: unknown; payload: JWTPayload } {
  try {
    return { alg: decodeProtectedHeader(token).alg, payload: decodeJwt(token) };
  } catch {
    throw refused('malformed token');
  }
}

/** The verifiers that may have issued the token: its workspace's organisation's, with a matching (or no) issuer. */
function candidates(section: JwtSection, snapshot: RuntimeSnapshot, payload: JWTPayload): JwtVerifier[] {
  const ws = typeof payload.workspace_id === 'string' ? snapshot.workspacesById.get(payload.workspace_id) : undefined;
  const out: JwtVerifier[] = [];
  for (const v of section.values()) {
    if (ws && v.organisationId !== ws.organisation_id) continue;
    if (v.issuer !== null && v.issuer !== payload.iss) continue;
    out.push(v);
  }
  return out;
}

function workspaceOf(snapshot: RuntimeSnapshot, organisationId: string, claim: unknown): Workspace {
  if (claim === undefined || claim === null) throw refused('missing claim workspace_id');
  if (typeof claim !== 'string' || !claim) throw refused('claim workspace_id must be a workspace id or slug');
  const ws = snapshot.workspacesById.get(claim) ?? snapshot.workspacesBySlug.get(`${organisationId}:${claim}`);
  if (!ws || ws.organisation_id !== organisationId) throw refused(`unknown workspace '${claim}'`);
  if (ws.status === 'archived')
    throw new GatewayError('forbidden', `Workspace '${ws.id}' is archived: its keys are refused until it is restored.`);
  return ws;
}

function scopesOf(payload: JWTPayload): string[] {
  if (typeof payload.scope === 'string') return payload.scope.split(' ').filter(Boolean);
  if (payload.scopes === undefined) return [];
  if (!Array.isArray(payload.scopes) || !payload.scopes.every((s) => typeof s === 'string'))
    throw refused('claim scopes must be an array of strings');
  return payload.scopes as string[];
}

function metadataOf(payload: JWTPayload): Record<string, string> | undefined {
  const m = payload.metadata;
  if (m === undefined) return undefined;
  if (typeof m !== 'object' || m === null || Array.isArray(m)) throw refused('claim metadata must be an object');
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(m)) out[k] = typeof v === 'string' ? v : JSON.stringify(v);
  return out;
}

/**
 * Verifies a JWT presented as a gateway key against the JWT settings of the runtime snapshot (keys
 * from the organisation's cached JWKS; no SQL) and answers the key facts it acts with: the token's
 * scopes in its `workspace_id`, attributed to its `sub` (else `email`), which is also its id for
 * rate and usage limits (`api_key`), with `metadata` merged under the request's. Every failure is
 * 401 `invalid_api_key` naming the reason: expired, not yet valid, unknown kid, algorithm not
 * allowed (`alg: none` always is), bad signature, issuer or audience mismatch, missing claim.
 */
export async function verifyJwt(token: string, snapshot: RuntimeSnapshot, section: JwtSection | undefined, now: number): Promise<AuthKey> {
  if (!section || section.size === 0) throw refused('JWT authentication is not configured (PUT /v1/organisation/jwt)');
  const { alg, payload } = decode(token);
  const found = candidates(section, snapshot, payload);
  if (!found.length) throw refused('issuer mismatch');
  let firstError: GatewayError | undefined;
  for (const v of found) {
    try {
      if (typeof alg !== 'string' || !v.algorithms.includes(alg)) throw refused(`algorithm not allowed (${String(alg)})`);
      const { payload: claims } = await jwtVerify(token, v.resolveKey, {
        algorithms: [...v.algorithms],
        ...(v.issuer !== null ? { issuer: v.issuer } : {}),
        ...(v.audience !== null ? { audience: v.audience } : {}),
        requiredClaims: ['exp'],
        currentDate: new Date(now),
      });
      const ws = workspaceOf(snapshot, v.organisationId, claims.workspace_id);
      const subject =
        typeof claims.sub === 'string' && claims.sub
          ? claims.sub
          : typeof claims.email === 'string' && claims.email
            ? claims.email
            : undefined;
      const metadata = metadataOf(claims);
      const defaults = requestDefaultsOf({ defaults: metadata ? { metadata } : null, workspaceDefaults: ws.defaults ?? undefined });
      return {
        id: subject ?? 'jwt',
        organisationId: v.organisationId,
        workspaceId: ws.id,
        type: 'workspace-user',
        scopes: scopesOf(claims),
        expiresAt: (claims.exp as number) * 1000,
        name: `JWT of ${subject ?? 'an anonymous subject'}`,
        ...(defaults ? { defaults } : {}),
        ...(subject !== undefined ? { subject } : {}),
        jwt: true,
      };
    } catch (err) {
      firstError ??= reasonOf(err);
    }
  }
  throw firstError!;
}

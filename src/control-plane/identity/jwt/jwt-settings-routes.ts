import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import type { RuntimeChange } from '../../../kernel/runtime-change.js';
import { recordRuntimeChange } from '../../../infra/store/store.js';
import { deleteJwtSettings, getJwtSettings, saveJwtSettings, type JwtSettingsRecord } from '../../../infra/store/repos/jwt-settings.js';
import type { GatewayDeps } from '../../../data-plane/pipeline/deps.js';
import { principalOf, requireOrganisationAdmin } from '../../../identity/authorize.js';
import { writeAudit } from '../../resource/audit.js';
import { ErrorAnswer } from '../../resource/mount-resource.js';
import { iso } from '../../../identity/paging.js';
import { checkIdentityUrl } from '../outbound-url.js';
import { JWT_SECTION } from '../../../identity/jwt/jwt-section.js';
import { StringEnum } from '../../../foundation/spec/string-enum.js';
import { Nullable } from '../../../foundation/spec/nullable.js';

/** Asymmetric JWS algorithms a JWT may be signed with (`none` and shared-secret HMAC never). */
export const JWT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;
const DEFAULT_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'];

const Jwk = Type.Object({ kty: Type.String({ minLength: 1 }) }, { additionalProperties: true });
const JwtSettingsBody = Type.Object(
  {
    jwks_url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    jwks: Type.Optional(Type.Object({ keys: Type.Array(Jwk, { minItems: 1, maxItems: 100 }) }, { additionalProperties: false })),
    issuer: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    audience: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    algorithms: Type.Optional(Type.Array(StringEnum(JWT_ALGORITHMS), { minItems: 1, maxItems: JWT_ALGORITHMS.length, uniqueItems: true })),
  },
  { additionalProperties: false },
);
const JwtSettingsAnswer = Type.Object({
  object: Type.Literal('jwt_settings'),
  jwks_url: Nullable(Type.String()),
  jwks: Nullable(Type.Object({ keys: Type.Array(Type.Object({}, { additionalProperties: true })) })),
  issuer: Nullable(Type.String()),
  audience: Nullable(Type.String()),
  algorithms: Type.Array(Type.String()),
  created_at: Type.String(),
  last_updated_at: Type.String(),
});
const Deleted = Type.Object({ object: Type.Literal('jwt_settings'), deleted: Type.Boolean() });
const tags = ['organisation'];

function present(s: JwtSettingsRecord): Static<typeof JwtSettingsAnswer> {
  return {
    object: 'jwt_settings',
    jwks_url: s.jwks_url,
    jwks: s.jwks as Static<typeof JwtSettingsAnswer>['jwks'],
    issuer: s.issuer,
    audience: s.audience,
    algorithms: s.algorithms,
    created_at: iso(s.created_at)!,
    last_updated_at: iso(s.updated_at)!,
  };
}

/** Public keys only: a symmetric (`oct`) key or one carrying private members is refused. */
function checkKeys(keys: ReadonlyArray<Record<string, unknown>>): void {
  keys.forEach((k, i) => {
    const param = `jwks.keys[${i}]`;
    if (k.kty === 'oct')
      throw new GatewayError('invalid_request', `${param}: symmetric (oct) keys are not accepted; JWTs are verified with public keys.`, {
        param,
      });
    if (!['RSA', 'EC', 'OKP'].includes(String(k.kty)))
      throw new GatewayError('invalid_request', `${param}.kty must be RSA, EC or OKP.`, { param: `${param}.kty` });
    if ('d' in k || 'p' in k || 'q' in k)
      throw new GatewayError('invalid_request', `${param} holds private key material; send public keys only.`, { param });
  });
}

/**
 * `PUT|GET|DELETE /v1/organisation/jwt` (control-plane.md §5): how JWTs presented as gateway keys
 * are verified. Hand-written rather than a declared resource: like the organisation's settings it is
 * a singleton of the caller's organisation (no list, no id). Each route declares its permission and
 * needs an organisation owner or admin; a write runs in one transaction with its audit row and the
 * runtime change of the JWT section, which every replica reloads.
 */
export function registerJwtSettingsRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const changes: RuntimeChange[] = [{ section: JWT_SECTION, workspaceId: null }];
  const admin = (request: FastifyRequest, what: string) => {
    const principal = principalOf(request);
    requireOrganisationAdmin(principal, what);
    return principal;
  };

  typed.get(
    '/v1/organisation/jwt',
    {
      config: { permission: 'organisation.read' },
      schema: {
        tags,
        summary: 'Read the JWT authentication settings',
        response: { 200: JwtSettingsAnswer, '4xx': ErrorAnswer, '5xx': ErrorAnswer },
      },
    },
    async (request) => {
      const principal = admin(request, 'Reading the JWT settings');
      const s = await getJwtSettings(deps.store.db, principal.organisationId);
      if (!s) throw new GatewayError('not_found', 'JWT authentication is not configured for this organisation.');
      return present(s);
    },
  );

  typed.put(
    '/v1/organisation/jwt',
    {
      config: { permission: 'organisation.write' },
      schema: {
        body: JwtSettingsBody,
        tags,
        summary: 'Set how JWTs sent as gateway keys are verified (JWKS URL or inline JWKS, issuer, audience, algorithms)',
        response: { 200: JwtSettingsAnswer, '4xx': ErrorAnswer, '5xx': ErrorAnswer },
      },
    },
    async (request) => {
      const principal = admin(request, 'Changing the JWT settings');
      const body = request.body;
      if ((body.jwks_url === undefined) === (body.jwks === undefined)) {
        throw new GatewayError('invalid_request', 'Send exactly one of jwks_url and jwks.', {
          param: body.jwks_url === undefined ? 'jwks_url' : 'jwks',
        });
      }
      if (body.jwks_url !== undefined) await checkIdentityUrl(deps.http.outbound, body.jwks_url, 'jwks_url');
      if (body.jwks !== undefined) checkKeys(body.jwks.keys);
      const now = deps.clock.now();
      const saved = await deps.store.db.transaction().execute(async (trx) => {
        const before = await getJwtSettings(trx, principal.organisationId);
        const record: JwtSettingsRecord = {
          organisation_id: principal.organisationId,
          jwks_url: body.jwks_url ?? null,
          jwks: body.jwks ?? null,
          issuer: body.issuer ?? null,
          audience: body.audience ?? null,
          algorithms: body.algorithms ?? DEFAULT_ALGORITHMS,
          created_at: before?.created_at ?? now,
          updated_at: now,
        };
        await saveJwtSettings(trx, record);
        const details = {
          jwks_url: record.jwks_url,
          jwks_keys: record.jwks?.keys.length ?? null,
          issuer: record.issuer,
          audience: record.audience,
          algorithms: record.algorithms,
        };
        await writeAudit(trx, request, principal, now, {
          action: 'jwt_settings.update',
          resourceType: 'jwt_settings',
          resourceId: principal.organisationId,
          workspaceId: null,
          details,
        });
        await recordRuntimeChange(trx, changes);
        return record;
      });
      await deps.runtime.committed(changes);
      return present(saved);
    },
  );

  typed.delete(
    '/v1/organisation/jwt',
    {
      config: { permission: 'organisation.write' },
      schema: { tags, summary: 'Turn JWT authentication off', response: { 200: Deleted, '4xx': ErrorAnswer, '5xx': ErrorAnswer } },
    },
    async (request) => {
      const principal = admin(request, 'Turning JWT authentication off');
      const now = deps.clock.now();
      await deps.store.db.transaction().execute(async (trx) => {
        if (!(await deleteJwtSettings(trx, principal.organisationId)))
          throw new GatewayError('not_found', 'JWT authentication is not configured for this organisation.');
        await writeAudit(trx, request, principal, now, {
          action: 'jwt_settings.delete',
          resourceType: 'jwt_settings',
          resourceId: principal.organisationId,
          workspaceId: null,
        });
        await recordRuntimeChange(trx, changes);
      });
      await deps.runtime.committed(changes);
      return { object: 'jwt_settings' as const, deleted: true };
    },
  );
}

import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { deleteSsoSettings, getSsoSettings, saveSsoSettings, type SsoSettingsRecord } from '../../../infra/store/repos/sso.js';
import type { GatewayDeps } from '../../../data-plane/pipeline/deps.js';
import { principalOf, requireOrganisationAdmin } from '../../../identity/authorize.js';
import { writeAudit } from '../../resource/audit.js';
import { ErrorAnswer } from '../../resource/mount-resource.js';
import { iso } from '../../../identity/paging.js';
import { credentialHint } from '../../resources/integrations/integration-input.js';
import { checkIdentityUrl } from '../outbound-url.js';
import { checkSsoDomains } from './sso-domains.js';
import { StringEnum } from '../../../foundation/spec/string-enum.js';

const AuthMethod = StringEnum(['client_secret_basic', 'client_secret_post']);
const DefaultRole = StringEnum(['admin', 'member']);
const Scope = Type.String({ minLength: 1, maxLength: 128, pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' });
const SsoBody = Type.Object(
  {
    issuer: Type.String({ minLength: 1, maxLength: 2048 }),
    client_id: Type.String({ minLength: 1, maxLength: 512 }),
    client_secret: Type.String({ minLength: 1, maxLength: 4096 }),
    token_endpoint_auth_method: Type.Optional(AuthMethod),
    scopes: Type.Optional(Type.Array(Scope, { maxItems: 20, uniqueItems: true })),
    domains: Type.Array(
      Type.Object(
        { domain: Type.String({ minLength: 1, maxLength: 253 }), allow_subdomains: Type.Optional(Type.Boolean()) },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 100 },
    ),
    default_role: Type.Optional(DefaultRole),
    auto_provision: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const SsoAnswer = Type.Object({
  object: Type.Literal('sso_settings'),
  issuer: Type.String(),
  client_id: Type.String(),
  client_secret: Type.String({ description: 'Masked hint; the secret is write-only' }),
  token_endpoint_auth_method: AuthMethod,
  scopes: Type.Array(Type.String()),
  domains: Type.Array(Type.Object({ domain: Type.String(), allow_subdomains: Type.Boolean() })),
  default_role: DefaultRole,
  auto_provision: Type.Boolean(),
  created_at: Type.String(),
  last_updated_at: Type.String(),
});
const Deleted = Type.Object({ object: Type.Literal('sso_settings'), deleted: Type.Boolean() });
const tags = ['organisation'];
const NOT_CONFIGURED = 'SSO is not configured for this organisation.';

/** The context the client secret is sealed with (bound to its organisation). */
export function ssoSecretContext(organisationId: string): string {
  return `${organisationId}:sso`;
}

function present(s: SsoSettingsRecord): Static<typeof SsoAnswer> {
  return {
    object: 'sso_settings',
    issuer: s.issuer,
    client_id: s.client_id,
    client_secret: s.client_secret_hint,
    token_endpoint_auth_method: s.token_endpoint_auth_method,
    scopes: s.scopes,
    domains: s.domains,
    default_role: s.default_role,
    auto_provision: s.auto_provision,
    created_at: iso(s.created_at)!,
    last_updated_at: iso(s.updated_at)!,
  };
}

/**
 * `PUT|GET|DELETE /v1/organisation/sso` (control-plane.md §5): the organisation's OpenID Connect
 * sign-in. Hand-written rather than a declared resource, like `/v1/organisation/jwt`: a singleton of
 * the caller's organisation (no list, no id). Each route declares its permission and needs an
 * organisation owner or admin. The issuer passes the custom-host guard (plain http only for a trusted
 * host); the client secret is sealed by the secret box and answered as a masked hint only; a write
 * runs in one transaction with its audit row (which never carries the secret).
 */
export function registerSsoSettingsRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const admin = (request: FastifyRequest, what: string) => {
    const principal = principalOf(request);
    requireOrganisationAdmin(principal, what);
    return principal;
  };

  typed.get(
    '/v1/organisation/sso',
    {
      config: { permission: 'organisation.read' },
      schema: {
        tags,
        summary: 'Read the SSO (OpenID Connect) settings (client secret masked)',
        response: { 200: SsoAnswer, '4xx': ErrorAnswer, '5xx': ErrorAnswer },
      },
    },
    async (request) => {
      const principal = admin(request, 'Reading the SSO settings');
      const s = await getSsoSettings(deps.store.db, principal.organisationId);
      if (!s) throw new GatewayError('not_found', NOT_CONFIGURED);
      return present(s);
    },
  );

  typed.put(
    '/v1/organisation/sso',
    {
      config: { permission: 'organisation.write' },
      schema: {
        body: SsoBody,
        tags,
        summary: 'Set the SSO (OpenID Connect) settings: issuer, client, scopes, email domains, first-login provisioning',
        response: { 200: SsoAnswer, '4xx': ErrorAnswer, '5xx': ErrorAnswer },
      },
    },
    async (request) => {
      const principal = admin(request, 'Changing the SSO settings');
      const body = request.body;
      let issuer: URL;
      try {
        issuer = new URL(body.issuer);
      } catch {
        throw new GatewayError('invalid_request', 'issuer must be an absolute URL.', { param: 'issuer' });
      }
      if (issuer.protocol !== 'https:' && issuer.protocol !== 'http:')
        throw new GatewayError('invalid_request', 'issuer must be an https URL.', { param: 'issuer' });
      if (issuer.search || issuer.hash)
        throw new GatewayError('invalid_request', 'issuer must have no query or fragment.', { param: 'issuer' });
      await checkIdentityUrl(deps.http.outbound, body.issuer, 'issuer');
      const domains = await checkSsoDomains(body.domains);
      const now = deps.clock.now();
      const saved = await deps.store.db.transaction().execute(async (trx) => {
        const before = await getSsoSettings(trx, principal.organisationId);
        const record: SsoSettingsRecord = {
          organisation_id: principal.organisationId,
          issuer: body.issuer,
          client_id: body.client_id,
          client_secret: deps.secrets.encrypt(body.client_secret, ssoSecretContext(principal.organisationId)),
          client_secret_hint: credentialHint(body.client_secret),
          token_endpoint_auth_method: body.token_endpoint_auth_method ?? 'client_secret_basic',
          scopes: body.scopes ?? [],
          domains,
          default_role: body.default_role ?? 'member',
          auto_provision: body.auto_provision ?? true,
          created_at: before?.created_at ?? now,
          updated_at: now,
        };
        await saveSsoSettings(trx, record);
        const { client_secret: _s, client_secret_hint: _h, ...details } = record;
        await writeAudit(trx, request, principal, now, {
          action: 'sso_settings.update',
          resourceType: 'sso_settings',
          resourceId: principal.organisationId,
          workspaceId: null,
          details,
        });
        return record;
      });
      return present(saved);
    },
  );

  typed.delete(
    '/v1/organisation/sso',
    {
      config: { permission: 'organisation.write' },
      schema: { tags, summary: 'Turn SSO off', response: { 200: Deleted, '4xx': ErrorAnswer, '5xx': ErrorAnswer } },
    },
    async (request) => {
      const principal = admin(request, 'Turning SSO off');
      const now = deps.clock.now();
      await deps.store.db.transaction().execute(async (trx) => {
        if (!(await deleteSsoSettings(trx, principal.organisationId))) throw new GatewayError('not_found', NOT_CONFIGURED);
        await writeAudit(trx, request, principal, now, {
          action: 'sso_settings.delete',
          resourceType: 'sso_settings',
          resourceId: principal.organisationId,
          workspaceId: null,
        });
      });
      return { object: 'sso_settings' as const, deleted: true };
    },
  );
}

import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type * as Oidc from 'openid-client';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { sha256Hex } from '../../../foundation/lib/hash.js';
import type { GatewayDeps } from '../../../data-plane/pipeline/deps.js';
import { listSsoSettings, getSsoSettings, insertSsoLogin, takeSsoLogin, type SsoSettingsRecord } from '../../../infra/store/repos/sso.js';
import { ErrorAnswer } from '../../resource/mount-resource.js';
import { domainOfEmail } from './sso-domains.js';
import { OidcClients } from './oidc-clients.js';
import { startSsoSession } from './sso-session.js';

/** How long a sign-in may take between the redirect to the issuer and the callback. */
const LOGIN_TTL_MS = 10 * 60 * 1000;
/** Where the sign-in routes live (public: reached without a credential). */
export const SSO_PUBLIC_PREFIX = '/v1/auth/sso/';
export const SSO_CALLBACK_PATH = '/v1/auth/sso/callback';
const BASE_SCOPES = ['openid', 'email', 'profile'];

const LoginQuery = Type.Object({ email: Type.Optional(Type.String({ maxLength: 320 })) });
const CallbackQuery = Type.Object(
  {
    state: Type.Optional(Type.String({ maxLength: 2048 })),
    code: Type.Optional(Type.String({ maxLength: 4096 })),
    error: Type.Optional(Type.String({ maxLength: 256 })),
    error_description: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: true },
);
const redirectAnswers = { 302: Type.Null({ description: 'Redirect' }), '4xx': ErrorAnswer, '5xx': ErrorAnswer };
const tags = ['auth'];

/** The scopes asked for: `openid email profile`, the configured ones, then `OIDC_CUSTOM_SCOPES`; no repeats. */
export function ssoScopes(configured: readonly string[], custom: readonly string[]): string {
  return [...new Set([...BASE_SCOPES, ...configured, ...custom])].join(' ');
}

/**
 * Why openid-client refused a callback: its message, the claim it names (`nonce`, `iss`, `aud`…) and
 * the underlying error's message, which never carries a token or the client secret.
 */
function reasonOf(e: unknown): string {
  const parts: string[] = [];
  for (let c: unknown = e, depth = 0; c instanceof Error && depth < 3; c = c.cause, depth++) {
    if (!parts.includes(c.message)) parts.push(c.message);
    const claim = (c.cause as { claim?: unknown } | undefined)?.claim;
    if (typeof claim === 'string') parts.push(`claim "${claim}"`);
  }
  return parts.join('; ');
}

/** The organisation whose SSO settings cover `email`'s domain. */
async function settingsForEmail(deps: GatewayDeps, email: string): Promise<SsoSettingsRecord | undefined> {
  return (await listSsoSettings(deps.store.db)).find((s) => domainOfEmail(s.domains, email) !== undefined);
}

/** The callback URL of this gateway as the browser reaches it (sent as `redirect_uri`). */
function callbackUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}${SSO_CALLBACK_PATH}`;
}

/**
 * SSO sign-in (control-plane.md §5): `GET /v1/auth/sso/login?email=` redirects to the issuer
 * (authorization code flow, PKCE S256, `state` and `nonce` kept server-side for ten minutes, used
 * once); `GET /v1/auth/sso/callback` exchanges the code (openid-client checks the state, the PKCE
 * verifier, the ID token and its nonce), requires a verified email in a configured domain, provisions
 * the user on first login and starts a console session. Hand-written: browser redirects reached
 * without a credential (public routes), not resources.
 */
export function registerSsoLoginRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const clients = new OidcClients(deps.http.outbound, deps.secrets, () => deps.clock.now());

  typed.get(
    '/v1/auth/sso/login',
    {
      config: { public: true },
      schema: {
        querystring: LoginQuery,
        tags,
        summary: 'Start an SSO sign-in: redirects to the identity provider of the email domain',
        security: [],
        response: redirectAnswers,
      },
    },
    async (request, reply) => {
      const email = request.query.email?.trim();
      if (!email)
        throw new GatewayError('invalid_request', 'Send the email to sign in with: /v1/auth/sso/login?email=<email>.', { param: 'email' });
      if (!/^[^@\s]+@[^@\s]+$/.test(email))
        throw new GatewayError('invalid_request', 'email must be an email address.', { param: 'email' });
      const s = await settingsForEmail(deps, email);
      if (!s) throw new GatewayError('forbidden', `SSO is not configured for the domain of '${email}'.`, { param: 'email' });
      const config = await clients.configOf(s);
      const oidc = await import('openid-client');
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const verifier = oidc.randomPKCECodeVerifier();
      const redirectUri = callbackUrl(request);
      const now = deps.clock.now();
      await insertSsoLogin(
        deps.store.db,
        {
          state_hash: sha256Hex(state),
          organisation_id: s.organisation_id,
          nonce,
          code_verifier: verifier,
          redirect_uri: redirectUri,
          created_at: now,
          expires_at: now + LOGIN_TTL_MS,
        },
        now,
      );
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: ssoScopes(s.scopes, deps.settings.oidcCustomScopes),
        state,
        nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        login_hint: email,
      });
      return reply.redirect(url.href, 302);
    },
  );

  typed.get(
    SSO_CALLBACK_PATH,
    {
      config: { public: true },
      schema: {
        querystring: CallbackQuery,
        tags,
        summary: 'Finish an SSO sign-in: sets the gw_session and gw_csrf cookies and redirects to /console/',
        security: [],
        response: redirectAnswers,
      },
    },
    async (request, reply) => {
      const q = request.query;
      if (!q.state) throw new GatewayError('invalid_request', 'The SSO callback carries no state.', { param: 'state' });
      const now = deps.clock.now();
      const login = await takeSsoLogin(deps.store.db, sha256Hex(q.state), now);
      if (!login)
        throw new GatewayError('invalid_request', 'Unknown, expired or already used SSO state: start the sign-in again.', {
          param: 'state',
        });
      if (q.error)
        throw new GatewayError(
          'forbidden',
          `The identity provider refused the sign-in: ${q.error}${q.error_description ? ` (${q.error_description})` : ''}.`,
        );
      const s = await getSsoSettings(deps.store.db, login.organisation_id);
      if (!s) throw new GatewayError('forbidden', 'SSO was turned off for this organisation.');
      const config = await clients.configOf(s);
      const oidc = await import('openid-client');
      const current = new URL(request.url, login.redirect_uri);
      let claims: Record<string, unknown>;
      try {
        const tokens = await oidc.authorizationCodeGrant(config, current, {
          pkceCodeVerifier: login.code_verifier,
          expectedState: q.state,
          expectedNonce: login.nonce,
          idTokenExpected: true,
        });
        claims = { ...tokens.claims() };
        if (claims.email === undefined)
          claims = { ...claims, ...(await oidc.fetchUserInfo(config, tokens.access_token, String(claims.sub))) };
      } catch (e) {
        if (e instanceof GatewayError) throw e;
        throw new GatewayError('invalid_api_key', `SSO sign-in failed: ${reasonOf(e)}`);
      }
      const email = typeof claims.email === 'string' ? claims.email.trim() : '';
      if (!email) throw new GatewayError('forbidden', 'The identity provider sent no email for this user.');
      if (claims.email_verified === false || claims.email_verified === 'false')
        throw new GatewayError('forbidden', `The identity provider has not verified the email '${email}'.`);
      if (!domainOfEmail(s.domains, email))
        throw new GatewayError('forbidden', `The email '${email}' is not in a domain configured for SSO.`);
      const name = typeof claims.name === 'string' ? claims.name : null;
      const session = await startSsoSession(deps, request, s, { email, name, subject: String(claims.sub) });
      reply.header('set-cookie', session.cookies);
      return reply.redirect('/console/', 302);
    },
  );
}

import type { Capability } from '../../data-plane/pipeline/capability.js';
import { jwtSection } from '../../identity/jwt/jwt-section.js';
import { registerJwtSettingsRoutes } from './jwt/jwt-settings-routes.js';
import { SSO_PUBLIC_PREFIX, registerSsoLoginRoutes } from './sso/sso-login-routes.js';
import { registerSsoSettingsRoutes } from './sso/sso-settings-routes.js';
import { SCIM_PREFIX, registerScimRoutes } from './scim/scim-routes.js';

/**
 * Identity (control-plane.md §5): JWT authentication (its runtime section of verifiers and its
 * settings routes; the auth hook verifies JWTs against the section), SSO (OpenID Connect settings,
 * sign-in and callback) and the SCIM 2.0 API (its token
 * and workspace-mapping resources are declared with the other admin resources).
 */
export const identityCapability: Capability = {
  name: 'identity',
  create(core) {
    return {
      sections: [jwtSection(core.http, () => core.clock.now())],
      routes(app, deps) {
        registerJwtSettingsRoutes(app, deps);
        registerScimRoutes(app, deps);
        registerSsoSettingsRoutes(app, deps);
        registerSsoLoginRoutes(app, deps);
      },
      // SCIM requests carry a SCIM token, not a gateway key: the SCIM routes check it themselves.
      // SSO sign-in and callback are browser redirects made before any credential exists.
      publicPaths: [`${SCIM_PREFIX}/`, SSO_PUBLIC_PREFIX],
    };
  },
};

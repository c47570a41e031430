import type { JSONWebKeySet } from 'jose';
import type { HttpClient } from '../../foundation/lib/http-client.js';
import type { RuntimeSection } from '../../runtime/runtime-section.js';
import { listJwtSettings, type JwtSettingsRecord } from '../../infra/store/repos/jwt-settings.js';
import { RemoteJwks, localJwks, type KeyResolver } from './jwks-cache.js';

/** Section of organisations' JWT verifiers: `JwtSection`, by organisation id. */
export const JWT_SECTION = 'jwt-settings';

/** How one organisation verifies JWTs, as the auth hook uses it (no SQL, keys cached). */
export interface JwtVerifier {
  readonly organisationId: string;
  readonly issuer: string | null;
  readonly audience: string | null;
  readonly algorithms: readonly string[];
  readonly resolveKey: KeyResolver;
  /** The settings it was built from (a reload keeps the verifier, and its key cache, when they did not change). */
  readonly fingerprint: string;
}

/** The JWT section's value. */
export type JwtSection = ReadonlyMap<string, JwtVerifier>;

function fingerprintOf(s: JwtSettingsRecord): string {
  return JSON.stringify([s.jwks_url, s.jwks, s.issuer, s.audience, s.algorithms]);
}

/**
 * The JWT section: one verifier per organisation with JWT settings. Reloaded whole when the settings
 * change (`PUT|DELETE /v1/organisation/jwt`); a verifier whose settings did not change is kept, so a
 * fetched JWKS stays cached across reloads.
 */
export function jwtSection(http: HttpClient, now: () => number): RuntimeSection<JwtSection> {
  return {
    name: JWT_SECTION,
    async load(store, previous) {
      const out = new Map<string, JwtVerifier>();
      for (const s of await listJwtSettings(store)) {
        const fingerprint = fingerprintOf(s);
        const kept = previous?.get(s.organisation_id);
        if (kept && kept.fingerprint === fingerprint) {
          out.set(s.organisation_id, kept);
          continue;
        }
        const resolveKey =
          s.jwks_url !== null ? new RemoteJwks(s.jwks_url, http, now).resolve : localJwks((s.jwks ?? { keys: [] }) as JSONWebKeySet);
        out.set(s.organisation_id, {
          organisationId: s.organisation_id,
          issuer: s.issuer,
          audience: s.audience,
          algorithms: s.algorithms,
          resolveKey,
          fingerprint,
        });
      }
      return out;
    },
  };
}

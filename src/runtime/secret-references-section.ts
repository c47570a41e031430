import type { Store } from '../infra/store/store.js';
import { listActiveSecretReferencesPage, type SecretReference } from '../infra/store/repos/secret-references.js';
import type { SecretBox } from '../foundation/lib/secret-box.js';
import type { Logger } from '../infra/observability/logger.js';
import { openSecretReference } from '../infra/secrets/open-reference.js';
import type { SecretResolver } from '../infra/secrets/secret-resolver.js';
import type { SecretSource } from '../infra/secrets/secret-source.js';
import type { RuntimeSection } from './runtime-section.js';
import { yieldToEventLoop } from './partitioned-map.js';

/** Section of secret references: `SecretReferencesSection` (every active reference, `auth_config` opened). */
export const SECRET_REFERENCES_SECTION = 'secret-references';

export interface SecretReferencesSection {
  byId: ReadonlyMap<string, SecretSource>;
}

/**
 * The secret references the data plane resolves through: loaded whole (they are few), their
 * `auth_config` opened once per load. After each load the resolver forgets removed references and
 * fetches new ones in the background, so requests find values cached (never fetched on the request path).
 */
export function secretReferencesSection(box: SecretBox, resolver: SecretResolver, logger: Logger): RuntimeSection<SecretReferencesSection> {
  return {
    name: SECRET_REFERENCES_SECTION,
    async load(store: Store) {
      const byId = new Map<string, SecretSource>();
      let afterId: string | undefined;
      for (;;) {
        const rows: SecretReference[] = await listActiveSecretReferencesPage(store, { afterId, limit: 500 });
        for (const r of rows) {
          try {
            byId.set(r.id, openSecretReference(box, r));
          } catch (err) {
            logger.warn({ secretReferenceId: r.id, err: (err as Error).message }, 'secret reference auth_config does not open; skipped');
          }
        }
        await yieldToEventLoop();
        if (rows.length < 500) break;
        afterId = rows[rows.length - 1]!.id;
      }
      resolver.retain(new Set(byId.keys()));
      resolver.prefetch(byId.values());
      return { byId };
    },
  };
}

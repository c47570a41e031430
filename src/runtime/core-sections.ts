import type { RuntimePage, Store } from '../infra/store/store.js';
import { listActiveConfigsPage, type StoredConfig } from '../infra/store/repos/configs.js';
import { listActiveVirtualKeysPage, type VirtualKey } from '../infra/store/repos/virtual-keys.js';
import { listActiveIntegrationsPage, type Integration } from '../infra/store/repos/integrations.js';
import { listOrganisations, listWorkspacesPage, type Workspace } from '../infra/store/repos/organisations.js';
import { compileConfig } from '../routing/compile-config.js';
import type { CompiledConfig } from '../routing/compiled-config.js';
import type { ResolvedVirtualKey } from '../routing/resolve-target.js';
import type { Logger } from '../infra/observability/logger.js';
import type { ModelPricing, PricingTerms } from '../infra/pricing/price-config.js';
import { isSealed, type SecretBox } from '../foundation/lib/secret-box.js';
import { openCredentialSettings } from '../foundation/lib/credential-settings.js';
import { openValues } from '../foundation/lib/sealed-values.js';
import { openConfigCredentials } from '../foundation/lib/config-credentials.js';
import type { AuthKey, RequestDefaults } from './snapshot.js';
import { listAuthKeyRowsPage, type AuthKeyRow } from './key-grants.js';
import type { RuntimeSection } from './runtime-section.js';
import { sessionsSection } from './sessions-section.js';
import { PartitionedMapBuilder, replacePartitions, yieldToEventLoop, type PartitionedMap } from './partitioned-map.js';

/** Section of gateway keys: `PartitionedMap<AuthKey>` by key hash (snapshot `apiKeysByHash`); organisation keys form partition `''`. */
export const API_KEYS_SECTION = 'api-keys';
/** Section of workspaces: `WorkspacesSection` (snapshot `workspacesById`, `workspacesBySlug`). */
export const WORKSPACES_SECTION = 'workspaces';
/** Section of stored configs, compiled: `PartitionedMap<CompiledConfig>` (snapshot `configs`). */
export const CONFIGS_SECTION = 'configs';
/** Section of virtual keys: `PartitionedMap<ResolvedVirtualKey>` (snapshot `virtualKeys`). */
export const VIRTUAL_KEYS_SECTION = 'virtual-keys';

/** The workspaces section's value: by id and by `${organisationId}:${slug}`, both partitioned by workspace id. */
export interface WorkspacesSection {
  byId: PartitionedMap<Workspace>;
  bySlug: PartitionedMap<Workspace>;
  /** Each organisation's default workspace (snapshot `defaultWorkspaceByOrganisation`), only when it is one of its own. */
  defaultByOrganisation: ReadonlyMap<string, string>;
}

/** Organisation id → its default workspace, kept only when that workspace belongs to the organisation. */
async function defaultWorkspaces(store: Store, byId: PartitionedMap<Workspace>): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const o of await listOrganisations(store)) {
    const ws = o.default_workspace_id ? byId.all.get(o.default_workspace_id) : undefined;
    if (ws && ws.organisation_id === o.id) out.set(o.id, ws.id);
  }
  return out;
}

/**
 * Rows per query: a SQLite query runs synchronously, so its pages stay small; PostgreSQL's run
 * asynchronously, where fewer round trips matter more.
 */
const PAGE = { sqlite: 250, postgres: 1000 } as const;
/** Rows handled between two yields to the event loop (a new config version is compiled: fewer). */
const SLICE = 250;
const CONFIG_SLICE = 50;
/** Workspace ids per `in (...)` list. */
const WORKSPACES_PER_QUERY = 200;

/**
 * Reads every row `list` returns (restricted to `workspaceIds` when given) page by page, yielding to
 * the event loop between pages, and hands each row to `each`.
 */
async function eachRow<R extends { id: string }>(
  list: (p: RuntimePage) => Promise<R[]>,
  pageSize: number,
  slice: number,
  workspaceIds: readonly string[] | undefined,
  each: (row: R) => void,
): Promise<void> {
  const groups: Array<readonly string[] | undefined> = [];
  if (!workspaceIds) groups.push(undefined);
  else for (let i = 0; i < workspaceIds.length; i += WORKSPACES_PER_QUERY) groups.push(workspaceIds.slice(i, i + WORKSPACES_PER_QUERY));
  for (const group of groups) {
    let afterId: string | undefined;
    for (;;) {
      const rows = await list({ afterId, limit: pageSize, workspaceIds: group });
      for (let i = 0; i < rows.length; i++) {
        each(rows[i]);
        if ((i + 1) % slice === 0) await yieldToEventLoop();
      }
      await yieldToEventLoop();
      if (rows.length < pageSize) break;
      afterId = rows[rows.length - 1].id;
    }
  }
}

/** A section whose value is one PartitionedMap filled row by row, reloadable per workspace. */
function partitionedSection<R extends { id: string }, V>(
  name: string,
  list: (store: Store, p: RuntimePage) => Promise<R[]>,
  slice: number,
  add: (into: PartitionedMapBuilder<V>, row: R, previous: PartitionedMap<V> | undefined) => void,
): RuntimeSection<PartitionedMap<V>> {
  const collect = async (store: Store, previous: PartitionedMap<V> | undefined, workspaceIds?: readonly string[]) => {
    const into = new PartitionedMapBuilder<V>();
    await eachRow(
      (p) => list(store, p),
      PAGE[store.dialect],
      slice,
      workspaceIds,
      (row) => add(into, row, previous),
    );
    return into.build();
  };
  return {
    name,
    load: (store, previous) => collect(store, previous),
    loadWorkspaces: async (store, previous, workspaceIds) =>
      replacePartitions(previous, workspaceIds, await collect(store, previous, workspaceIds)),
  };
}

/** A key's request defaults over its workspace's, field by field (the key's win); undefined when neither has any. */
export function requestDefaultsOf(k: Pick<AuthKeyRow, 'defaults' | 'workspaceDefaults'>): RequestDefaults | undefined {
  const own = k.defaults ?? undefined;
  const ws = k.workspaceDefaults;
  if (!own && !ws) return undefined;
  const configId = own?.config_id ?? ws?.config_id;
  const metadata = own?.metadata || ws?.metadata ? { ...ws?.metadata, ...own?.metadata } : undefined;
  const allow = own?.allow_config_override ?? ws?.allow_config_override;
  return { ...(configId !== undefined ? { configId } : {}), ...(metadata ? { metadata } : {}), allowConfigOverride: allow !== false };
}

function addApiKey(into: PartitionedMapBuilder<AuthKey>, k: AuthKeyRow): void {
  const partition = k.workspace_id ?? '';
  const defaults = requestDefaultsOf(k);
  const auth: AuthKey = {
    id: k.id,
    organisationId: k.organisation_id,
    workspaceId: k.workspace_id,
    type: k.type,
    scopes: k.scopes,
    expiresAt: k.expires_at,
    name: k.name,
    defaults,
    ...(k.grant ? { user: k.grant } : {}),
    ...(k.logBodies ? { logBodies: true } : {}),
  };
  into.add(partition, k.key_hash, auth);
  // After a rotation the previous value stays valid for the transition: at most two values map to the
  // key, and the previous one's expiry is the transition's end, so the auth hook's expiry comparison
  // refuses it from then on without a reload.
  const previous = k.previous_key_hash;
  const until = k.key_transition_expires_at;
  if (previous && until != null && until > Date.now()) {
    into.add(partition, previous, { ...auth, expiresAt: k.expires_at === null ? until : Math.min(until, k.expires_at) });
  }
}

/**
 * A virtual key's credential in plaintext: sealed values are opened with `secrets` (once, when the
 * section loads; the request path never decrypts). Undefined (with a warning naming the key, never the
 * value) when it does not open: sealed under another key, tampered with, or no box to open it.
 */
function openSecret(v: VirtualKey, secrets: SecretBox | undefined, logger: Logger): string | undefined {
  if (!isSealed(v.secret)) return v.secret;
  try {
    if (secrets) return secrets.decrypt(v.secret, v.id);
    logger.warn({ virtualKeyId: v.id }, 'virtual key secret is sealed and no secret box is configured; key skipped');
  } catch (err) {
    logger.warn({ virtualKeyId: v.id, err: (err as Error).message }, 'virtual key secret does not open; key skipped');
  }
  return undefined;
}

/** A provider with its own secret and config. */
function resolveOwn(v: VirtualKey, secrets: SecretBox | undefined, logger: Logger): ResolvedVirtualKey | undefined {
  const secret = openSecret(v, secrets, logger);
  if (secret === undefined) return undefined;
  if (!secrets) return { provider: v.provider, secret, config: v.config };
  try {
    return { provider: v.provider, secret, config: openCredentialSettings(secrets, `${v.id}:config`, v.config) };
  } catch (err) {
    logger.warn({ virtualKeyId: v.id, err: (err as Error).message }, 'virtual key config credentials do not open; key skipped');
    return undefined;
  }
}

/** The integration's pricing terms (multiplier, per-model overrides and base models), when it has any. */
function pricingTermsOf(i: Integration): { pricing?: PricingTerms } {
  const models = new Map<string, ModelPricing>();
  for (const m of i.models ?? []) {
    if (!m.pricing_config && !m.base_model_slug) continue;
    models.set(m.slug, {
      ...(m.pricing_config ? { override: m.pricing_config } : {}),
      ...(m.base_model_slug ? { baseModel: m.base_model_slug } : {}),
    });
  }
  if (!i.pricing_adjustments && models.size === 0) return {};
  return {
    pricing: { ...(i.pricing_adjustments ? { multiplier: i.pricing_adjustments.multiplier } : {}), ...(models.size ? { models } : {}) },
  };
}

/**
 * A provider using an integration: the integration's provider, key and settings (its own config wins),
 * its model list and price multiplier. Undefined — the provider is not usable — when the integration is
 * archived, is another workspace's, is an organisation integration not shared with the provider's
 * workspace, or its sealed values do not open.
 */
function resolveThroughIntegration(
  v: VirtualKey,
  i: Integration | undefined,
  secrets: SecretBox | undefined,
  logger: Logger,
): ResolvedVirtualKey | undefined {
  if (!i) return undefined;
  if (i.workspace_id === null ? !i.workspaces.includes(v.workspace_id) : i.workspace_id !== v.workspace_id) return undefined;
  let secret = '';
  let sealedSettings: Record<string, unknown> = {};
  try {
    if (i.key_ciphertext) secret = secrets ? secrets.decrypt(i.key_ciphertext, i.id) : '';
    if (secrets) sealedSettings = openValues(secrets, `${i.id}:configurations`, i.secret_configurations);
  } catch (err) {
    logger.warn({ integrationId: i.id, err: (err as Error).message }, 'integration credentials do not open; its providers skipped');
    return undefined;
  }
  const models = i.models
    ? {
        allowAll: i.allow_all_models,
        enabled: new Set(i.models.filter((m) => m.enabled).map((m) => m.slug)),
        hosts: new Map(i.models.filter((m) => m.configurations?.custom_host).map((m) => [m.slug, m.configurations!.custom_host])),
      }
    : undefined;
  return {
    provider: i.ai_provider_id,
    secret,
    config: { ...i.configurations, ...sealedSettings, ...v.config },
    integrationId: i.id,
    ...(models ? { models } : {}),
    ...pricingTermsOf(i),
    ...(i.secret_mappings.length
      ? {
          secretMappings: i.secret_mappings.map((m) => ({
            target: m.target_field,
            refId: m.secret_reference_id,
            format: m.value_format ?? 'string',
            ...(m.secret_key ? { secretKey: m.secret_key } : {}),
          })),
        }
      : {}),
  };
}

/**
 * The core's sections: gateway keys, workspaces, compiled stored configs, virtual keys (each loaded in
 * pages and reloadable per workspace) and live console sessions (`sessions-section.ts`, reloaded whole).
 * Stored configs are compiled once per version; one that no longer compiles is skipped with a warning.
 * Virtual-key secrets and stored configs' credentials are opened with `secrets` as they load.
 */
export function coreSections(logger: Logger, secrets?: SecretBox): RuntimeSection[] {
  const apiKeys = partitionedSection(API_KEYS_SECTION, listAuthKeyRowsPage, SLICE, addApiKey);
  // A stored config's body never changes for one version: a reload reuses what it compiled before.
  const compiledVersion = new WeakMap<CompiledConfig, number>();
  const configs = partitionedSection<StoredConfig, CompiledConfig>(
    CONFIGS_SECTION,
    listActiveConfigsPage,
    CONFIG_SLICE,
    (into, c, previous) => {
      const prior = previous?.all.get(`${c.workspace_id}:${c.id}`);
      let cc = prior && compiledVersion.get(prior) === c.version ? prior : undefined;
      if (!cc) {
        try {
          // Credentials are opened here, once per version: the request path reads them from the snapshot.
          cc = compileConfig((secrets ? openConfigCredentials(secrets, c.id, c.config) : c.config) as never, { id: c.id });
          compiledVersion.set(cc, c.version);
        } catch (err) {
          logger.warn({ err, configId: c.id }, 'stored config no longer compiles; skipped');
          return;
        }
      }
      into.add(c.workspace_id, `${c.workspace_id}:${c.id}`, cc);
      into.add(c.workspace_id, `${c.workspace_id}:${c.slug}`, cc);
    },
  );
  // Providers using an integration read its key and settings: the integrations are loaded first, on every
  // load of this section (an integration write publishes this section).
  let integrations = new Map<string, Integration>();
  const providers = partitionedSection<VirtualKey, ResolvedVirtualKey>(
    VIRTUAL_KEYS_SECTION,
    listActiveVirtualKeysPage,
    SLICE,
    (into, v) => {
      const r = v.integration_id
        ? resolveThroughIntegration(v, integrations.get(v.integration_id), secrets, logger)
        : resolveOwn(v, secrets, logger);
      if (!r) return;
      into.add(v.workspace_id, `${v.workspace_id}:${v.id}`, r);
      into.add(v.workspace_id, `${v.workspace_id}:${v.slug}`, r);
    },
  );
  const withIntegrations = async <T>(store: Store, load: () => Promise<T>): Promise<T> => {
    const loaded = new Map<string, Integration>();
    await eachRow(
      (p) => listActiveIntegrationsPage(store, p),
      PAGE[store.dialect],
      SLICE,
      undefined,
      (i) => loaded.set(i.id, i),
    );
    integrations = loaded;
    return load();
  };
  const virtualKeys: RuntimeSection<PartitionedMap<ResolvedVirtualKey>> = {
    name: VIRTUAL_KEYS_SECTION,
    load: (store, previous) => withIntegrations(store, () => providers.load(store, previous)),
    loadWorkspaces: (store, previous, ids) => withIntegrations(store, () => providers.loadWorkspaces!(store, previous, ids)),
  };
  const collectWorkspaces = async (store: Store, ids?: readonly string[]): Promise<WorkspacesSection> => {
    const byId = new PartitionedMapBuilder<Workspace>();
    const bySlug = new PartitionedMapBuilder<Workspace>();
    await eachRow(
      (p) => listWorkspacesPage(store, p),
      PAGE[store.dialect],
      SLICE,
      ids,
      (w) => {
        byId.add(w.id, w.id, w);
        bySlug.add(w.id, `${w.organisation_id}:${w.slug}`, w);
      },
    );
    const built = byId.build();
    return { byId: built, bySlug: bySlug.build(), defaultByOrganisation: await defaultWorkspaces(store, built) };
  };
  const workspaces: RuntimeSection<WorkspacesSection> = {
    name: WORKSPACES_SECTION,
    load: (store) => collectWorkspaces(store),
    async loadWorkspaces(store, previous, ids) {
      const fresh = await collectWorkspaces(store, ids);
      const byId = await replacePartitions(previous.byId, ids, fresh.byId);
      return {
        byId,
        bySlug: await replacePartitions(previous.bySlug, ids, fresh.bySlug),
        defaultByOrganisation: await defaultWorkspaces(store, byId),
      };
    },
  };
  return [apiKeys, workspaces, configs, virtualKeys, sessionsSection] as RuntimeSection[];
}

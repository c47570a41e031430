import type { Store } from '../store/store.js';
import { bumpRuntimeVersion, readRuntimeVersion } from '../store/store.js';
import type { PubSub } from '../state/pubsub.js';
import type { Logger } from '../observability/logger.js';
import { listActiveApiKeys } from '../store/repos/api-keys.js';
import { listActiveConfigs } from '../store/repos/configs.js';
import { listActiveVirtualKeys } from '../store/repos/virtual-keys.js';
import { listOrganisations, listWorkspaces } from '../store/repos/organisations.js';
import { compileConfig } from '../routing/compile-config.js';
import type { CompiledConfig } from '../routing/compiled-config.js';
import type { ResolvedVirtualKey } from '../routing/resolve-target.js';
import type { AuthKey, RuntimeSnapshot } from './snapshot.js';
import type { RuntimeChange } from './runtime-change.js';
import type { Workspace } from '../store/repos/organisations.js';

/** A capability's contribution to the snapshot: loaded from the store on every rebuild. */
export interface RuntimeSection<T = unknown> {
  name: string;
  load(store: Store): Promise<T>;
}

const CHANNEL = 'runtime-changed';

/**
 * Holds the current RuntimeSnapshot and rebuilds it when the control plane changes: at once on this
 * replica after a write, through pub/sub on the others, and by polling the store's runtime version
 * every `pollMs` as a backstop (replicas sharing a database without Redis still converge in ~1 s).
 */
export class Runtime {
  private snapshot?: RuntimeSnapshot;
  private readonly sections: RuntimeSection[] = [];
  private reloading?: Promise<void>;
  private again = false;
  private poller?: NodeJS.Timeout;

  constructor(
    private readonly store: Store,
    private readonly pubsub: PubSub,
    private readonly logger: Logger,
    private readonly defaults: { organisationId: string; workspaceId: string },
    private readonly pollMs = 1000,
  ) {}

  /** Adds a capability's section (before `start`). */
  register(section: RuntimeSection): void {
    this.sections.push(section);
  }

  get current(): RuntimeSnapshot {
    if (!this.snapshot) throw new Error('runtime not started');
    return this.snapshot;
  }

  async start(): Promise<void> {
    await this.reload();
    await this.pubsub.subscribe(CHANNEL, () => void this.reload());
    this.poller = setInterval(() => void this.pollVersion(), this.pollMs);
    this.poller.unref();
  }

  stop(): void {
    if (this.poller) clearInterval(this.poller);
  }

  /**
   * Call after a control-plane write that did not record its change in its own transaction: bumps the
   * version, rebuilds here, tells the other replicas. Without `changes`, everything is reloaded.
   */
  async changed(changes?: readonly RuntimeChange[]): Promise<void> {
    await bumpRuntimeVersion(this.store);
    await this.committed(changes);
  }

  /**
   * Call after the commit of a write that recorded its changes with `recordRuntimeChange` in its
   * transaction: rebuilds here and tells the other replicas.
   */
  async committed(changes?: readonly RuntimeChange[]): Promise<void> {
    void changes;
    await this.reload();
    await this.pubsub.publish(CHANNEL, String(this.snapshot?.version ?? 0)).catch((err) => this.logger.warn({ err }, 'runtime change not published'));
  }

  /** Rebuilds the snapshot; concurrent calls coalesce into at most one more rebuild. */
  async reload(): Promise<void> {
    if (this.reloading) {
      this.again = true;
      return this.reloading;
    }
    this.reloading = (async () => {
      do {
        this.again = false;
        try {
          this.snapshot = await this.build();
        } catch (err) {
          this.logger.error({ err }, 'runtime snapshot rebuild failed; keeping the previous one');
          if (!this.snapshot) throw err;
        }
      } while (this.again);
    })();
    try {
      await this.reloading;
    } finally {
      this.reloading = undefined;
    }
  }

  private async pollVersion(): Promise<void> {
    try {
      const v = await readRuntimeVersion(this.store);
      if (this.snapshot && v !== this.snapshot.version) await this.reload();
    } catch (err) {
      this.logger.warn({ err }, 'runtime version poll failed');
    }
  }

  private async build(): Promise<RuntimeSnapshot> {
    const version = await readRuntimeVersion(this.store);
    const [keys, organisations, workspaces, configs, vks, sectionValues] = await Promise.all([
      listActiveApiKeys(this.store),
      listOrganisations(this.store),
      listWorkspaces(this.store),
      listActiveConfigs(this.store),
      listActiveVirtualKeys(this.store),
      Promise.all(this.sections.map(async (s) => [s.name, await s.load(this.store)] as const)),
    ]);
    const apiKeysByHash = new Map<string, AuthKey>();
    for (const k of keys) {
      const auth: AuthKey = { id: k.id, organisationId: k.organisation_id, workspaceId: k.workspace_id, type: k.type, scopes: k.scopes, expiresAt: k.expires_at, name: k.name };
      apiKeysByHash.set(k.key_hash, auth);
      // After a rotation the previous value stays valid for the transition period.
      const previous = k.metadata.previous_key_hash;
      const until = Number(k.metadata.previous_key_valid_until);
      if (typeof previous === 'string' && until > Date.now()) {
        apiKeysByHash.set(previous, { ...auth, expiresAt: k.expires_at === null ? until : Math.min(until, k.expires_at) });
      }
    }
    const workspacesById = new Map<string, Workspace>();
    const workspacesBySlug = new Map<string, Workspace>();
    for (const w of workspaces) {
      workspacesById.set(w.id, w);
      workspacesBySlug.set(`${w.organisation_id}:${w.slug}`, w);
    }
    const defaultWorkspaceByOrganisation = new Map<string, string>();
    for (const o of organisations) {
      // Only a workspace of the organisation itself can be its default.
      const ws = o.default_workspace_id ? workspacesById.get(o.default_workspace_id) : undefined;
      if (ws && ws.organisation_id === o.id) defaultWorkspaceByOrganisation.set(o.id, ws.id);
    }
    const compiled = new Map<string, CompiledConfig>();
    for (const c of configs) {
      try {
        const cc = compileConfig(c.config as never, { id: c.id });
        compiled.set(`${c.workspace_id}:${c.id}`, cc);
        compiled.set(`${c.workspace_id}:${c.slug}`, cc);
      } catch (err) {
        this.logger.warn({ err, configId: c.id }, 'stored config no longer compiles; skipped');
      }
    }
    const virtualKeys = new Map<string, ResolvedVirtualKey>();
    for (const v of vks) {
      const r: ResolvedVirtualKey = { provider: v.provider, secret: v.secret, config: v.config };
      virtualKeys.set(`${v.workspace_id}:${v.id}`, r);
      virtualKeys.set(`${v.workspace_id}:${v.slug}`, r);
    }
    return {
      version,
      apiKeysByHash,
      workspacesById,
      workspacesBySlug,
      configs: compiled,
      virtualKeys,
      defaultWorkspaceByOrganisation,
      defaultOrganisationId: this.defaults.organisationId,
      defaultWorkspaceId: this.defaults.workspaceId,
      sections: new Map(sectionValues),
    };
  }
}

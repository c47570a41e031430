import type { Store } from '../infra/store/store.js';
import { readRuntimeChanges, readRuntimeVersion, recordRuntimeChange } from '../infra/store/store.js';
import type { PubSub } from '../infra/state/pubsub.js';
import type { Logger } from '../infra/observability/logger.js';
import type { SecretBox } from '../foundation/lib/secret-box.js';
import type { CompiledConfig } from '../routing/compiled-config.js';
import type { ResolvedVirtualKey } from '../routing/resolve-target.js';
import type { AuthKey, RuntimeSnapshot } from './snapshot.js';
import type { RuntimeChange } from '../kernel/runtime-change.js';
import type { RuntimeSection } from './runtime-section.js';
import type { PartitionedMap } from './partitioned-map.js';
import { yieldToEventLoop } from './partitioned-map.js';
import {
  API_KEYS_SECTION,
  CONFIGS_SECTION,
  VIRTUAL_KEYS_SECTION,
  WORKSPACES_SECTION,
  coreSections,
  type WorkspacesSection,
} from './core-sections.js';
import { ReloadPlan, coversEveryVersion } from './reload-plan.js';

export type { RuntimeSection } from './runtime-section.js';

const CHANNEL = 'runtime-changed';

/**
 * Holds the current RuntimeSnapshot and keeps it up to date with the control plane, section by
 * section: after a write on this replica (`committed`/`changed`), on a pub/sub message from another
 * replica, and by polling the store's runtime version every `pollMs` (default 0.5 s) as a backstop (replicas sharing
 * a database without Redis converge within a second). A replica behind reads the outbox rows of the
 * versions it missed and reloads only the sections and workspaces they name; when the rows are gone
 * (pruned) or a partial reload fails, it reloads everything; when that fails too, it keeps the last
 * good snapshot and tries again at the next poll. Reloads run one at a time, load in pages yielding to
 * the event loop, build new section values aside and swap the whole snapshot in one assignment.
 */
export class Runtime {
  private snapshot?: RuntimeSnapshot;
  private readonly sections = new Map<string, RuntimeSection>();
  private queued?: { plan: ReloadPlan; waiters: Array<{ resolve(): void; reject(err: unknown): void }> };
  private running?: Promise<void>;
  private poller?: NodeJS.Timeout;

  constructor(
    private readonly store: Store,
    private readonly pubsub: PubSub,
    private readonly logger: Logger,
    private readonly defaults: { organisationId: string; workspaceId: string },
    private readonly pollMs = 500,
    secrets?: SecretBox,
  ) {
    for (const s of coreSections(logger, secrets)) this.register(s);
  }

  /** Adds a capability's section (before `start`); names are unique. */
  register(section: RuntimeSection): void {
    if (this.sections.has(section.name)) throw new Error(`runtime section ${section.name} registered twice`);
    this.sections.set(section.name, section);
  }

  /** The snapshot the request path reads; replaced whole, never changed in place. */
  get current(): RuntimeSnapshot {
    if (!this.snapshot) throw new Error('runtime not started');
    return this.snapshot;
  }

  /** Whether the first snapshot has been loaded (`start` done). */
  get loaded(): boolean {
    return this.snapshot !== undefined;
  }

  /** Loads every section (throws when that fails), then follows changes from pub/sub and the version poll. */
  async start(): Promise<void> {
    await this.schedule(undefined);
    await this.pubsub.subscribe(CHANNEL, (message) => {
      const version = Number(message);
      if (!this.snapshot || !(version <= this.snapshot.version)) void this.schedule([]);
    });
    this.poller = setInterval(() => void this.pollVersion(), this.pollMs);
    this.poller.unref();
  }

  stop(): void {
    if (this.poller) clearInterval(this.poller);
  }

  /**
   * For a control-plane write without a transaction of its own: records the changes (bumping the
   * version), then as `committed`. Without `changes`, every section is reloaded.
   */
  async changed(changes?: readonly RuntimeChange[]): Promise<void> {
    await recordRuntimeChange(this.store.db, changes ?? []);
    await this.committed(changes);
  }

  /**
   * Call after the commit of a write that recorded its changes with `recordRuntimeChange` in its
   * transaction: reloads those sections (only those workspaces' parts when given) here, along with any
   * other replica's change not applied yet, then tells the other replicas. Without `changes`, every
   * section is reloaded. Never throws for a failed reload (the last good snapshot stays).
   */
  async committed(changes?: readonly RuntimeChange[]): Promise<void> {
    await this.schedule(changes);
    await this.pubsub
      .publish(CHANNEL, String(this.snapshot?.version ?? 0))
      .catch((err) => this.logger.warn({ err }, 'runtime change not published'));
  }

  /**
   * Catches up with changes other replicas committed (one version read; the sections they name are
   * reloaded). Concurrent calls share one reload, so callers on the request path (a session cookie
   * this replica has not loaded yet) cost at most one query in flight, however many there are.
   */
  catchUp(): Promise<void> {
    return this.schedule([]);
  }

  /** Reloads every section. */
  async reload(): Promise<void> {
    await this.schedule(undefined);
  }

  /**
   * Queues `changes` (undefined: everything; []: only catch up with the outbox) for the next reload,
   * started now unless one is running; resolves when a reload that includes them has finished.
   */
  private schedule(changes: readonly RuntimeChange[] | undefined): Promise<void> {
    this.queued ??= { plan: new ReloadPlan(), waiters: [] };
    this.queued.plan.addAll(changes);
    const queued = this.queued;
    const done = new Promise<void>((resolve, reject) => queued.waiters.push({ resolve, reject }));
    this.running ??= this.drain();
    return done;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queued) {
        const { plan, waiters } = this.queued;
        this.queued = undefined;
        try {
          await this.reloadPlan(plan);
          for (const w of waiters) w.resolve();
        } catch (err) {
          for (const w of waiters) w.reject(err);
        }
      }
    } finally {
      this.running = undefined;
    }
  }

  private async pollVersion(): Promise<void> {
    try {
      const v = await readRuntimeVersion(this.store);
      if (this.snapshot && v !== this.snapshot.version) await this.schedule([]);
    } catch (err) {
      this.logger.warn({ err }, 'runtime version poll failed');
    }
  }

  /**
   * One reload: adds the outbox rows since this snapshot's version to `plan`, loads, swaps. A failure
   * (store unreachable, section failing even in a full reload) keeps the last good snapshot; it throws
   * only when there is none yet (at start).
   */
  private async reloadPlan(plan: ReloadPlan): Promise<void> {
    const previous = this.snapshot;
    try {
      await this.applyPlan(plan, previous);
    } catch (err) {
      if (!previous) throw err;
      this.logger.error({ err }, 'runtime snapshot reload failed; keeping the previous one');
    }
  }

  private async applyPlan(plan: ReloadPlan, previous: RuntimeSnapshot | undefined): Promise<void> {
    const started = performance.now();
    const version = await readRuntimeVersion(this.store);
    if (!previous || version < previous.version) plan.everything = true;
    else if (!plan.everything && version > previous.version) {
      const rows = await readRuntimeChanges(this.store, previous.version, version);
      if (coversEveryVersion(rows, previous.version, version)) for (const r of rows) plan.add(r.section, r.workspaceId);
      else {
        this.logger.info(
          { from: previous.version, to: version },
          'runtime change outbox no longer covers the versions missed; reloading everything',
        );
        plan.everything = true;
      }
    }
    if (previous && plan.empty && version === previous.version) return;
    let values: Map<string, unknown>;
    if (plan.everything || !previous) values = await this.loadEverything(previous);
    else {
      try {
        values = await this.loadPart(previous, plan);
      } catch (err) {
        this.logger.warn({ err }, 'runtime section reload failed; reloading everything');
        values = await this.loadEverything(previous);
      }
    }
    this.snapshot = this.assemble(Math.max(version, previous?.version ?? 0), values);
    const sections = plan.everything ? '*' : [...plan.sections].map(([s, ws]) => (ws ? `${s}(${ws.size} workspaces)` : s)).join(',');
    this.logger.debug(
      { version: this.snapshot.version, sections, ms: Math.round(performance.now() - started) },
      'runtime snapshot reloaded',
    );
  }

  private async loadEverything(previous: RuntimeSnapshot | undefined): Promise<Map<string, unknown>> {
    const values = new Map<string, unknown>();
    for (const section of this.sections.values()) {
      values.set(section.name, await section.load(this.store, previous?.sections.get(section.name)));
      await yieldToEventLoop();
    }
    return values;
  }

  private async loadPart(previous: RuntimeSnapshot, plan: ReloadPlan): Promise<Map<string, unknown>> {
    const values = new Map(previous.sections);
    for (const [name, workspaceIds] of plan.sections) {
      const section = this.sections.get(name);
      // A change of a section this gateway does not hold (its capability is not loaded) needs nothing.
      if (!section) continue;
      const value =
        workspaceIds && section.loadWorkspaces && values.has(name)
          ? await section.loadWorkspaces(this.store, values.get(name), [...workspaceIds])
          : await section.load(this.store, values.get(name));
      values.set(name, value);
      await yieldToEventLoop();
    }
    return values;
  }

  private assemble(version: number, values: Map<string, unknown>): RuntimeSnapshot {
    const workspaces = values.get(WORKSPACES_SECTION) as WorkspacesSection;
    return {
      version,
      apiKeysByHash: (values.get(API_KEYS_SECTION) as PartitionedMap<AuthKey>).all,
      workspacesById: workspaces.byId.all,
      workspacesBySlug: workspaces.bySlug.all,
      defaultWorkspaceByOrganisation: workspaces.defaultByOrganisation,
      configs: (values.get(CONFIGS_SECTION) as PartitionedMap<CompiledConfig>).all,
      virtualKeys: (values.get(VIRTUAL_KEYS_SECTION) as PartitionedMap<ResolvedVirtualKey>).all,
      defaultOrganisationId: this.defaults.organisationId,
      defaultWorkspaceId: this.defaults.workspaceId,
      sections: values,
    };
  }
}

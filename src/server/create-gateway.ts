import type { FastifyInstance } from 'fastify';
import type { Store } from '../infra/store/store.js';
import { openStoreWhenReachable } from '../infra/store/open-store-when-reachable.js';
import { StartupError } from '../foundation/lib/startup-error.js';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { PRIVATE_DIR_MODE } from '../foundation/lib/private-files.js';
import { sqlitePath, type Settings } from '../data-plane/pipeline/settings.js';
import { memoryState, redisState, type SharedState } from '../infra/state/shared-state.js';
import { waitForRedis } from '../infra/state/redis-ready.js';
import { Runtime } from '../runtime/runtime.js';
import { Router } from '../routing/execute.js';
import { InlineConfigCache } from '../routing/config-cache.js';
import { CircuitBreaker } from '../routing/circuit-breaker.js';
import { CustomHostGuard } from '../routing/custom-host-guard.js';
import type { TargetResolverDeps } from '../routing/resolve-target.js';
import { fixedProviderOrigins, getProvider } from '../providers/registry.js';
import { HttpClient } from '../foundation/lib/http-client.js';
import { OutboundPolicy, type Resolver } from '../foundation/lib/outbound-policy.js';
import { systemClock, type Clock } from '../foundation/lib/clock.js';
import { createLogger, type Logger } from '../infra/observability/logger.js';
import { Metrics } from '../infra/observability/metrics.js';
import { RequestLogWriter } from '../infra/observability/request-log.js';
import { insertRequestLogs } from '../infra/store/repos/request-logs.js';
import { bootstrap, type FirstStart } from './bootstrap.js';
import { buildApp } from './app.js';
import type { GatewayDeps } from '../data-plane/pipeline/deps.js';
import type { Capability, CapabilityParts, CoreDeps } from '../data-plane/pipeline/capability.js';
import { CAPABILITIES } from './capabilities.js';
import { loadSecretBox } from '../foundation/lib/secret-box.js';
import { readFileSync } from 'node:fs';
import { SecretResolver, secretUnavailable } from '../infra/secrets/secret-resolver.js';
import { SECRET_REFERENCES_SECTION, secretReferencesSection, type SecretReferencesSection } from '../runtime/secret-references-section.js';
import { sectionOf } from '../runtime/snapshot.js';
import { sealStoredSecrets } from '../infra/store/seal-stored-secrets.js';
import { Scheduler } from '../foundation/lib/scheduler.js';
import { logRetentionJob } from '../infra/observability/log-retention.js';
import { rollupBackfillJob } from '../infra/observability/rollup-backfill.js';
import { loadTracing } from '../infra/observability/load-tracing.js';
import { KeyUsage } from '../control-plane/resources/api-keys/key-usage.js';
import { scheduledRotationJob } from '../control-plane/resources/api-keys/scheduled-rotation.js';
import { pruneSessionsJob } from '../control-plane/identity/prune-sessions.js';

/** A built gateway: the app plus a `close` that drains and releases everything. */
export interface Gateway {
  app: FastifyInstance;
  deps: GatewayDeps;
  /** Background jobs (scheduled key rotations, last-use flushes); `runAll` runs each once now. */
  scheduler: Scheduler;
  /** What this start made on an empty store and must show once (the composition root prints it); absent on later starts. */
  firstStart?: FirstStart;
  /** Stops accepting, drains in-flight requests and streams, flushes logs, closes store and Redis. */
  close(): Promise<void>;
}

export interface GatewayOptions {
  clock?: Clock;
  logger?: Logger;
  capabilities?: Capability[];
  /** DNS resolution of outbound calls, for the address checks and the connections (default: the system resolver). */
  resolve?: Resolver;
}

/** The composition root: opens the store and shared state, bootstraps, builds the runtime, router and app. */
export async function createGateway(settings: Settings, opts: GatewayOptions = {}): Promise<Gateway> {
  const logger = opts.logger ?? createLogger(settings.logLevel);
  const clock = opts.clock ?? systemClock;
  const metrics = new Metrics(settings.eventLoopMonitorMs);
  // Before anything is opened: an unwritable data directory, a missing or malformed GATEWAY_ENCRYPTION_KEY stop the start with their reason (exit 2).
  assertWritableDataDir(settings.dataDir);
  const secrets = startupCheck(() =>
    loadSecretBox({ configured: settings.encryptionKey, dataDir: settings.dataDir, shared: settings.databaseUrl !== undefined }),
  );
  const onConnectionError = (err: Error) => {
    metrics.warnings.inc({ component: 'store' });
    logger.warn({ err: err.message }, 'store connection lost; the pool reconnects on the next query');
  };
  let tenant: { organisationId: string; workspaceId: string } | undefined;
  let firstStart: FirstStart | undefined;
  const store: Store = await openStoreWhenReachable(
    settings.databaseUrl
      ? { kind: 'postgres', url: settings.databaseUrl, schema: settings.databaseSchema, onConnectionError }
      : { kind: 'sqlite', path: sqlitePath(settings) },
    {
      // Under the migration lock: replicas started together on an empty database bootstrap one at a time.
      async afterMigrations(opened) {
        // Credentials an older gateway stored in plaintext are sealed before anything reads them.
        const sealed = await sealStoredSecrets(opened, secrets);
        if (sealed > 0) logger.info({ sealed }, 'stored credentials sealed at rest');
        const booted = await bootstrap(opened, settings, logger, clock.now());
        tenant = { organisationId: booted.organisationId, workspaceId: booted.workspaceId };
        firstStart = booted.firstStart;
      },
      onLockWait: (waitedMs) => logger.info({ waitedMs }, 'waiting for migration lock'),
      onApplied: (migrations) => logger.info({ migrations }, 'store migrations applied'),
    },
    {
      waitMs: settings.storeWaitMs,
      onUnreachable: (err, attempt, retryInMs) =>
        logger.warn({ err: err.message || String(err), attempt, retryInMs }, 'store unreachable; retrying'),
    },
  );
  // ioredis is loaded only when Redis is configured (an embedded gateway never pays for it).
  const state: SharedState = settings.redisUrl
    ? redisState((await import('../infra/state/redis.js')).openRedis(settings.redisUrl), settings.redisPrefix)
    : memoryState();
  // Commands fail fast while Redis is not connected (no offline queue): let the connection come up before capabilities use it.
  // Unreachable, the gateway starts degraded (docs/deployment.md): every start-up use of Redis tolerates it, and the connection retries.
  const redis = state.redis;
  if (redis) {
    await waitForRedis(redis).catch((err: Error) => {
      logger.warn(
        { err: err.message },
        'Redis not ready at startup; starting degraded (limits fail open, shared state per replica) until it connects',
      );
      redis.once('ready', () => logger.info('Redis connected; shared state resumed'));
    });
  }
  if (!tenant) throw new Error('bootstrap did not run');
  const http = new HttpClient({
    connectTimeoutMs: settings.upstreamConnectTimeoutMs,
    headersTimeoutMs: settings.upstreamHeadersTimeoutMs,
    bodyTimeoutMs: settings.upstreamBodyTimeoutMs,
    outbound: new OutboundPolicy({ trusted: settings.trustedCustomHosts, resolve: opts.resolve }),
    fixedOrigins: fixedProviderOrigins(),
  });
  const runtime = new Runtime(store, state.pubsub, logger, tenant, settings.runtimePollMs, secrets);
  const hostGuard = new CustomHostGuard(http.outbound);
  const secretResolver = new SecretResolver({
    context: {
      lookup: http.outbound.lookup,
      checkUrl: (url) => hostGuard.check(url),
      ca: settings.secretManagerCaFile ? readFileSync(settings.secretManagerCaFile, 'utf8') : undefined,
      timeoutMs: settings.upstreamConnectTimeoutMs,
    },
    ttlMs: settings.secretCacheTtlMs,
    now: () => clock.now(),
    logger,
  });
  runtime.register(secretReferencesSection(secrets, secretResolver, logger));
  const secretSource = (refId: string) => sectionOf<SecretReferencesSection>(runtime.current, SECRET_REFERENCES_SECTION)?.byId.get(refId);
  const targets: TargetResolverDeps = {
    getProvider,
    getVirtualKey: (idOrSlug, workspaceId) => runtime.current.virtualKeys.get(`${workspaceId}:${idOrSlug}`),
    secretValue(refId, workspaceId) {
      const source = secretSource(refId);
      if (!source || (!source.allowAllWorkspaces && !source.allowedWorkspaces.includes(workspaceId)))
        throw secretUnavailable({ id: refId, name: refId }, 'the reference does not exist or is not shared with this workspace');
      const value = secretResolver.peek(source);
      if (value === undefined)
        throw secretUnavailable(source, secretResolver.lastError(refId) ?? 'its value has not been fetched yet; try again shortly');
      return value;
    },
  };
  const core: CoreDeps = { settings, store, state, runtime, http, clock, logger, metrics, targets, secrets };
  const parts: CapabilityParts[] = [];
  for (const cap of opts.capabilities ?? CAPABILITIES) parts.push(await cap.create(core));
  for (const p of parts) for (const s of p.sections ?? []) runtime.register(s);
  await runtime.start();
  const degraded = (component: string) => (err: unknown) => {
    metrics.warnings.inc({ component });
    logger.warn({ err: (err as Error)?.message }, `${component} degraded`);
  };
  const router = new Router({
    ...targets,
    http,
    clock,
    circuits: new CircuitBreaker(state.circuits, () => clock.now(), degraded('circuit-state')),
    hostGuard,
    async refreshSecrets(refIds) {
      for (const id of refIds) {
        const source = secretSource(id);
        if (source) await secretResolver.resolve(source, { fresh: true }).catch(() => undefined);
      }
    },
    interceptors: parts.flatMap((p) => p.interceptors ?? []),
    retryBaseMs: settings.retryBaseMs,
    observeUpstream: (provider, status, seconds) => metrics.observeUpstream(provider, status, seconds),
  });
  const keyUsage = new KeyUsage();
  const deps: GatewayDeps = {
    settings,
    store,
    state,
    runtime,
    router,
    targets,
    configs: new InlineConfigCache((name) => getProvider(name) !== undefined),
    http,
    clock,
    logger,
    metrics,
    logs: new RequestLogWriter(
      (rows) => insertRequestLogs(store, rows),
      logger,
      { flushMs: settings.requestLogFlushMs },
      (rows) => metrics.requestLogDropped.inc(rows),
    ),
    hooks: parts.flatMap((p) => p.hooks ?? []),
    lifecycle: { closing: false },
    publicPaths: parts.flatMap((p) => p.publicPaths ?? []),
    optionalAuthPaths: parts.flatMap((p) => p.optionalAuthPaths ?? []),
    secrets,
    keyUsage,
    secretResolver,
    tracing: await loadTracing(settings.tracing),
  };
  const app = await buildApp(deps);
  for (const p of parts) p.routes?.(app, deps);
  for (const p of parts) await p.start?.(deps);
  const scheduler = new Scheduler((job, err) => logger.warn({ err: (err as Error)?.message, job }, 'scheduled job failed'));
  const now = () => clock.now();
  scheduler.add(scheduledRotationJob({ store, runtime, secrets, apiKeyPrefix: settings.apiKeyPrefix, now }, settings.schedulerIntervalMs));
  const lastUsed = keyUsage.job(store, now, Math.min(settings.keyLastUsedFlushMs, settings.schedulerIntervalMs));
  scheduler.add(lastUsed);
  scheduler.add(pruneSessionsJob(store.db, now, settings.schedulerIntervalMs));
  if (settings.logRetentionDays > 0) scheduler.add(logRetentionJob(store, settings.logRetentionDays, now, settings.schedulerIntervalMs));
  const backfill = rollupBackfillJob(store, settings.schedulerIntervalMs);
  scheduler.add(backfill);
  scheduler.start();
  void scheduler.runNow(backfill);
  let closed = false;
  return {
    app,
    deps,
    scheduler,
    ...(firstStart ? { firstStart } : {}),
    async close() {
      if (closed) return;
      closed = true;
      deps.lifecycle.closing = true;
      await app.close();
      for (const p of parts) await p.close?.();
      await scheduler.stop();
      await scheduler.runNow(lastUsed);
      runtime.stop();
      await deps.logs.flush();
      await deps.tracing?.shutdown();
      if (deps.logs.backlog > 0)
        logger.warn({ rows: deps.logs.backlog }, 'request log rows not written at shutdown: the store is unreachable');
      await http.close();
      await state.close();
      await store.close();
    },
  };
}

/** A setting or key check that throws: its message becomes a start-up fault with exit code 2. */
function startupCheck<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw new StartupError((err as Error).message, 2);
  }
}

/** GATEWAY_DATA_DIR exists (created 0700 when missing) and is writable, or the start stops with exit code 2. */
function assertWritableDataDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    accessSync(dir, constants.W_OK);
  } catch (err) {
    throw new StartupError(`GATEWAY_DATA_DIR ${dir} is not writable: ${(err as Error).message}`, 2);
  }
}

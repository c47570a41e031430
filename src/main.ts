import { disablePretenuring } from './server/v8-heap-settings.js';

// V8 settings that must hold before the gateway's modules are even loaded (v8-heap-settings.ts): the
// rest is imported from `main()`, after this has run.
disablePretenuring();

/**
 * Composition root: read the environment, build the gateway, listen, and drain on SIGTERM/SIGINT
 * (in-flight requests and streams finish; new connections are refused; forced exit after
 * GATEWAY_SHUTDOWN_TIMEOUT_MS).
 */
async function main(): Promise<void> {
  const [{ readSettings }, { createGateway }, { createLogger }] = await Promise.all([
    import('./data-plane/pipeline/settings.js'),
    import('./server/create-gateway.js'),
    import('./infra/observability/logger.js'),
  ]);
  const settings = readSettings();
  const logger = createLogger(settings.logLevel);
  const gateway = await createGateway(settings, { logger });
  await gateway.app.listen({ host: settings.host, port: settings.port });
  logger.info({ host: settings.host, port: settings.port, store: settings.databaseUrl ? 'postgres' : 'sqlite', shared: settings.redisUrl ? 'redis' : 'memory' }, 'gateway listening');
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining');
    const force = setTimeout(() => {
      logger.warn('drain timed out; exiting');
      process.exit(1);
    }, settings.shutdownTimeoutMs);
    force.unref();
    gateway.close().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`gateway failed to start: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});

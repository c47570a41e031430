import { disablePretenuring } from './server/v8-heap-settings.js';
import { ServerResponse } from 'node:http';

// V8 settings that must hold before the gateway's modules are even loaded (v8-heap-settings.ts): the
// rest is imported from `main()`, after this has run.
disablePretenuring();

/** How often idle keep-alive connections are closed while draining (a connection whose request just finished turns idle). */
const IDLE_SWEEP_MS = 100;

/**
 * From now on every answer this process starts carries `Connection: close` (those of requests already in
 * flight included), so no client keeps a pooled connection to a process that is draining. The process
 * exits after the drain, so patching the prototype affects nothing else.
 */
function closeConnectionsAfterAnswers(): void {
  const proto = ServerResponse.prototype;
  const writeHead = proto.writeHead;
  proto.writeHead = function (this: ServerResponse, ...args: Parameters<typeof writeHead>) {
    this.shouldKeepAlive = false;
    return writeHead.apply(this, args);
  } as typeof writeHead;
}

/** One JSON log line (pino's shape) for a fault met before or without the logger. */
function faultLine(msg: string, fields: Record<string, unknown>): void {
  process.stdout.write(JSON.stringify({ level: 60, time: Date.now(), pid: process.pid, ...fields, msg }) + '\n');
}

/**
 * Composition root: read the environment, build the gateway, listen, and drain on SIGTERM/SIGINT
 * (operations.md §2): readiness fails at once (`draining`), requests are served for
 * GATEWAY_SHUTDOWN_DELAY_MS, then the server stops accepting, in-flight requests and streams finish,
 * idle keep-alive connections are closed, the request log is flushed and the process exits 0; after
 * GATEWAY_SHUTDOWN_TIMEOUT_MS more it exits 1. Start-up faults exit with their documented code (§3).
 */
async function main(): Promise<void> {
  const [{ readSettings }, { createGateway }, { createLogger }, { consoleUrl, startBanner }] = await Promise.all([
    import('./data-plane/pipeline/settings.js'),
    import('./server/create-gateway.js'),
    import('./infra/observability/logger.js'),
    import('./server/start-banner.js'),
  ]);
  let settings: ReturnType<typeof readSettings>;
  try {
    settings = readSettings();
  } catch (err) {
    faultLine(`invalid setting: ${(err as Error).message}`, { exitCode: 2 });
    process.exit(2);
  }
  const logger = createLogger(settings.logLevel);
  const gateway = await createGateway(settings, { logger });
  await gateway.app.listen({ host: settings.host, port: settings.port });
  logger.info(
    {
      host: settings.host,
      port: settings.port,
      store: settings.databaseUrl ? 'postgres' : 'sqlite',
      shared: settings.redisUrl ? 'redis' : 'memory',
    },
    'gateway listening',
  );
  // Plain lines for the person who ran `npm start`: the console's URL and, once, the first start's keys.
  const address = gateway.app.server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  process.stdout.write(startBanner(consoleUrl(settings.publicUrl, settings.host, port), gateway.firstStart));
  delete gateway.firstStart;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    gateway.deps.lifecycle.draining = true;
    logger.info({ signal, delayMs: settings.shutdownDelayMs }, 'draining');
    const close = () => {
      const force = setTimeout(() => {
        logger.warn({ timeoutMs: settings.shutdownTimeoutMs }, 'drain timed out; exiting');
        process.exit(1);
      }, settings.shutdownTimeoutMs);
      force.unref();
      closeConnectionsAfterAnswers();
      // A keep-alive connection that carried an in-flight request turns idle when its answer is sent: close it then.
      const sweep = setInterval(() => gateway.app.server.closeIdleConnections(), IDLE_SWEEP_MS);
      sweep.unref();
      gateway.close().then(
        () => {
          logger.info('drained; exiting');
          process.exit(0);
        },
        (err) => {
          logger.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    if (settings.shutdownDelayMs > 0) setTimeout(close, settings.shutdownDelayMs);
    else close();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err) => {
  const exitCode =
    typeof (err as { exitCode?: unknown })?.exitCode === 'number' && (err as Error).name === 'StartupError'
      ? (err as { exitCode: number }).exitCode
      : 1;
  faultLine(exitCode === 1 ? `gateway failed to start: ${(err as Error)?.message ?? String(err)}` : (err as Error).message, {
    exitCode,
    ...(exitCode === 1 ? { stack: (err as Error)?.stack } : {}),
  });
  process.exit(exitCode);
});

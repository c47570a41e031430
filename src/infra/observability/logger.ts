import { pino } from 'pino';

/** The gateway's structured logger (pino). */
export type Logger = pino.Logger;

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** Where lines go (default stdout). */
  destination?: pino.DestinationStream;
  /** Window of the warning throttle, ms (default 10 s; 0 turns it off). */
  warnIntervalMs?: number;
}

const WARN = 40;
/** Kinds throttled at once at most; past it a warning passes unthrottled (bounded memory). */
const MAX_KINDS = 1000;

/** The message of a pino call's arguments: `(obj, msg, …)`, `(msg, …)` or `(err)`. */
function kindOf(args: unknown[]): string {
  const [a, b] = args;
  if (typeof a === 'string') return a;
  if (typeof b === 'string') return b;
  return a instanceof Error ? a.message : '';
}

/** The same call with `suppressed: n` merged into its bindings. */
function withSuppressed(args: unknown[], suppressed: number): unknown[] {
  const [a, ...rest] = args;
  if (typeof a === 'string') return [{ suppressed }, a, ...rest];
  if (a instanceof Error) return [{ err: a, suppressed }, ...rest];
  return [{ ...(a as object), suppressed }, ...rest];
}

interface Window {
  suppressed: number;
  last?: { logger: pino.Logger; method: pino.LogFn; args: unknown[] };
}

/**
 * A pino `logMethod` hook that lets through one warning per kind (its message) per interval. The
 * warnings of a degraded dependency (Redis or PostgreSQL down: one per operation, thousands a second)
 * become one line, then one line per interval carrying `suppressed`, the count of the lines it stands
 * for, while the condition lasts. Other levels pass untouched (an error line per failed request keeps
 * its request id).
 */
export function throttleWarnings(
  intervalMs: number,
): (this: pino.Logger, args: Parameters<pino.LogFn>, method: pino.LogFn, level: number) => void {
  const windows = new Map<string, Window>();
  const open = (kind: string) => {
    const w: Window = { suppressed: 0 };
    windows.set(kind, w);
    setTimeout(() => close(kind, w), intervalMs).unref();
  };
  const close = (kind: string, w: Window) => {
    windows.delete(kind);
    if (w.suppressed === 0 || !w.last) return;
    w.last.method.apply(w.last.logger, withSuppressed(w.last.args, w.suppressed) as Parameters<pino.LogFn>);
    open(kind);
  };
  return function logMethod(this: pino.Logger, args: Parameters<pino.LogFn>, method: pino.LogFn, level: number): void {
    if (level !== WARN) return method.apply(this, args);
    const kind = kindOf(args);
    const w = windows.get(kind);
    if (w) {
      w.suppressed++;
      w.last = { logger: this, method, args };
      return;
    }
    method.apply(this, args);
    if (windows.size < MAX_KINDS) open(kind);
  };
}

/**
 * Creates the process logger; level from LOG_LEVEL (default `info`, `silent` in tests). Warnings are
 * throttled per kind ({@link throttleWarnings}).
 */
export function createLogger(level = process.env.LOG_LEVEL ?? 'info', opts: LoggerOptions = {}): Logger {
  const interval = opts.warnIntervalMs ?? 10_000;
  const options: pino.LoggerOptions = { level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime };
  if (interval > 0) options.hooks = { logMethod: throttleWarnings(interval) };
  // Lines leave asynchronously (flushed on exit): logging never blocks the event loop on a slow stdout.
  return pino(options, opts.destination ?? pino.destination({ dest: 1, sync: false }));
}

import { pino } from 'pino';

/** The gateway's structured logger (pino). */
export type Logger = pino.Logger;

/** Creates the process logger; level from LOG_LEVEL (default `info`, `silent` in tests). */
export function createLogger(level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime });
}

import { GatewayError } from '../../../foundation/errors/gateway-error.js';

/** An integer query parameter in [min, max], or the default; 400 naming the parameter otherwise. */
export function intQuery(query: Record<string, unknown>, name: string, min: number, max: number, fallback: number): number {
  const raw = query[name];
  if (raw === undefined || raw === '') return fallback;
  const n = typeof raw === 'number' ? raw : Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new GatewayError('invalid_request', `${name} must be an integer from ${min} to ${max}.`, { param: name });
  return n;
}

/** A string query parameter, or undefined. */
export function strQuery(query: Record<string, unknown>, name: string): string | undefined {
  const raw = query[name];
  return typeof raw === 'string' && raw.length > 0 ? raw : undefined;
}

/** The query string of the original URL (forwarded unchanged to a provider). */
export function rawQuery(url: string): string {
  const i = url.indexOf('?');
  return i < 0 ? '' : url.slice(i);
}

import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema';

/** The gateway's error body (decisions.md): every failed call is thrown as an `ApiError` carrying it. */
export interface ErrorBody {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

/** A failed API call: HTTP status plus the gateway's error fields. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.message);
  }
}

export type Schemas = components['schemas'];

/** Whose signing out the one 401 handler reports to (the app shell). */
let onUnauthorized: () => void = () => undefined;
/** The workspace a session acts in (`x-gateway-workspace`); null: the user's default (organisation-wide for admins). */
let workspace: string | null = null;

export function setUnauthorizedHandler(fn: () => void): void {
  onUnauthorized = fn;
}

export function setWorkspace(id: string | null): void {
  workspace = id;
}

export function currentWorkspace(): string | null {
  return workspace;
}

/** A cookie readable by scripts (`gw_csrf`; the session cookie itself is HttpOnly). */
export function cookie(name: string): string | undefined {
  for (const part of document.cookie.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return decodeURIComponent(v.join('='));
  }
  return undefined;
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Every call: writes carry `x-gateway-csrf` (the `gw_csrf` cookie), the chosen workspace travels as
 * `x-gateway-workspace`, and any 401 (an ended or expired session) sends the user back to sign-in —
 * the one place that handles it.
 */
const session: Middleware = {
  onRequest({ request }) {
    if (!SAFE.has(request.method)) {
      const csrf = cookie('gw_csrf');
      if (csrf) request.headers.set('x-gateway-csrf', csrf);
    }
    if (workspace && !request.headers.has('x-gateway-workspace')) request.headers.set('x-gateway-workspace', workspace);
    return request;
  },
  onResponse({ request, response }) {
    if (response.status === 401 && !new URL(request.url).pathname.endsWith('/v1/auth/login')) onUnauthorized();
    return response;
  },
};

/** The typed client of the gateway's API, generated from its `/openapi.json` (`src/api/schema.d.ts`). */
export const api = createClient<paths>({ baseUrl: location.origin, credentials: 'same-origin' });
api.use(session);

/** The JSON of a call, or throws its `ApiError` (a body that is not the error shape becomes one). */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  const body = (error as { error?: ErrorBody } | undefined)?.error;
  throw new ApiError(
    response.status,
    body && typeof body.message === 'string'
      ? body
      : { message: `${response.status} ${response.statusText}`, type: 'unknown', param: null, code: null },
  );
}

/** A raw `fetch` with the same session rules, for endpoints another part of the gateway adds later (404 when absent). */
export async function rawGet<T>(path: string, query: Record<string, string | undefined> = {}): Promise<T> {
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') url.searchParams.set(k, v);
  const headers: Record<string, string> = {};
  if (workspace) headers['x-gateway-workspace'] = workspace;
  const response = await fetch(url, { headers, credentials: 'same-origin' });
  if (response.status === 401) onUnauthorized();
  const text = await response.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!response.ok) {
    const body = (json as { error?: ErrorBody } | null)?.error;
    throw new ApiError(
      response.status,
      body ?? { message: `${response.status} ${response.statusText}`, type: 'unknown', param: null, code: null },
    );
  }
  return json as T;
}

/** Text of an error for the page. */
export function messageOf(err: unknown): string {
  if (err instanceof ApiError) return `${err.status} ${err.body.code ?? err.body.type}: ${err.body.message}`;
  return err instanceof Error ? err.message : String(err);
}

import type { LogRow } from '../api/types';
import { Badge, type Column } from '../components/ui';
import { linkTo } from './router';

/** Filters shared by the tail and the logs explorer (names of `GET /v1/logs`'s query). */
export const LOG_FILTERS = ['model', 'provider', 'status_code', 'trace_id', 'api_key_id', 'cache_status'] as const;
export type LogFilters = Partial<Record<(typeof LOG_FILTERS)[number], string>>;

export function statusBadge(status: number) {
  return <Badge tone={status < 300 ? 'ok' : status < 500 ? 'warn' : 'bad'}>{status}</Badge>;
}

export function money(n: number): string {
  return n === 0 ? '0' : n < 0.01 ? n.toPrecision(2) : n.toFixed(4);
}

/** The columns of a log row in lists (the tail and the explorer). */
export const LOG_COLUMNS: Column<LogRow>[] = [
  {
    label: 'Time',
    cell: (r) => (
      <a {...linkTo(`/logs/${r.id}`)} title={r.created_at}>
        {new Date(r.created_at).toLocaleTimeString()}
      </a>
    ),
  },
  { label: 'Status', cell: (r) => statusBadge(r.status) },
  { label: 'Endpoint', cell: (r) => r.endpoint },
  { label: 'Provider', cell: (r) => r.provider ?? '—' },
  { label: 'Model', cell: (r) => r.model ?? '—' },
  { label: 'Tokens', numeric: true, cell: (r) => r.total_tokens },
  { label: 'Cost', numeric: true, cell: (r) => money(r.cost) },
  { label: 'Latency', numeric: true, cell: (r) => `${r.latency_ms} ms` },
  { label: 'Cache', cell: (r) => r.cache_status ?? '—' },
];

/** A query string of the non-empty filters (and the chosen workspace). */
export function filterQuery(f: LogFilters, workspace: string | null, extra: Record<string, string> = {}): URLSearchParams {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...f, ...extra })) if (v) q.set(k, v);
  if (workspace) q.set('workspace_id', workspace);
  return q;
}

import { useState } from 'preact/hooks';
import { api, unwrap } from '../api/client';
import type { LogRow } from '../api/types';
import { DataTable, ErrorBanner, JsonView, PageHeader, Pager, Section, Time } from '../components/ui';
import { LogFilterForm } from '../components/log-filters';
import { LOG_COLUMNS, filterQuery, money, statusBadge, type LogFilters } from '../lib/log-format';
import { linkTo } from '../lib/router';
import { useLoad } from '../lib/use-load';
import { useApp } from '../session';

const PAGE_SIZE = 50;

/** The logs explorer (`/logs`) or one request's detail (`/logs/<id>`). */
export function LogsPage({ rest }: { rest: string }) {
  return rest ? <LogDetail id={decodeURIComponent(rest)} /> : <LogList />;
}

function LogList() {
  const { workspace } = useApp();
  const [filters, setFilters] = useState<LogFilters>({});
  const [page, setPage] = useState(0);
  const list = useLoad(() => {
    const query = Object.fromEntries(filterQuery(filters, workspace, { current_page: String(page), page_size: String(PAGE_SIZE) }));
    return unwrap(api.GET('/v1/logs', { params: { query: query as never } }));
  }, [filters, page, workspace]);
  return (
    <>
      <PageHeader title="Logs">
        <button type="button" onClick={list.reload}>
          Refresh
        </button>
      </PageHeader>
      <LogFilterForm value={filters} onApply={(f) => (setPage(0), setFilters(f))} />
      <ErrorBanner error={list.error} />
      {list.value && (
        <>
          <DataTable caption="request log" rows={list.value.data} columns={LOG_COLUMNS} rowKey={(r) => r.id} empty="No requests match." />
          <Pager page={page} pageSize={PAGE_SIZE} total={list.value.total} onPage={setPage} />
        </>
      )}
    </>
  );
}

type Detail = LogRow & Record<string, unknown>;

/** Facts of a log row as a definition list. */
function Facts({ row }: { row: Detail }) {
  const facts: Array<[string, unknown]> = [
    ['Request id', row.id],
    ['Trace id', row.trace_id],
    ['Endpoint', row.endpoint],
    ['Provider', row.provider],
    ['Model', row.model],
    ['Target', row.target_path],
    ['Retries', row.retry_count],
    ['Stream', row.stream ? 'yes' : 'no'],
    ['Cache', row.cache_status],
    ['Config', row.config_id],
    ['Prompt', row.prompt_id],
    ['API key', row.api_key_id],
    ['User', row.user_id],
    ['Tokens', `${row.prompt_tokens} in · ${row.completion_tokens} out · ${row.total_tokens} total`],
    ['Cost', money(row.cost)],
    ['Latency', `${row.latency_ms} ms`],
  ];
  return (
    <dl class="facts">
      {facts.map(([k, v]) => (
        <>
          <dt>{k}</dt>
          <dd>{v === null || v === undefined || v === '' ? '—' : String(v)}</dd>
        </>
      ))}
    </dl>
  );
}

/** One attempt of the route, as the detail lists them (fields shown when present). */
interface Attempt {
  target_path?: string;
  provider?: string;
  model?: string;
  status?: number;
  latency_ms?: number;
  error?: unknown;
}

/**
 * One request: what the list row has, plus what `GET /v1/logs/{id}` adds when the gateway has it — the
 * attempts of the route, timings, hook results, cost with unit prices, bodies (each shown only when present).
 */
function LogDetail({ id }: { id: string }) {
  const row = useLoad(() => unwrap(api.GET('/v1/logs/{id}', { params: { path: { id } } })) as Promise<Detail>, [id]);
  const r = row.value;
  const attempts = Array.isArray(r?.attempts) ? (r!.attempts as Attempt[]) : undefined;
  const extra = r
    ? Object.entries(r).filter(
        ([k]) =>
          ['timings', 'cost_details', 'pricing', 'request', 'response', 'request_body', 'response_body'].includes(k) &&
          r[k] !== null &&
          r[k] !== undefined,
      )
    : [];
  return (
    <>
      <PageHeader title="Request">
        <a {...linkTo('/logs')}>Back to logs</a>
      </PageHeader>
      <ErrorBanner error={row.error} />
      {r && (
        <>
          <Section title="Summary" id="log-summary">
            <p>
              {statusBadge(r.status)} <Time value={r.created_at} />
            </p>
            <Facts row={r} />
            {r.error && <ErrorBanner error={`${r.error.code ?? r.error.type}: ${r.error.message}`} />}
          </Section>
          <Section title="Attempts" id="log-attempts">
            {attempts ? (
              <DataTable
                caption="attempts of the route"
                rows={attempts.map((a, i) => ({ ...a, i }))}
                rowKey={(a) => String(a.i)}
                columns={[
                  { label: '#', cell: (a) => a.i + 1 },
                  { label: 'Target', cell: (a) => a.target_path ?? '—' },
                  { label: 'Provider', cell: (a) => a.provider ?? '—' },
                  { label: 'Model', cell: (a) => a.model ?? '—' },
                  { label: 'Status', cell: (a) => (a.status === undefined ? '—' : statusBadge(a.status)) },
                  { label: 'Latency', numeric: true, cell: (a) => (a.latency_ms === undefined ? '—' : `${a.latency_ms} ms`) },
                ]}
              />
            ) : (
              <p>
                Answered by target <code>{r.target_path ?? '—'}</code> after {r.retry_count} {r.retry_count === 1 ? 'retry' : 'retries'}.
              </p>
            )}
          </Section>
          <Section title="Hook results" id="log-hooks">
            {r.hook_results === null || r.hook_results === undefined ? (
              <p class="muted">No hooks ran.</p>
            ) : (
              <JsonView value={r.hook_results} />
            )}
          </Section>
          {extra.map(([k, v]) => (
            <Section title={k.replace(/_/g, ' ')} id={`log-${k}`}>
              <JsonView value={v} />
            </Section>
          ))}
          {r.metadata && (
            <Section title="Metadata" id="log-metadata">
              <JsonView value={r.metadata} />
            </Section>
          )}
        </>
      )}
    </>
  );
}

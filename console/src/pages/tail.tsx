import { useEffect, useRef, useState } from 'preact/hooks';
import { api, messageOf, rawGet } from '../api/client';
import type { LogRow } from '../api/types';
import { DataTable, ErrorBanner, PageHeader } from '../components/ui';
import { LogFilterForm } from '../components/log-filters';
import { LOG_COLUMNS, filterQuery, type LogFilters } from '../lib/log-format';
import { useApp } from '../session';

/** Rows kept on screen; older ones drop off. */
const KEEP = 500;

/**
 * Live request tail: `GET /v1/logs/tail` (server-sent events) with the log filters; new rows on top.
 * The filters are checked with `GET /v1/logs` first, so a bad one shows its 400 instead of a silent stream.
 */
export function TailPage() {
  const { workspace } = useApp();
  const [filters, setFilters] = useState<LogFilters>({});
  const [rows, setRows] = useState<LogRow[]>([]);
  const [state, setState] = useState<'connecting' | 'live' | 'reconnecting' | 'paused' | 'closed'>('connecting');
  const [error, setError] = useState<string>();
  const [gap, setGap] = useState(0);
  const [paused, setPaused] = useState(false);
  const pausedRef = useRef(paused);
  pausedRef.current = paused;

  useEffect(() => {
    let source: EventSource | undefined;
    let live = true;
    setError(undefined);
    setState('connecting');
    const q = filterQuery(filters, workspace);
    rawGet('/v1/logs', Object.fromEntries(filterQuery(filters, null, { page_size: '1' })))
      .then(() => {
        if (!live) return;
        source = new EventSource(`/v1/logs/tail?${q}`, { withCredentials: true });
        source.addEventListener('ready', () => setState('live'));
        source.addEventListener('log', (e) => {
          if (pausedRef.current) return;
          const row = JSON.parse((e as MessageEvent<string>).data) as LogRow;
          setRows((old) => [row, ...old.filter((r) => r.id !== row.id)].slice(0, KEEP));
        });
        source.addEventListener('gap', (e) =>
          setGap((g) => g + (JSON.parse((e as MessageEvent<string>).data) as { skipped: number }).skipped),
        );
        source.onerror = () => {
          if (source?.readyState === EventSource.CLOSED) {
            setState('closed');
            // A closed stream after a refusal: the session check sends a signed-out user to sign-in.
            void api.GET('/v1/auth/session');
          } else setState('reconnecting');
        };
      })
      .catch((err: unknown) => live && (setError(messageOf(err)), setState('closed')));
    return () => {
      live = false;
      source?.close();
    };
  }, [filters, workspace]);

  return (
    <>
      <PageHeader title="Live tail">
        <span class={`live-state ${state}`} role="status" aria-live="polite">
          {paused ? 'paused' : state}
        </span>
        <button type="button" onClick={() => setPaused(!paused)} aria-pressed={paused}>
          {paused ? 'Resume' : 'Pause'}
        </button>
        <button type="button" onClick={() => setRows([])}>
          Clear
        </button>
      </PageHeader>
      <LogFilterForm value={filters} onApply={(f) => (setRows([]), setFilters(f))} />
      <ErrorBanner error={error} />
      {gap > 0 && <p class="muted">{gap} rows arrived too fast to show; the logs explorer has them all.</p>}
      <DataTable caption="requests as they arrive" rows={rows} columns={LOG_COLUMNS} rowKey={(r) => r.id} empty="Waiting for requests…" />
    </>
  );
}

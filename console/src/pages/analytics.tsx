import { useState } from 'preact/hooks';
import { ApiError, rawGet } from '../api/client';
import { TimeChart, type Series } from '../components/chart';
import { DataTable, ErrorBanner, Field, PageHeader, Section } from '../components/ui';
import { money } from '../lib/log-format';
import { useLoad } from '../lib/use-load';
import { useApp } from '../session';

/** `GET /v1/analytics/graphs/{metric}` (control-plane.md §8); fields read defensively. */
interface Graph {
  data_points: Array<Record<string, unknown> & { timestamp: string | number }>;
  summary?: Record<string, unknown>;
}

const METRICS: Array<{ metric: string; title: string; series: string[]; format?: (v: number) => string }> = [
  { metric: 'requests', title: 'Requests', series: ['value'] },
  { metric: 'cost', title: 'Cost', series: ['value'], format: money },
  { metric: 'tokens', title: 'Tokens', series: ['value'] },
  { metric: 'latency', title: 'Latency (ms)', series: ['p50', 'p95', 'p99'], format: (v) => v.toFixed(0) },
  { metric: 'errors', title: 'Errors', series: ['value'] },
  { metric: 'cache_hit_rate', title: 'Cache hit rate', series: ['value'], format: (v) => `${(v * 100).toFixed(1)}%` },
];
const RANGES: Record<string, number> = { 'Last hour': 3600, 'Last 24 hours': 86400, 'Last 7 days': 7 * 86400 };
const GROUPS = ['model', 'provider', 'status_code', 'api_key', 'config', 'workspace', 'ai_service', 'prompt'];
const COLUMNS = ['cost', 'total_tokens', 'avg_latency', 'p95_latency', 'success_rate', 'error_count'];

/** Unix seconds of a point's timestamp (ISO text, seconds or milliseconds). */
function seconds(t: string | number): number {
  if (typeof t === 'number') return t > 1e12 ? t / 1000 : t;
  return Date.parse(t) / 1000;
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** The answer of an analytics call, or `unavailable` when this gateway has no such route yet. */
async function analytics<T>(path: string, query: Record<string, string | undefined>): Promise<T | 'unavailable'> {
  try {
    return await rawGet<T>(path, query);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404 && /no route/i.test(err.body.message)) return 'unavailable';
    throw err;
  }
}

function Chart({ spec, range, workspace }: { spec: (typeof METRICS)[number]; range: number; workspace: string | null }) {
  const graph = useLoad(() => {
    const end = new Date();
    const start = new Date(end.getTime() - range * 1000);
    return analytics<Graph>(`/v1/analytics/graphs/${spec.metric}`, {
      start_time: start.toISOString(),
      end_time: end.toISOString(),
      workspace_id: workspace ?? undefined,
    });
  }, [spec.metric, range, workspace]);
  if (graph.error) return <ErrorBanner error={`${spec.title}: ${graph.error}`} />;
  if (graph.value === 'unavailable') return null;
  if (!graph.value) return <p class="muted">Loading {spec.title.toLowerCase()}…</p>;
  const points = Array.isArray(graph.value.data_points) ? graph.value.data_points : [];
  const times = points.map((p) => seconds(p.timestamp));
  const series: Series[] = spec.series.map((key) => ({
    label: key === 'value' ? spec.title : key,
    values: points.map((p) => num(p[key])),
  }));
  return <TimeChart title={spec.title} times={times} series={series} format={spec.format} />;
}

/** Analytics: a chart (with its table) per metric over a chosen range, and the grouped table. */
export function AnalyticsPage() {
  const { workspace } = useApp();
  const [range, setRange] = useState(86400);
  const [group, setGroup] = useState('model');
  const probe = useLoad(() => analytics('/v1/analytics/graphs/requests', { workspace_id: workspace ?? undefined }), [workspace]);
  const groups = useLoad(() => {
    const end = new Date();
    return analytics<{ data: Array<Record<string, unknown>>; total: number }>(`/v1/analytics/groups/${group}`, {
      start_time: new Date(end.getTime() - range * 1000).toISOString(),
      end_time: end.toISOString(),
      columns: COLUMNS.join(','),
      workspace_id: workspace ?? undefined,
    });
  }, [group, range, workspace]);

  return (
    <>
      <PageHeader title="Analytics">
        <Field label="Range">
          <select value={range} onChange={(e) => setRange(Number((e.target as HTMLSelectElement).value))}>
            {Object.entries(RANGES).map(([label, s]) => (
              <option value={s}>{label}</option>
            ))}
          </select>
        </Field>
      </PageHeader>
      {probe.value === 'unavailable' ? (
        <p class="card">Analytics is not available in this gateway yet: the request log is in Logs.</p>
      ) : (
        <>
          <div class="charts">
            {METRICS.map((m) => (
              <Chart spec={m} range={range} workspace={workspace} />
            ))}
          </div>
          <Section title="Grouped" id="groups">
            <Field label="Group by">
              <select value={group} onChange={(e) => setGroup((e.target as HTMLSelectElement).value)}>
                {GROUPS.map((g) => (
                  <option value={g}>{g.replace('_', ' ')}</option>
                ))}
              </select>
            </Field>
            <ErrorBanner error={groups.error} />
            {groups.value && groups.value !== 'unavailable' && (
              <DataTable
                caption={`by ${group}`}
                rows={groups.value.data}
                rowKey={(r) => String(r[group])}
                columns={[
                  { label: group, cell: (r) => String(r[group] ?? '—') },
                  { label: 'requests', numeric: true, cell: (r) => String(r.requests ?? '—') },
                  ...COLUMNS.map((c) => ({
                    label: c.replace('_', ' '),
                    numeric: true,
                    cell: (r: Record<string, unknown>) =>
                      typeof r[c] === 'number'
                        ? c === 'cost'
                          ? money(r[c] as number)
                          : String(Math.round((r[c] as number) * 100) / 100)
                        : '—',
                  })),
                ]}
              />
            )}
          </Section>
        </>
      )}
    </>
  );
}

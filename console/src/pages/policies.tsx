import { useState } from 'preact/hooks';
import { api, messageOf, unwrap } from '../api/client';
import type { AnswerOf, BodyOf } from '../api/types';
import { ResourceList } from '../components/resource-list';
import { Badge, DataTable, ErrorBanner, Time } from '../components/ui';
import { useLoad } from '../lib/use-load';

type RateLimit = AnswerOf<'/v1/policies/rate-limits', 'get'>['data'][number];
type UsageLimit = AnswerOf<'/v1/policies/usage-limits', 'get'>['data'][number];

/** Current usage of a usage-limit policy per group (`/entities`), with a reset of one group. */
function Entities({ policy }: { policy: UsageLimit }) {
  const entities = useLoad(
    () => unwrap(api.GET('/v1/policies/usage-limits/{id}/entities', { params: { path: { id: policy.id } } })),
    [policy.id],
  );
  const [error, setError] = useState<string>();
  const reset = async (group: Record<string, string>) => {
    try {
      await unwrap(api.POST('/v1/policies/usage-limits/{id}/entities/reset', { params: { path: { id: policy.id } }, body: { group } }));
      entities.reload();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  return (
    <>
      <ErrorBanner error={entities.error ?? error} />
      {entities.value && (
        <DataTable
          caption="usage per group"
          rows={entities.value.data}
          rowKey={(e) => JSON.stringify(e.group)}
          empty="No usage yet."
          columns={[
            {
              label: 'Group',
              cell: (e) =>
                Object.entries(e.group)
                  .map(([k, v]) => `${k}=${v}`)
                  .join(', ') || 'all requests',
            },
            {
              label: 'Used',
              cell: (e) => (
                <span class="meter-cell">
                  <meter min={0} max={e.credit_limit} value={e.used} aria-label="used of the limit" />
                  {e.used} / {e.credit_limit}
                </span>
              ),
            },
            { label: 'Status', cell: (e) => <Badge tone={e.status === 'active' ? 'ok' : 'bad'}>{e.status}</Badge> },
            { label: 'Window started', cell: (e) => <Time value={e.window_started_at} /> },
            { label: 'Next reset', cell: (e) => <Time value={e.next_reset_at} /> },
            {
              label: '',
              cell: (e) => (
                <button type="button" onClick={() => reset(e.group)}>
                  Reset
                </button>
              ),
            },
          ]}
        />
      )}
    </>
  );
}

/** Rate-limit and usage-limit policies; a usage limit's details show its current usage per group. */
export function PoliciesPage() {
  return (
    <>
      <ResourceList<RateLimit>
        title="Rate-limit policies"
        noun="rate-limit policy"
        crud={{
          list: (query) => unwrap(api.GET('/v1/policies/rate-limits', { params: { query } })),
          create: (body) => unwrap(api.POST('/v1/policies/rate-limits', { body: body as BodyOf<'/v1/policies/rate-limits', 'post'> })),
          update: (id, body) =>
            unwrap(
              api.PUT('/v1/policies/rate-limits/{id}', {
                params: { path: { id } },
                body: body as BodyOf<'/v1/policies/rate-limits/{id}', 'put'>,
              }),
            ),
          remove: (id) => unwrap(api.DELETE('/v1/policies/rate-limits/{id}', { params: { path: { id } } })),
        }}
        columns={[
          { label: 'Name', cell: (p) => p.name ?? '—' },
          { label: 'Limit', cell: (p) => `${p.value} ${p.type} / ${p.unit}` },
          { label: 'Group by', cell: (p) => (p.group_by ?? []).map((g) => JSON.stringify(g)).join(', ') || '—' },
          { label: 'Status', cell: (p) => <Badge tone={p.status === 'active' ? 'ok' : 'neutral'}>{p.status}</Badge> },
        ]}
        template={{ name: 'Per key', type: 'requests', unit: 'rpm', value: 60, conditions: [], group_by: [{ key: 'api_key' }] }}
        editable={(p) => ({ name: p.name, value: p.value, conditions: p.conditions, group_by: p.group_by })}
      />
      <ResourceList<UsageLimit>
        title="Usage-limit policies"
        noun="usage-limit policy"
        crud={{
          list: (query) => unwrap(api.GET('/v1/policies/usage-limits', { params: { query } })),
          create: (body) => unwrap(api.POST('/v1/policies/usage-limits', { body: body as BodyOf<'/v1/policies/usage-limits', 'post'> })),
          update: (id, body) =>
            unwrap(
              api.PUT('/v1/policies/usage-limits/{id}', {
                params: { path: { id } },
                body: body as BodyOf<'/v1/policies/usage-limits/{id}', 'put'>,
              }),
            ),
          remove: (id) => unwrap(api.DELETE('/v1/policies/usage-limits/{id}', { params: { path: { id } } })),
        }}
        columns={[
          { label: 'Name', cell: (p) => p.name ?? '—' },
          { label: 'Limit', cell: (p) => `${p.credit_limit} ${p.type}` },
          { label: 'Resets', cell: (p) => p.periodic_reset ?? (p.periodic_reset_days ? `every ${p.periodic_reset_days} days` : 'never') },
          { label: 'Status', cell: (p) => <Badge tone={p.status === 'active' ? 'ok' : 'neutral'}>{p.status}</Badge> },
        ]}
        template={{
          name: 'Monthly budget',
          type: 'cost',
          credit_limit: 100,
          periodic_reset: 'monthly',
          conditions: [],
          group_by: [{ key: 'api_key' }],
        }}
        editable={(p) => ({
          name: p.name,
          credit_limit: p.credit_limit,
          alert_threshold: p.alert_threshold,
          conditions: p.conditions,
          group_by: p.group_by,
        })}
        extra={(p) => <Entities policy={p} />}
      />
    </>
  );
}

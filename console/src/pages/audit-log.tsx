import { useState } from 'preact/hooks';
import { api, unwrap } from '../api/client';
import type { AnswerOf } from '../api/types';
import { DataTable, ErrorBanner, Field, JsonView, PageHeader, Pager, Time, submit } from '../components/ui';
import { useLoad } from '../lib/use-load';

type Entry = AnswerOf<'/v1/audit-logs', 'get'>['data'][number];
const PAGE_SIZE = 50;

/** The audit log (organisation owners and admins): filter by action and resource type, paged on the server. */
export function AuditLogPage() {
  const [page, setPage] = useState(0);
  const [filters, setFilters] = useState({ action: '', resource_type: '' });
  const [draft, setDraft] = useState(filters);
  const [open, setOpen] = useState<string>();
  const list = useLoad(
    () =>
      unwrap(
        api.GET('/v1/audit-logs', {
          params: {
            query: {
              current_page: page,
              page_size: PAGE_SIZE,
              ...(filters.action ? { action: filters.action } : {}),
              ...(filters.resource_type ? { resource_type: filters.resource_type } : {}),
            },
          },
        }),
      ),
    [page, filters],
  );
  return (
    <>
      <PageHeader title="Audit log" />
      <form class="filters" onSubmit={submit(() => (setPage(0), setFilters(draft)))} aria-label="filters">
        <Field label="Action">
          <input
            name="action"
            placeholder="api_key.rotate"
            value={draft.action}
            onInput={(e) => setDraft({ ...draft, action: (e.target as HTMLInputElement).value.trim() })}
          />
        </Field>
        <Field label="Resource type">
          <input
            name="resource_type"
            placeholder="config"
            value={draft.resource_type}
            onInput={(e) => setDraft({ ...draft, resource_type: (e.target as HTMLInputElement).value.trim() })}
          />
        </Field>
        <button type="submit">Apply</button>
      </form>
      <ErrorBanner error={list.error} />
      {list.value && (
        <>
          <DataTable<Entry>
            caption="audit entries"
            rows={list.value.data}
            rowKey={(e) => e.id}
            columns={[
              { label: 'Time', cell: (e) => <Time value={e.created_at} /> },
              { label: 'Action', cell: (e) => <code>{e.action}</code> },
              { label: 'Resource', cell: (e) => `${e.resource_type} ${e.resource_id ?? ''}` },
              { label: 'Actor', cell: (e) => `${e.actor.type} ${e.actor.id ?? ''}` },
              { label: 'Client IP', cell: (e) => e.client_ip ?? '—' },
              {
                label: 'Details',
                cell: (e) =>
                  open === e.id ? (
                    <>
                      <button type="button" onClick={() => setOpen(undefined)} aria-expanded="true">
                        Hide
                      </button>
                      <JsonView value={e.details} />
                    </>
                  ) : (
                    <button type="button" onClick={() => setOpen(e.id)} aria-expanded="false">
                      Show
                    </button>
                  ),
              },
            ]}
          />
          <Pager page={page} pageSize={PAGE_SIZE} total={list.value.total} onPage={setPage} />
        </>
      )}
    </>
  );
}

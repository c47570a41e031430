import { useState } from 'preact/hooks';
import { api, messageOf, unwrap } from '../api/client';
import type { ApiKey } from '../api/types';
import { Badge, ConfirmRow, DataTable, ErrorBanner, Field, PageHeader, Pager, Section, Time, submit } from '../components/ui';
import { useLoad } from '../lib/use-load';
import { ShownOnce } from '../components/shown-once';
import { useApp } from '../session';

const PAGE_SIZE = 50;
const MIN_TRANSITION_MINUTES = 30;

type KeyType = 'workspace-user' | 'workspace-service' | 'organisation-service';

/** API keys: list (server-paged), create (value shown once), rotate with a transition time, revoke. */
export function ApiKeysPage() {
  const { workspace } = useApp();
  const [page, setPage] = useState(0);
  const [shown, setShown] = useState<{ title: string; value: string; note?: string }>();
  const [error, setError] = useState<string>();
  const [name, setName] = useState('');
  const [type, setType] = useState<KeyType>('workspace-user');
  const [scopes, setScopes] = useState('');
  const [rotating, setRotating] = useState<string>();
  const [minutes, setMinutes] = useState(String(MIN_TRANSITION_MINUTES));
  const [revoking, setRevoking] = useState<string>();
  const list = useLoad(
    () =>
      unwrap(
        api.GET('/v1/api-keys', {
          params: { query: { current_page: page, page_size: PAGE_SIZE, ...(workspace ? { workspace_id: workspace } : {}) } },
        }),
      ),
    [page, workspace],
  );

  const run = async (fn: () => Promise<void>) => {
    setError(undefined);
    try {
      await fn();
      list.reload();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const create = () =>
    run(async () => {
      const list = scopes.split(/[\s,]+/).filter(Boolean);
      const made = await unwrap(
        api.POST('/v1/api-keys', {
          body: {
            name: name.trim(),
            type,
            ...(list.length ? { scopes: list } : {}),
            ...(workspace && type !== 'organisation-service' ? { workspace_id: workspace } : {}),
          },
        }),
      );
      setShown({ title: `New key “${made.name}”`, value: (made as { key: string }).key });
      setName('');
      setScopes('');
    });
  const rotate = (k: ApiKey) =>
    run(async () => {
      const ms = Math.round(Number(minutes) * 60_000);
      const out = await unwrap(
        api.POST('/v1/api-keys/{id}/rotate', { params: { path: { id: k.id } }, body: { key_transition_period_ms: ms } }),
      );
      setRotating(undefined);
      setShown({
        title: `Rotated “${k.name}”`,
        value: out.key,
        note: out.key_transition_expires_at
          ? `The previous value works until ${new Date(out.key_transition_expires_at).toLocaleString()}.`
          : undefined,
      });
    });
  const revoke = (k: ApiKey) =>
    run(async () => {
      await unwrap(api.DELETE('/v1/api-keys/{id}', { params: { path: { id: k.id } } }));
      setRevoking(undefined);
    });

  return (
    <>
      <PageHeader title="API keys" />
      {shown && <ShownOnce {...shown} onDone={() => setShown(undefined)} />}
      <Section title="Create a key" id="create-key">
        <form class="inline-form" onSubmit={submit(create)} aria-label="create a key">
          <Field label="Name">
            <input name="name" required maxLength={200} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          </Field>
          <Field label="Type">
            <select name="type" value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value as KeyType)}>
              <option value="workspace-user">workspace user (you)</option>
              <option value="workspace-service">workspace service</option>
              <option value="organisation-service">organisation service</option>
            </select>
          </Field>
          <Field label="Scopes" hint="Space or comma separated, e.g. completions.write logs.read; empty: the type's defaults.">
            <input name="scopes" value={scopes} onInput={(e) => setScopes((e.target as HTMLInputElement).value)} />
          </Field>
          <button type="submit" class="primary" disabled={!name.trim()}>
            Create key
          </button>
        </form>
      </Section>
      <ErrorBanner error={error ?? list.error} />
      {list.value && (
        <>
          <DataTable<ApiKey>
            caption="API keys"
            rows={list.value.data}
            rowKey={(k) => k.id}
            columns={[
              { label: 'Name', cell: (k) => k.name },
              { label: 'Type', cell: (k) => k.type },
              { label: 'Key', cell: (k) => <code>{k.key_hint}</code> },
              { label: 'Status', cell: (k) => <Badge tone={k.status === 'active' ? 'ok' : 'neutral'}>{k.status}</Badge> },
              { label: 'Scopes', cell: (k) => k.scopes.join(' ') || '—' },
              { label: 'Last used', cell: (k) => <Time value={k.last_used_at} /> },
              { label: 'Transition ends', cell: (k) => <Time value={k.key_transition_expires_at} /> },
              {
                label: 'Actions',
                cell: (k) =>
                  k.status !== 'active' ? null : rotating === k.id ? (
                    <form class="row-form" onSubmit={submit(() => rotate(k))} aria-label={`rotate ${k.name}`}>
                      <label>
                        <span>Old value works for (minutes)</span>
                        <input
                          name="transition"
                          type="number"
                          min={MIN_TRANSITION_MINUTES}
                          step={1}
                          value={minutes}
                          onInput={(e) => setMinutes((e.target as HTMLInputElement).value)}
                        />
                      </label>
                      <button type="submit" class="primary">
                        Rotate now
                      </button>
                      <button type="button" onClick={() => setRotating(undefined)}>
                        Cancel
                      </button>
                    </form>
                  ) : revoking === k.id ? (
                    <ConfirmRow label="Confirm revoke" onConfirm={() => revoke(k)} onCancel={() => setRevoking(undefined)} />
                  ) : (
                    <span class="row-form">
                      <button type="button" onClick={() => setRotating(k.id)} aria-label={`rotate ${k.name}`}>
                        Rotate
                      </button>
                      <button type="button" class="danger" onClick={() => setRevoking(k.id)} aria-label={`revoke ${k.name}`}>
                        Revoke
                      </button>
                    </span>
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

import { useState } from 'preact/hooks';
import { api, messageOf, unwrap } from '../api/client';
import type { AnswerOf, Workspace } from '../api/types';
import { Badge, DataTable, ErrorBanner, Field, PageHeader, Pager, Section, Time, submit } from '../components/ui';
import { useLoad } from '../lib/use-load';

type Member = AnswerOf<'/v1/workspaces/{id}/members/{user_id}', 'get'>;
type Role = 'admin' | 'manager' | 'member';
const ROLES: Role[] = ['admin', 'manager', 'member'];
const PAGE_SIZE = 50;

/** The members of one workspace: add a user with a role, change a role, remove. */
function Members({ workspace }: { workspace: Workspace }) {
  const members = useLoad(
    () => unwrap(api.GET('/v1/workspaces/{id}/members', { params: { path: { id: workspace.id }, query: { page_size: 100 } } })),
    [workspace.id],
  );
  const users = useLoad(() => unwrap(api.GET('/v1/users', { params: { query: { page_size: 100 } } })).catch(() => undefined), []);
  const [userId, setUserId] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [error, setError] = useState<string>();
  const run = async (fn: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await fn();
      members.reload();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const path = (m: Member) => ({ path: { id: workspace.id, user_id: m.user_id } });
  return (
    <Section title={`Members of ${workspace.name}`} id="members">
      <ErrorBanner error={members.error ?? error} />
      {members.value && (
        <DataTable<Member>
          caption="members"
          rows={members.value.data}
          rowKey={(m) => m.user_id}
          columns={[
            { label: 'User', cell: (m) => m.name ?? m.email },
            { label: 'Email', cell: (m) => m.email },
            {
              label: 'Role',
              cell: (m) => (
                <select
                  aria-label={`role of ${m.email}`}
                  value={m.role}
                  onChange={(e) =>
                    run(() =>
                      unwrap(
                        api.PUT('/v1/workspaces/{id}/members/{user_id}', {
                          params: path(m),
                          body: { role: (e.target as HTMLSelectElement).value as Role },
                        }),
                      ),
                    )
                  }
                >
                  {ROLES.map((r) => (
                    <option value={r}>{r}</option>
                  ))}
                </select>
              ),
            },
            {
              label: '',
              cell: (m) => (
                <button
                  type="button"
                  class="danger"
                  onClick={() => run(() => unwrap(api.DELETE('/v1/workspaces/{id}/members/{user_id}', { params: path(m) })))}
                >
                  Remove
                </button>
              ),
            },
          ]}
        />
      )}
      <form
        class="inline-form"
        onSubmit={submit(() =>
          run(() =>
            unwrap(api.POST('/v1/workspaces/{id}/members', { params: { path: { id: workspace.id } }, body: { user_id: userId, role } })),
          ),
        )}
        aria-label="add a member"
      >
        <Field label="User">
          {users.value ? (
            <select name="user_id" value={userId} onChange={(e) => setUserId((e.target as HTMLSelectElement).value)}>
              <option value="">Choose a user</option>
              {users.value.data.map((u) => (
                <option value={u.id}>{u.email}</option>
              ))}
            </select>
          ) : (
            <input
              name="user_id"
              placeholder="user id"
              value={userId}
              onInput={(e) => setUserId((e.target as HTMLInputElement).value.trim())}
            />
          )}
        </Field>
        <Field label="Role">
          <select name="role" value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value as Role)}>
            {ROLES.map((r) => (
              <option value={r}>{r}</option>
            ))}
          </select>
        </Field>
        <button type="submit" disabled={!userId}>
          Add member
        </button>
      </form>
    </Section>
  );
}

/** Workspaces: list (active and, for organisation admins, archived), create, archive/restore, members. */
export function WorkspacesPage() {
  const [page, setPage] = useState(0);
  const [archived, setArchived] = useState(false);
  const [name, setName] = useState('');
  const [error, setError] = useState<string>();
  const [chosen, setChosen] = useState<Workspace>();
  const list = useLoad(
    () =>
      unwrap(
        api.GET('/v1/workspaces', {
          params: { query: { current_page: page, page_size: PAGE_SIZE, ...(archived ? { status: 'active,archived' } : {}) } },
        }),
      ),
    [page, archived],
  );
  const run = async (fn: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await fn();
      list.reload();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  return (
    <>
      <PageHeader title="Workspaces">
        <label class="check">
          <input type="checkbox" checked={archived} onChange={() => setArchived(!archived)} /> Show archived
        </label>
      </PageHeader>
      <Section title="Create a workspace" id="create-workspace">
        <form
          class="inline-form"
          onSubmit={submit(() => run(async () => (await unwrap(api.POST('/v1/workspaces', { body: { name: name.trim() } })), setName(''))))}
          aria-label="create a workspace"
        >
          <Field label="Name">
            <input name="name" required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          </Field>
          <button type="submit" class="primary" disabled={!name.trim()}>
            Create
          </button>
        </form>
      </Section>
      <ErrorBanner error={list.error ?? error} />
      {list.value && (
        <>
          <DataTable<Workspace>
            caption="workspaces"
            rows={list.value.data}
            rowKey={(w) => w.id}
            columns={[
              { label: 'Name', cell: (w) => w.name },
              { label: 'Slug', cell: (w) => <code>{w.slug}</code> },
              { label: 'Status', cell: (w) => <Badge tone={w.status === 'active' ? 'ok' : 'neutral'}>{w.status}</Badge> },
              { label: 'Created', cell: (w) => <Time value={w.created_at} /> },
              {
                label: 'Actions',
                cell: (w) => (
                  <span class="row-form">
                    <button type="button" onClick={() => setChosen(chosen?.id === w.id ? undefined : w)} aria-pressed={chosen?.id === w.id}>
                      Members
                    </button>
                    {w.status === 'active' ? (
                      <button
                        type="button"
                        class="danger"
                        onClick={() => run(() => unwrap(api.DELETE('/v1/workspaces/{id}', { params: { path: { id: w.id } } })))}
                      >
                        Archive
                      </button>
                    ) : (
                      <button
                        type="button"
                        onClick={() =>
                          run(() => unwrap(api.PUT('/v1/workspaces/{id}', { params: { path: { id: w.id } }, body: { status: 'active' } })))
                        }
                      >
                        Restore
                      </button>
                    )}
                  </span>
                ),
              },
            ]}
          />
          <Pager page={page} pageSize={PAGE_SIZE} total={list.value.total} onPage={setPage} />
        </>
      )}
      {chosen && <Members workspace={chosen} />}
    </>
  );
}

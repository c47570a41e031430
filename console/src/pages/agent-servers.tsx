import { api, unwrap } from '../api/client';
import type { AnswerOf, BodyOf } from '../api/types';
import { ResourceList } from '../components/resource-list';
import { ErrorBanner, Hints, JsonView, Time } from '../components/ui';
import { useLoad } from '../lib/use-load';

type AgentServer = AnswerOf<'/v1/agent-servers/{id}', 'get'>;

/** The agent card as callers of the gateway see it (`GET /v1/agent-servers/{id}/agent-card`): fetched from the agent server now. */
function AgentCard({ server }: { server: AgentServer }) {
  const card = useLoad(() => unwrap(api.GET('/v1/agent-servers/{id}/agent-card', { params: { path: { id: server.id } } })), [server.id]);
  const skills = (card.value?.skills ?? []) as Array<{ id?: string; name?: string; description?: string }>;
  return (
    <div data-testid="agent-card">
      <ErrorBanner error={card.error} />
      {card.loading && <p class="muted">Reading the card…</p>}
      {card.value && (
        <>
          <p>
            <strong>{String(card.value.name ?? server.name)}</strong> {card.value.description ? `— ${String(card.value.description)}` : ''}
          </p>
          {skills.length > 0 && (
            <ul>
              {skills.map((s) => (
                <li>
                  <code>{s.id}</code> {s.name}
                  {s.description ? `: ${s.description}` : ''}
                </li>
              ))}
            </ul>
          )}
          <details>
            <summary>Card (JSON)</summary>
            <JsonView value={card.value} />
          </details>
        </>
      )}
    </div>
  );
}

/**
 * Agent servers (A2A) of a workspace: the upstream URL, headers sent to it (write-only: the list shows
 * hints; an update without `headers` keeps them) and the skills callers may use (`skills.allow`, null: all).
 */
export function AgentServersPage() {
  return (
    <ResourceList<AgentServer>
      title="Agent servers"
      noun="agent server"
      crud={{
        list: (query) => unwrap(api.GET('/v1/agent-servers', { params: { query } })),
        create: (body) => unwrap(api.POST('/v1/agent-servers', { body: body as BodyOf<'/v1/agent-servers', 'post'> })),
        update: (id, body) =>
          unwrap(api.PUT('/v1/agent-servers/{id}', { params: { path: { id } }, body: body as BodyOf<'/v1/agent-servers/{id}', 'put'> })),
        remove: (id) => unwrap(api.DELETE('/v1/agent-servers/{id}', { params: { path: { id } } })),
      }}
      columns={[
        { label: 'Name', cell: (a) => a.name },
        { label: 'Slug', cell: (a) => <code>{a.slug}</code> },
        { label: 'URL', cell: (a) => <code>{a.url}</code> },
        { label: 'Headers', cell: (a) => <Hints values={a.headers} /> },
        { label: 'Skills', cell: (a) => (a.skills.allow === null ? 'all' : a.skills.allow.join(', ') || 'none') },
        { label: 'Updated', cell: (a) => <Time value={a.last_updated_at} /> },
      ]}
      template={{
        name: 'Research agent',
        url: 'https://agents.example.com/research/',
        headers: { Authorization: 'Bearer …' },
        skills: { allow: null },
      }}
      editable={(a) => ({ name: a.name, url: a.url, skills: { allow: a.skills.allow } })}
      extra={(a) => <AgentCard server={a} />}
      extraLabel="View card"
    />
  );
}

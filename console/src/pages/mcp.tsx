import { useState } from 'preact/hooks';
import { api, messageOf, unwrap } from '../api/client';
import type { AnswerOf, BodyOf } from '../api/types';
import { ResourceList } from '../components/resource-list';
import { Badge, DataTable, ErrorBanner, Hints, Pager, Time } from '../components/ui';
import { useLoad } from '../lib/use-load';

type McpIntegration = AnswerOf<'/v1/mcp-integrations/{id}', 'get'>;
type McpServer = AnswerOf<'/v1/mcp-servers/{id}', 'get'>;

const CONNECTIONS_PAGE = 50;

/**
 * The per-user OAuth connections of a server whose integration is `auth_type: oauth`
 * (`GET /v1/mcp-servers/{id}/connections`, paged on the server): who is connected and until when;
 * "Revoke" removes one (`DELETE …/connections?user_id=`); "Connect" asks for the signed-in user's
 * authorization URL (`POST …/connect`) to open at the upstream's authorization server. A server whose
 * integration uses another `authType` has no connections: a note says so.
 */
function McpConnections({ server, authType }: { server: McpServer; authType?: string }) {
  const [page, setPage] = useState(0);
  const [failure, setFailure] = useState<string>();
  const [authorizationUrl, setAuthorizationUrl] = useState<string>();
  const connections = useLoad(
    () =>
      unwrap(
        api.GET('/v1/mcp-servers/{id}/connections', {
          params: { path: { id: server.id }, query: { current_page: page, page_size: CONNECTIONS_PAGE } },
        }),
      ),
    [server.id, page],
  );
  const revoke = async (userId: string) => {
    setFailure(undefined);
    try {
      await unwrap(api.DELETE('/v1/mcp-servers/{id}/connections', { params: { path: { id: server.id }, query: { user_id: userId } } }));
      connections.reload();
    } catch (err) {
      setFailure(messageOf(err));
    }
  };
  const connect = async () => {
    setFailure(undefined);
    try {
      setAuthorizationUrl(
        (await unwrap(api.POST('/v1/mcp-servers/{id}/connect', { params: { path: { id: server.id } } }))).authorization_url,
      );
    } catch (err) {
      setFailure(messageOf(err));
    }
  };
  if (authType !== undefined && authType !== 'oauth')
    return (
      <div data-testid="mcp-connections">
        <p role="note" class="muted">
          MCP server '{server.slug}' does not use per-user OAuth (its integration's auth_type is '{authType}'): nobody connects to it.
        </p>
      </div>
    );
  return (
    <div data-testid="mcp-connections">
      <ErrorBanner error={connections.error ?? failure} />
      <p class="row-form">
        <button type="button" onClick={connect}>
          Connect my account
        </button>
        {authorizationUrl && (
          <a href={authorizationUrl} target="_blank" rel="noopener noreferrer">
            Open the authorization page
          </a>
        )}
      </p>
      {connections.value && (
        <>
          <DataTable
            caption={`Connections to ${server.name}`}
            rows={connections.value.data}
            rowKey={(c) => c.user_id}
            empty="Nobody has connected yet."
            columns={[
              { label: 'User', cell: (c) => <code>{c.user_id}</code> },
              { label: 'State', cell: (c) => <Badge tone={c.connected ? 'ok' : 'warn'}>{c.connected ? 'connected' : 'expired'}</Badge> },
              { label: 'Connected', cell: (c) => <Time value={c.connected_at} /> },
              { label: 'Token expires', cell: (c) => (c.expires_at ? <Time value={c.expires_at} /> : '—') },
              {
                label: 'Actions',
                cell: (c) => (
                  <button type="button" class="danger" onClick={() => revoke(c.user_id)} aria-label={`revoke ${c.user_id}`}>
                    Revoke
                  </button>
                ),
              },
            ]}
          />
          <Pager page={page} pageSize={CONNECTIONS_PAGE} total={connections.value.total} onPage={setPage} />
        </>
      )}
    </div>
  );
}

const list = (tools: string[] | undefined) => (tools && tools.length ? tools.join(', ') : '—');

/**
 * MCP integrations: upstream MCP servers (URL, transport, auth), organisation-wide ("All workspaces"
 * chosen) or in the chosen workspace. Header values and the OAuth client secret are write-only: the
 * list shows hints, and an update without `headers` keeps the stored ones.
 */
export function McpIntegrationsPage() {
  const templates: Record<string, BodyOf<'/v1/mcp-integrations', 'post'>> = {
    'Headers (e.g. a bearer token)': {
      name: 'Linear',
      url: 'https://mcp.linear.app/mcp',
      transport: 'http',
      auth_type: 'headers',
      headers: { Authorization: 'Bearer …' },
    },
    'No auth': { name: 'Docs search', url: 'https://mcp.example.com/mcp', transport: 'http', auth_type: 'none' },
    OAuth: {
      name: 'GitHub',
      url: 'https://api.githubcopilot.com/mcp/',
      transport: 'http',
      auth_type: 'oauth',
      oauth: { client_id: '…', client_secret: '…', scopes: ['repo'] },
    },
  };
  return (
    <ResourceList<McpIntegration>
      title="MCP integrations"
      noun="MCP integration"
      crud={{
        list: (query) => unwrap(api.GET('/v1/mcp-integrations', { params: { query } })),
        create: (body) => unwrap(api.POST('/v1/mcp-integrations', { body: body as BodyOf<'/v1/mcp-integrations', 'post'> })),
        update: (id, body) =>
          unwrap(
            api.PUT('/v1/mcp-integrations/{id}', { params: { path: { id } }, body: body as BodyOf<'/v1/mcp-integrations/{id}', 'put'> }),
          ),
        remove: (id) => unwrap(api.DELETE('/v1/mcp-integrations/{id}', { params: { path: { id } } })),
      }}
      columns={[
        { label: 'Name', cell: (i) => i.name },
        { label: 'Slug', cell: (i) => <code>{i.slug}</code> },
        { label: 'URL', cell: (i) => <code class="wrap">{i.url}</code> },
        { label: 'Transport', cell: (i) => i.transport },
        {
          label: 'Auth',
          cell: (i) => (
            <>
              {i.auth_type}
              {Object.keys(i.headers).length > 0 && <Hints values={i.headers} />}
            </>
          ),
        },
        { label: 'Scope', cell: (i) => (i.workspace_id ? <Badge tone="neutral">workspace</Badge> : <Badge tone="ok">organisation</Badge>) },
        { label: 'Updated', cell: (i) => <Time value={i.last_updated_at} /> },
      ]}
      template={Object.values(templates)[0]}
      templates={templates}
      editable={(i) => ({
        name: i.name,
        url: i.url,
        transport: i.transport,
        auth_type: i.auth_type,
        ...(i.oauth ? { oauth: { ...i.oauth, client_secret: undefined } } : {}),
      })}
    />
  );
}

/**
 * MCP servers of a workspace: an MCP integration exposed at `/v1/mcp/{slug}/mcp`, with its tool filter
 * (`tools.allow`: only these; `tools.deny`: never these) and `default_user_access`.
 */
export function McpServersPage() {
  const integrations = useLoad(() => unwrap(api.GET('/v1/mcp-integrations', { params: { query: { page_size: 100 } } })), []);
  const first = integrations.value?.data[0]?.slug;
  // The editor's template names the first integration: mount the list once they are known, so a
  // late answer never replaces what the user has started typing.
  if (integrations.loading && !integrations.value && !integrations.error)
    return (
      <p role="status" class="muted">
        Loading MCP integrations…
      </p>
    );
  return (
    <ResourceList<McpServer>
      title="MCP servers"
      noun="MCP server"
      intro={
        <p class="muted">
          Integrations this workspace may expose:{' '}
          {integrations.value?.data.length
            ? integrations.value.data.map((i) => <code>{i.slug} </code>)
            : 'none yet (create one under MCP integrations).'}
        </p>
      }
      crud={{
        list: (query) => unwrap(api.GET('/v1/mcp-servers', { params: { query } })),
        create: (body) => unwrap(api.POST('/v1/mcp-servers', { body: body as BodyOf<'/v1/mcp-servers', 'post'> })),
        update: (id, body) =>
          unwrap(api.PUT('/v1/mcp-servers/{id}', { params: { path: { id } }, body: body as BodyOf<'/v1/mcp-servers/{id}', 'put'> })),
        remove: (id) => unwrap(api.DELETE('/v1/mcp-servers/{id}', { params: { path: { id } } })),
      }}
      columns={[
        { label: 'Name', cell: (s) => s.name },
        { label: 'Endpoint', cell: (s) => <code>{s.endpoint}</code> },
        {
          label: 'Integration',
          cell: (s) => integrations.value?.data.find((i) => i.id === s.mcp_integration_id)?.slug ?? s.mcp_integration_id,
        },
        {
          label: 'Tools',
          cell: (s) => (
            <>
              allow: {list(s.tools.allow)}
              <br />
              deny: {list(s.tools.deny)}
            </>
          ),
        },
        { label: 'Users', cell: (s) => <Badge tone={s.default_user_access === 'allow' ? 'ok' : 'warn'}>{s.default_user_access}</Badge> },
        { label: 'Updated', cell: (s) => <Time value={s.last_updated_at} /> },
      ]}
      template={{
        name: 'Linear',
        mcp_integration_id: first ?? '<integration id or slug>',
        tools: { allow: [], deny: ['delete_issue'] },
        default_user_access: 'allow',
      }}
      editable={(s) => ({
        name: s.name,
        mcp_integration_id: s.mcp_integration_id,
        tools: s.tools,
        default_user_access: s.default_user_access,
      })}
      extra={(s) => <McpConnections server={s} authType={integrations.value?.data.find((i) => i.id === s.mcp_integration_id)?.auth_type} />}
      extraLabel="Connections"
    />
  );
}

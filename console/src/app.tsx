import { useEffect, useState } from 'preact/hooks';
import type { ComponentType } from 'preact';
import { api, setUnauthorizedHandler, setWorkspace as setClientWorkspace } from './api/client';
import type { Session } from './api/types';
import { AppContext } from './session';
import { linkTo, navigate, useRoute } from './lib/router';
import { SignIn } from './pages/sign-in';
import { TailPage } from './pages/tail';
import { LogsPage } from './pages/logs';
import { AnalyticsPage } from './pages/analytics';
import { ApiKeysPage } from './pages/api-keys';
import { WorkspacesPage } from './pages/workspaces';
import { ConfigsPage } from './pages/configs';
import { PromptsPage } from './pages/prompts';
import { PoliciesPage } from './pages/policies';
import { AuditLogPage } from './pages/audit-log';
import { OrganisationPage } from './pages/organisation';
import { GuardrailsPage, IntegrationsPage, ProvidersPage } from './pages/resources';
import { SecretReferencesPage } from './pages/secret-references';
import { McpIntegrationsPage, McpServersPage } from './pages/mcp';
import { AgentServersPage } from './pages/agent-servers';

/** The console's pages, in the order of the navigation. */
const PAGES: Array<{ path: string; label: string; page: ComponentType<{ rest: string }> }> = [
  { path: '/tail', label: 'Live tail', page: TailPage },
  { path: '/logs', label: 'Logs', page: LogsPage },
  { path: '/analytics', label: 'Analytics', page: AnalyticsPage },
  { path: '/api-keys', label: 'API keys', page: ApiKeysPage },
  { path: '/workspaces', label: 'Workspaces', page: WorkspacesPage },
  { path: '/configs', label: 'Configs', page: ConfigsPage },
  { path: '/prompts', label: 'Prompts', page: PromptsPage },
  { path: '/guardrails', label: 'Guardrails', page: GuardrailsPage },
  { path: '/policies', label: 'Policies', page: PoliciesPage },
  { path: '/integrations', label: 'Integrations', page: IntegrationsPage },
  { path: '/providers', label: 'Providers', page: ProvidersPage },
  { path: '/secret-references', label: 'Secret references', page: SecretReferencesPage },
  { path: '/mcp-integrations', label: 'MCP integrations', page: McpIntegrationsPage },
  { path: '/mcp-servers', label: 'MCP servers', page: McpServersPage },
  { path: '/agent-servers', label: 'Agent servers', page: AgentServersPage },
  { path: '/audit-log', label: 'Audit log', page: AuditLogPage },
  { path: '/organisation', label: 'Organisation', page: OrganisationPage },
];

/** The whole console: the session check, sign-in, and the signed-in shell with its navigation. */
export function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [workspace, setWorkspace] = useState<string | null>(null);
  const [menuOpen, setMenuOpen] = useState(false);
  const route = useRoute();

  useEffect(() => {
    // The one 401 handler: whatever call finds the session gone sends the user to sign-in.
    setUnauthorizedHandler(() => setSession(null));
    api.GET('/v1/auth/session').then(
      ({ data }) => setSession(data ?? null),
      () => setSession(null),
    );
  }, []);
  useEffect(() => setMenuOpen(false), [route.path]);

  if (session === undefined) return <p class="loading">Loading…</p>;
  if (session === null)
    return (
      <SignIn
        onSignedIn={(s) => {
          setSession(s);
          if (route.path === '/' || route.path === '/sign-in') navigate('/tail', true);
        }}
      />
    );

  const chooseWorkspace = (id: string | null) => {
    setClientWorkspace(id);
    setWorkspace(id);
  };
  const signOut = () => {
    void api.POST('/v1/auth/logout').finally(() => {
      chooseWorkspace(null);
      setSession(null);
      navigate('/sign-in', true);
    });
  };
  const active = PAGES.find((p) => route.path === p.path || route.path.startsWith(p.path + '/')) ?? PAGES[0]!;
  const Page = active.page;
  const rest = route.path.slice(active.path.length).replace(/^\//, '');

  return (
    <AppContext.Provider value={{ session, workspace, setWorkspace: chooseWorkspace, signOut }}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <div class={`shell ${menuOpen ? 'menu-open' : ''}`}>
        <header class="topbar">
          <button type="button" class="menu-button" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>
            Menu
          </button>
          <strong class="brand">{session.organisation.name}</strong>
          <label class="workspace-picker">
            <span>Workspace</span>
            <select value={workspace ?? ''} onChange={(e) => chooseWorkspace((e.target as HTMLSelectElement).value || null)}>
              <option value="">{session.user.role === 'member' ? 'Default' : 'All workspaces'}</option>
              {session.workspaces
                .filter((w) => w.status === 'active')
                .map((w) => (
                  <option value={w.id}>
                    {w.name} ({w.role})
                  </option>
                ))}
            </select>
          </label>
          <span class="user" title={session.user.email}>
            {session.user.name ?? session.user.email}
          </span>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </header>
        <nav id="nav" class="sidenav" aria-label="console">
          <ul>
            {PAGES.map((p) => (
              <li>
                <a {...linkTo(p.path)} aria-current={p === active ? 'page' : undefined}>
                  {p.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          <Page key={`${active.path}:${workspace ?? ''}`} rest={rest} />
        </main>
      </div>
    </AppContext.Provider>
  );
}

import { useState } from 'preact/hooks';
import { api, messageOf, unwrap } from '../api/client';
import type { AnswerOf } from '../api/types';
import { PagedTable, usePaged } from '../components/paged-list';
import { SettingsEditor } from '../components/settings-editor';
import { ShownOnce } from '../components/shown-once';
import { ConfirmRow, ErrorBanner, Field, Section, Time, submit } from '../components/ui';
import { useApp } from '../session';

type Sso = AnswerOf<'/v1/organisation/sso', 'get'>;
type Jwt = AnswerOf<'/v1/organisation/jwt', 'get'>;
type ScimToken = AnswerOf<'/v1/scim/tokens/{id}', 'get'>;
type ScimMapping = AnswerOf<'/v1/scim/workspaces/{id}', 'get'>;

/** `PUT /v1/organisation/sso` replaces the whole object: the client secret (write-only, shown as a hint) must be typed again. */
export function SsoSettings() {
  return (
    <SettingsEditor<Sso>
      title="Single sign-on"
      id="sso"
      load={() => unwrap(api.GET('/v1/organisation/sso'))}
      save={(body) => unwrap(api.PUT('/v1/organisation/sso', { body: body as never }))}
      remove={() => unwrap(api.DELETE('/v1/organisation/sso'))}
      editable={(s) => ({
        issuer: s.issuer,
        client_id: s.client_id,
        client_secret: '',
        token_endpoint_auth_method: s.token_endpoint_auth_method,
        scopes: s.scopes,
        domains: s.domains,
        default_role: s.default_role,
        auto_provision: s.auto_provision,
      })}
      example={{
        issuer: 'https://example.okta.com',
        client_id: '0oa1b2c3d4',
        client_secret: '…',
        token_endpoint_auth_method: 'client_secret_basic',
        scopes: ['groups'],
        domains: [{ domain: 'example.com', allow_subdomains: true }],
        default_role: 'member',
        auto_provision: true,
      }}
      offText="SSO is off: users sign in with their API key."
    >
      <p class="muted">
        OpenID Connect. Register <code>{location.origin}/v1/auth/sso/callback</code> as the redirect URI with the provider. Each save sends
        the whole object, the client secret included (it is write-only).
      </p>
    </SettingsEditor>
  );
}

/** JWTs presented as gateway keys: a JWKS URL or an inline key set, issuer, audience, algorithms. */
export function JwtSettings() {
  return (
    <SettingsEditor<Jwt>
      title="JWT authentication"
      id="jwt"
      load={() => unwrap(api.GET('/v1/organisation/jwt'))}
      save={(body) => unwrap(api.PUT('/v1/organisation/jwt', { body: body as never }))}
      remove={() => unwrap(api.DELETE('/v1/organisation/jwt'))}
      editable={(j) =>
        Object.fromEntries(
          Object.entries({ jwks_url: j.jwks_url, jwks: j.jwks, issuer: j.issuer, audience: j.audience, algorithms: j.algorithms }).filter(
            ([, v]) => v !== null,
          ),
        )
      }
      example={{
        jwks_url: 'https://idp.example.com/.well-known/jwks.json',
        issuer: 'https://idp.example.com',
        audience: 'ai-gateway',
        algorithms: ['RS256', 'ES256'],
      }}
      offText="JWT authentication is off."
    />
  );
}

/** SCIM tokens (the value shown once, then only its hint; revoke) and group → workspace mappings. */
export function ScimSettings() {
  const { session } = useApp();
  const tokens = usePaged<ScimToken>(({ current_page, page_size }) =>
    unwrap(api.GET('/v1/scim/tokens', { params: { query: { current_page, page_size } } })),
  );
  const mappings = usePaged<ScimMapping>(({ current_page, page_size }) =>
    unwrap(api.GET('/v1/scim/workspaces', { params: { query: { current_page, page_size } } })),
  );
  const [created, setCreated] = useState<string>();
  const [error, setError] = useState<string>();
  const [revoking, setRevoking] = useState<string>();
  const workspaces = session.workspaces.filter((w) => w.status === 'active');
  const [draft, setDraft] = useState({ workspace_id: workspaces[0]?.id ?? '', role: 'member', scim_group_name: '' });
  const names = new Map(session.workspaces.map((w) => [w.id, w.name]));

  const run = async (fn: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await fn();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const createToken = () =>
    run(async () => {
      const t = await unwrap(api.POST('/v1/scim/tokens', { body: {} }));
      setCreated(t.token);
      tokens.reload();
    });
  const revoke = (id: string) =>
    run(async () => {
      await unwrap(api.DELETE('/v1/scim/tokens/{id}', { params: { path: { id } } }));
      setRevoking(undefined);
      tokens.reload();
    });
  const map = () =>
    run(async () => {
      await unwrap(
        api.POST('/v1/scim/workspaces', {
          body: { workspace_id: draft.workspace_id, role: draft.role, scim_group_name: draft.scim_group_name.trim() },
        }),
      );
      setDraft({ ...draft, scim_group_name: '' });
      mappings.reload();
    });
  const unmap = (id: string) =>
    run(async () => {
      await unwrap(api.DELETE('/v1/scim/workspaces/{id}', { params: { path: { id } } }));
      mappings.reload();
    });

  return (
    <Section title="SCIM provisioning" id="scim">
      <p class="muted">
        Base URL <code>{location.origin}/v1/scim/v2</code>, header <code>Authorization: Bearer &lt;token&gt;</code>.
      </p>
      <ErrorBanner error={error} />
      {created && <ShownOnce title="New SCIM token" value={created} testId="new-scim-token" onDone={() => setCreated(undefined)} />}
      <div class="actions">
        <button type="button" class="primary" onClick={createToken}>
          Create SCIM token
        </button>
      </div>
      <PagedTable<ScimToken>
        list={tokens}
        caption="SCIM tokens"
        rowKey={(t) => t.id}
        empty="No SCIM token."
        columns={[
          { label: 'Token', cell: (t) => <code>{t.token_hint}</code> },
          { label: 'Created', cell: (t) => <Time value={t.created_at} /> },
          {
            label: 'Actions',
            cell: (t) =>
              revoking === t.id ? (
                <ConfirmRow label="Confirm revoke" onConfirm={() => revoke(t.id)} onCancel={() => setRevoking(undefined)} />
              ) : (
                <button type="button" class="danger" onClick={() => setRevoking(t.id)} aria-label={`revoke ${t.token_hint}`}>
                  Revoke
                </button>
              ),
          },
        ]}
      />
      <h3>Groups and workspaces</h3>
      <form class="inline-form" onSubmit={submit(map)} aria-label="map a SCIM group">
        <Field label="SCIM group name">
          <input
            name="scim_group_name"
            required
            value={draft.scim_group_name}
            onInput={(e) => setDraft({ ...draft, scim_group_name: (e.target as HTMLInputElement).value })}
          />
        </Field>
        <Field label="Workspace">
          <select
            name="workspace_id"
            value={draft.workspace_id}
            onChange={(e) => setDraft({ ...draft, workspace_id: (e.target as HTMLSelectElement).value })}
          >
            {workspaces.map((w) => (
              <option value={w.id}>{w.name}</option>
            ))}
          </select>
        </Field>
        <Field label="Role">
          <select name="role" value={draft.role} onChange={(e) => setDraft({ ...draft, role: (e.target as HTMLSelectElement).value })}>
            <option value="member">member</option>
            <option value="manager">manager</option>
            <option value="admin">admin</option>
          </select>
        </Field>
        <button type="submit" disabled={!draft.scim_group_name.trim() || !draft.workspace_id}>
          Map group
        </button>
      </form>
      <PagedTable<ScimMapping>
        list={mappings}
        caption="SCIM group mappings"
        rowKey={(m) => m.id}
        empty="No group is mapped."
        columns={[
          { label: 'Group', cell: (m) => m.scim_group_name },
          { label: 'Workspace', cell: (m) => names.get(m.workspace_id) ?? m.workspace_id },
          { label: 'Role', cell: (m) => m.role },
          { label: 'Created', cell: (m) => <Time value={m.created_at} /> },
          {
            label: 'Actions',
            cell: (m) => (
              <button type="button" class="danger" onClick={() => unmap(m.id)} aria-label={`remove mapping ${m.scim_group_name}`}>
                Remove
              </button>
            ),
          },
        ]}
      />
    </Section>
  );
}

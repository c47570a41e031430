import { useState } from 'preact/hooks';
import { api, messageOf, unwrap } from '../api/client';
import type { AnswerOf, BodyOf } from '../api/types';
import { ResourceList } from '../components/resource-list';
import { Badge, Hints, Time } from '../components/ui';

type SecretReference = AnswerOf<'/v1/secret-references/{id}', 'get'>;
type TestResult = AnswerOf<'/v1/secret-references/{id}/test', 'post'>;

/** A new reference of each manager type, with the `auth_config` fields that type takes (docs/secrets.md). */
const TEMPLATES: Record<string, BodyOf<'/v1/secret-references', 'post'>> = {
  'HashiCorp Vault (token)': {
    name: 'OpenAI key in Vault',
    manager_type: 'hashicorp_vault',
    auth_config: { vault_addr: 'https://vault.example.com', token: 'hvs.…', mount: 'secret' },
    secret_path: 'llm/openai',
    secret_key: 'api_key',
  },
  'HashiCorp Vault (AppRole)': {
    name: 'OpenAI key in Vault',
    manager_type: 'hashicorp_vault',
    auth_config: { vault_addr: 'https://vault.example.com', role_id: '…', secret_id: '…', namespace: 'team-a', mount: 'secret' },
    secret_path: 'llm/openai',
    secret_key: 'api_key',
  },
  'AWS Secrets Manager': {
    name: 'OpenAI key in AWS',
    manager_type: 'aws_sm',
    auth_config: { region: 'eu-west-1', access_key_id: 'AKIA…', secret_access_key: '…' },
    secret_path: 'prod/openai',
    secret_key: 'api_key',
  },
  'Azure Key Vault': {
    name: 'OpenAI key in Azure',
    manager_type: 'azure_kv',
    auth_config: { vault_url: 'https://my-vault.vault.azure.net', tenant_id: '…', client_id: '…', client_secret: '…' },
    secret_path: 'openai-key',
  },
};
const MANAGERS: Record<string, string> = { aws_sm: 'AWS Secrets Manager', azure_kv: 'Azure Key Vault', hashicorp_vault: 'HashiCorp Vault' };

/**
 * "Test": fetches the secret now (`POST /v1/secret-references/{id}/test`) and shows its fingerprint, or
 * why it could not be read. The value itself never reaches the console.
 */
function TestButton({ reference }: { reference: SecretReference }) {
  const [result, setResult] = useState<TestResult | { ok: false; error: string; fingerprint: null }>();
  const [busy, setBusy] = useState(false);
  const test = async () => {
    setBusy(true);
    try {
      setResult(await unwrap(api.POST('/v1/secret-references/{id}/test', { params: { path: { id: reference.id } } })));
    } catch (err) {
      setResult({ ok: false, fingerprint: null, error: messageOf(err) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" onClick={test} disabled={busy} aria-label={`test ${reference.name}`}>
        {busy ? 'Testing…' : 'Test'}
      </button>
      {result && (
        <span role="status" class="test-result" data-testid="secret-test">
          {result.ok ? (
            <>
              <Badge tone="ok">ok</Badge> fingerprint <code>{result.fingerprint}</code>
            </>
          ) : (
            <>
              <Badge tone="bad">failed</Badge> {result.error}
            </>
          )}
        </span>
      )}
    </>
  );
}

/**
 * Secret references (organisation owners and admins): where a secret lives in AWS Secrets Manager,
 * Azure Key Vault or HashiCorp Vault. `auth_config` is write-only: the list shows its masked hints.
 */
export function SecretReferencesPage() {
  const first = Object.values(TEMPLATES)[0];
  return (
    <ResourceList<SecretReference>
      title="Secret references"
      noun="secret reference"
      crud={{
        // Organisation-wide: the chosen workspace does not filter them.
        list: ({ current_page, page_size }) => unwrap(api.GET('/v1/secret-references', { params: { query: { current_page, page_size } } })),
        create: (body) => unwrap(api.POST('/v1/secret-references', { body: body as BodyOf<'/v1/secret-references', 'post'> })),
        update: (id, body) =>
          unwrap(
            api.PUT('/v1/secret-references/{id}', { params: { path: { id } }, body: body as BodyOf<'/v1/secret-references/{id}', 'put'> }),
          ),
        remove: (id) => unwrap(api.DELETE('/v1/secret-references/{id}', { params: { path: { id } } })),
      }}
      columns={[
        {
          label: 'Name',
          cell: (r) => (
            <>
              {r.name}
              <br />
              <code>{r.slug}</code>
            </>
          ),
        },
        { label: 'Manager', cell: (r) => MANAGERS[r.manager_type] ?? r.manager_type },
        { label: 'Path', cell: (r) => <code>{r.secret_path + (r.secret_key ? `#${r.secret_key}` : '')}</code> },
        { label: 'Auth', cell: (r) => <Hints values={r.auth_config} /> },
        { label: 'Workspaces', cell: (r) => (r.allow_all_workspaces ? 'all' : r.allowed_workspaces.join(', ') || 'none') },
        { label: 'Updated', cell: (r) => <Time value={r.last_updated_at} /> },
      ]}
      template={first}
      templates={TEMPLATES}
      // auth_config is write-only: an update replaces it whole, so the editor leaves it out unless typed again.
      editable={(r) => ({
        name: r.name,
        secret_path: r.secret_path,
        secret_key: r.secret_key,
        allow_all_workspaces: r.allow_all_workspaces,
        allowed_workspaces: r.allowed_workspaces,
      })}
      rowActions={(r) => <TestButton reference={r} />}
      workspaceScoped={false}
    />
  );
}

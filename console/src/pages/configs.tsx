import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, messageOf, unwrap, type ErrorBody } from '../api/client';
import type { Config } from '../api/types';
import { JsonEditor, parseJson } from '../components/json-editor';
import { LinkedListPage } from '../components/paged-list';
import { DataTable, ErrorBanner, Field, JsonView, PageHeader, Section, Time, submit } from '../components/ui';
import { linkTo, navigate } from '../lib/router';
import { useLoad } from '../lib/use-load';
import { useApp } from '../session';

const EXAMPLE = {
  strategy: { mode: 'fallback' },
  targets: [
    { provider: 'openai', api_key: 'sk-…' },
    { provider: 'anthropic', api_key: 'sk-ant-…' },
  ],
};

/** Configs: the list (`/configs`), or one config's editor (`/configs/<id>`, `/configs/new`). */
export function ConfigsPage({ rest }: { rest: string }) {
  return rest ? <ConfigEditor id={rest === 'new' ? undefined : decodeURIComponent(rest)} /> : <ConfigList />;
}

function ConfigList() {
  return (
    <LinkedListPage<Config>
      title="Configs"
      base="/configs"
      newLabel="New config"
      fetch={(query) => unwrap(api.GET('/v1/configs', { params: { query } }))}
      columns={[
        { label: 'Name', cell: (c) => <a {...linkTo(`/configs/${c.id}`)}>{c.name}</a> },
        { label: 'Slug', cell: (c) => <code>{c.slug}</code> },
        { label: 'Version', numeric: true, cell: (c) => c.version },
        { label: 'Updated', cell: (c) => <Time value={c.updated_at} /> },
      ]}
    />
  );
}

/**
 * A config's JSON editor: saving sends it to the gateway, which validates it; a refusal names the JSON
 * path (`config.targets[0].retry.attempts`) and the editor selects that value. "Explain" asks the gateway
 * which target a request would take (`POST /v1/configs/explain`; nothing is called).
 */
function ConfigEditor({ id }: { id: string | undefined }) {
  const { workspace } = useApp();
  const existing = useLoad(
    () => (id ? unwrap(api.GET('/v1/configs/{id}', { params: { path: { id } } })) : Promise.resolve(undefined)),
    [id],
  );
  const versions = useLoad(
    () => (id ? unwrap(api.GET('/v1/configs/{id}/versions', { params: { path: { id } } })) : Promise.resolve(undefined)),
    [id],
  );
  const [name, setName] = useState('');
  const [text, setText] = useState(JSON.stringify(EXAMPLE, null, 2));
  const [error, setError] = useState<ErrorBody>();
  const [other, setOther] = useState<string>();
  const [saved, setSaved] = useState<string>();
  const [model, setModel] = useState('gpt-4o-mini');
  const [explained, setExplained] = useState<unknown>();

  const [edited, setEdited] = useState(false);
  useEffect(() => {
    // A load that lands after the user started typing does not overwrite their text.
    if (!existing.value || edited) return;
    setName(existing.value.name);
    setText(JSON.stringify(existing.value.config, null, 2));
  }, [existing.value]);
  const edit = (v: string) => {
    setEdited(true);
    setText(v);
  };

  const refused = (err: unknown) => {
    if (err instanceof ApiError && err.status === 400) setError(err.body);
    else setOther(messageOf(err));
  };
  const save = async () => {
    setError(undefined);
    setOther(undefined);
    setSaved(undefined);
    const parsed = parseJson(text);
    if (parsed.error) return setError(parsed.error);
    const config = parsed.value as Record<string, unknown>;
    try {
      if (id) {
        const out = await unwrap(api.PUT('/v1/configs/{id}', { params: { path: { id } }, body: { name: name.trim(), config } }));
        setSaved(`Saved version ${out.version}.`);
        existing.reload();
        versions.reload();
      } else {
        const out = await unwrap(
          api.POST('/v1/configs', { body: { name: name.trim(), config, ...(workspace ? { workspace_id: workspace } : {}) } }),
        );
        navigate(`/configs/${out.id}`, true);
      }
    } catch (err) {
      refused(err);
    }
  };
  const explain = async () => {
    setError(undefined);
    setOther(undefined);
    const parsed = parseJson(text);
    if (parsed.error) return setError(parsed.error);
    try {
      setExplained(
        await unwrap(api.POST('/v1/configs/explain', { body: { config: parsed.value as Record<string, unknown>, request: { model } } })),
      );
    } catch (err) {
      refused(err);
    }
  };

  return (
    <>
      <PageHeader title={id ? `Config ${existing.value?.name ?? ''}` : 'New config'}>
        <a {...linkTo('/configs')}>Back to configs</a>
      </PageHeader>
      <ErrorBanner error={existing.error ?? other} />
      <form class="card" onSubmit={submit(save)} aria-label="config editor">
        <Field label="Name">
          <input name="name" required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </Field>
        <JsonEditor label="Config (JSON)" value={text} onInput={edit} error={error} rows={20} />
        <div class="actions">
          <button type="submit" class="primary" disabled={!name.trim()}>
            {id ? 'Save new version' : 'Create config'}
          </button>
          {saved && (
            <span role="status" class="ok-text">
              {saved}
            </span>
          )}
        </div>
      </form>
      <Section title="Explain" id="explain">
        <form class="inline-form" onSubmit={submit(explain)} aria-label="explain">
          <Field label="Request model">
            <input name="model" value={model} onInput={(e) => setModel((e.target as HTMLInputElement).value)} />
          </Field>
          <button type="submit">Explain routing</button>
        </form>
        {explained !== undefined && <JsonView value={explained} />}
      </Section>
      {versions.value && (
        <Section title="Versions" id="versions">
          <DataTable
            caption="versions"
            rows={versions.value.data}
            rowKey={(v) => String(v.version)}
            columns={[
              { label: 'Version', numeric: true, cell: (v) => v.version },
              { label: 'Created', cell: (v) => <Time value={v.created_at} /> },
              {
                label: '',
                cell: (v) => (
                  <button type="button" onClick={() => setText(JSON.stringify(v.config, null, 2))}>
                    Load into editor
                  </button>
                ),
              },
            ]}
          />
        </Section>
      )}
    </>
  );
}

import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, messageOf, unwrap, type ErrorBody } from '../api/client';
import type { AnswerOf } from '../api/types';
import { JsonEditor, parseJson } from '../components/json-editor';
import { LinkedListPage } from '../components/paged-list';
import { DataTable, ErrorBanner, Field, JsonView, PageHeader, Section, Time, submit } from '../components/ui';
import { linkTo, navigate } from '../lib/router';
import { useLoad } from '../lib/use-load';
import { useApp } from '../session';

type Prompt = AnswerOf<'/v1/prompts/{promptId}', 'get'>;

/** Prompts: the list (`/prompts`), or one prompt with its versions and playground (`/prompts/<id>`, `/prompts/new`). */
export function PromptsPage({ rest }: { rest: string }) {
  return rest ? <PromptDetail id={rest === 'new' ? undefined : decodeURIComponent(rest)} /> : <PromptList />;
}

function PromptList() {
  return (
    <LinkedListPage<Prompt>
      title="Prompts"
      base="/prompts"
      newLabel="New prompt"
      fetch={(query) => unwrap(api.GET('/v1/prompts', { params: { query } })) as Promise<{ data: Prompt[]; total: number }>}
      columns={[
        { label: 'Name', cell: (p) => <a {...linkTo(`/prompts/${p.id}`)}>{p.name}</a> },
        { label: 'Slug', cell: (p) => <code>{p.slug}</code> },
        { label: 'Published', numeric: true, cell: (p) => p.published_version },
        { label: 'Latest', numeric: true, cell: (p) => p.latest_version },
        { label: 'Updated', cell: (p) => <Time value={p.updated_at} /> },
      ]}
    />
  );
}

/**
 * One prompt: edit the template (a save makes a new version), its versions with "publish", and a
 * playground that renders it (`POST /v1/prompts/{id}/render`) or runs it (`POST /v1/prompts/{id}/completions`).
 */
function PromptDetail({ id }: { id: string | undefined }) {
  const { workspace } = useApp();
  const prompt = useLoad(
    () => (id ? unwrap(api.GET('/v1/prompts/{promptId}', { params: { path: { promptId: id } } })) : Promise.resolve(undefined)),
    [id],
  );
  const versions = useLoad(
    () => (id ? unwrap(api.GET('/v1/prompts/{promptId}/versions', { params: { path: { promptId: id } } })) : Promise.resolve(undefined)),
    [id],
  );
  const [name, setName] = useState('');
  const [template, setTemplate] = useState('[{"role": "user", "content": "Say hello to {{name}}."}]');
  const [model, setModel] = useState('');
  const [vars, setVars] = useState('{\n  "name": "Ada"\n}');
  const [varsError, setVarsError] = useState<ErrorBody>();
  const [error, setError] = useState<string>();
  const [output, setOutput] = useState<unknown>();

  const [edited, setEdited] = useState(false);
  useEffect(() => {
    const p = prompt.value;
    // A load that lands after the user started typing does not overwrite their text.
    if (!p || edited) return;
    setName(p.name);
    setTemplate(p.string);
    setModel(p.model ?? '');
  }, [prompt.value]);

  const guard = async (fn: () => Promise<void>) => {
    setError(undefined);
    setVarsError(undefined);
    try {
      await fn();
    } catch (err) {
      if (err instanceof ApiError && err.status === 400 && /variables/.test(err.body.param ?? err.body.message)) setVarsError(err.body);
      else setError(messageOf(err));
    }
  };
  const save = () =>
    guard(async () => {
      if (id) {
        await unwrap(
          api.PUT('/v1/prompts/{promptId}', {
            params: { path: { promptId: id } },
            body: { name: name.trim(), string: template, ...(model ? { model } : {}) },
          }),
        );
        setEdited(false);
        prompt.reload();
        versions.reload();
      } else {
        const made = await unwrap(
          api.POST('/v1/prompts', {
            body: { name: name.trim(), string: template, ...(model ? { model } : {}), ...(workspace ? { workspace_id: workspace } : {}) },
          }),
        );
        navigate(`/prompts/${made.id}`, true);
      }
    });
  const publish = (version: number) =>
    guard(async () => {
      await unwrap(api.PUT('/v1/prompts/{promptId}/makeDefault', { params: { path: { promptId: id! } }, body: { version } }));
      prompt.reload();
      versions.reload();
    });
  const play = (mode: 'render' | 'run') =>
    guard(async () => {
      const parsed = parseJson(vars);
      if (parsed.error) return setVarsError(parsed.error);
      const body = { variables: parsed.value as Record<string, unknown> };
      setOutput(
        mode === 'render'
          ? await unwrap(api.POST('/v1/prompts/{promptId}/render', { params: { path: { promptId: id! } }, body }))
          : await unwrap(api.POST('/v1/prompts/{promptId}/completions', { params: { path: { promptId: id! } }, body })),
      );
    });

  return (
    <>
      <PageHeader title={id ? `Prompt ${prompt.value?.name ?? ''}` : 'New prompt'}>
        <a {...linkTo('/prompts')}>Back to prompts</a>
      </PageHeader>
      <ErrorBanner error={prompt.error ?? error} />
      <form class="card" onSubmit={submit(save)} aria-label="prompt editor">
        <Field label="Name">
          <input name="name" required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </Field>
        <Field label="Model" hint="Optional: the model the prompt runs with.">
          <input name="model" value={model} onInput={(e) => setModel((e.target as HTMLInputElement).value)} />
        </Field>
        <Field label="Template" hint="A JSON array of chat messages, or plain text; Mustache variables like {{name}}.">
          <textarea
            name="template"
            rows={8}
            spellcheck={false}
            value={template}
            onInput={(e) => (setEdited(true), setTemplate((e.target as HTMLTextAreaElement).value))}
          />
        </Field>
        <button type="submit" class="primary" disabled={!name.trim()}>
          {id ? 'Save new version' : 'Create prompt'}
        </button>
      </form>
      {id && (
        <Section title="Playground" id="playground">
          <JsonEditor label="Variables (JSON)" value={vars} onInput={setVars} error={varsError} rows={5} />
          <div class="actions">
            <button type="button" onClick={() => play('render')}>
              Render
            </button>
            <button type="button" class="primary" onClick={() => play('run')}>
              Run
            </button>
          </div>
          {output !== undefined && <JsonView value={output} />}
        </Section>
      )}
      {versions.value && (
        <Section title="Versions" id="versions">
          <DataTable
            caption="versions"
            rows={versions.value.data}
            rowKey={(v) => String(v.version)}
            columns={[
              { label: 'Version', numeric: true, cell: (v) => v.version },
              { label: 'Published', cell: (v) => (v.published ? 'yes' : '') },
              { label: 'Description', cell: (v) => v.version_description ?? '—' },
              { label: 'Created', cell: (v) => <Time value={v.created_at} /> },
              {
                label: '',
                cell: (v) => (
                  <span class="row-form">
                    <button type="button" onClick={() => setTemplate(v.string)}>
                      Load
                    </button>
                    {!v.published && (
                      <button type="button" onClick={() => publish(v.version)}>
                        Publish
                      </button>
                    )}
                  </span>
                ),
              },
            ]}
          />
        </Section>
      )}
    </>
  );
}

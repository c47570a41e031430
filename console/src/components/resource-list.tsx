import { useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { ApiError, messageOf, type ErrorBody } from '../api/client';
import { JsonEditor, parseJson } from './json-editor';
import { ConfirmRow, ErrorBanner, Field, PageHeader, Section, submit, type Column } from './ui';
import { PagedTable, usePaged, type PageQuery } from './paged-list';
import { useApp } from '../session';

/** How a page reaches one admin resource through the typed client. */
export interface Crud<T> {
  list(page: PageQuery): Promise<{ data: T[]; total: number }>;
  create(body: unknown): Promise<unknown>;
  update(id: string, body: unknown): Promise<unknown>;
  remove(id: string): Promise<unknown>;
}

/**
 * A declared admin resource as a page: its list (server-paged), and a JSON editor that creates a row
 * or updates the chosen one — the gateway validates the body and a refusal shows its JSON path. Lists
 * reload in place after every write.
 */
export function ResourceList<T extends { id: string; name?: string | null }>({
  title,
  noun,
  crud,
  columns,
  template,
  editable,
  extra,
  extraLabel = 'Details',
  templates,
  rowActions,
  canEdit = true,
  workspaceScoped = true,
  intro,
}: {
  title: string;
  noun: string;
  crud: Crud<T>;
  columns: Column<T>[];
  /** The body a new row starts from. */
  template: unknown;
  /** The part of a row its update body may carry. */
  editable(row: T): unknown;
  /** More per-row content below the table (e.g. usage of the chosen policy). */
  extra?: (row: T) => ComponentChildren;
  /** The label of the button that shows `extra` (default "Details"). */
  extraLabel?: string;
  /** Named bodies a new row may start from (e.g. one per manager type); the first is `template`'s alternative. */
  templates?: Record<string, unknown>;
  /** More buttons of a row (e.g. "Test"). */
  rowActions?: (row: T) => ComponentChildren;
  /** Whether rows have an "Edit" button (a resource without update: false). */
  canEdit?: boolean;
  /** Whether a new row belongs to the chosen workspace (its body gets `workspace_id`); false for organisation-wide resources. */
  workspaceScoped?: boolean;
  /** Text under the title (what the resource is, what a body may name). */
  intro?: ComponentChildren;
}) {
  const { workspace } = useApp();
  const [editing, setEditing] = useState<T | null>(null);
  const [text, setText] = useState(JSON.stringify(template, null, 2));
  const [error, setError] = useState<ErrorBody>();
  const [other, setOther] = useState<string>();
  const [selected, setSelected] = useState<T>();
  const [removing, setRemoving] = useState<string>();
  const list = usePaged(crud.list);

  const [start, setStart] = useState(templates ? Object.keys(templates)[0] : undefined);
  const edit = (row: T | null) => {
    setEditing(row);
    if (templates) setStart(Object.keys(templates)[0]);
    setError(undefined);
    setText(JSON.stringify(row ? editable(row) : template, null, 2));
  };
  const save = async () => {
    setError(undefined);
    setOther(undefined);
    const parsed = parseJson(text);
    if (parsed.error) return setError(parsed.error);
    try {
      if (editing) await crud.update(editing.id, parsed.value);
      else
        await crud.create(
          workspaceScoped && workspace && typeof parsed.value === 'object' && parsed.value !== null && !('workspace_id' in parsed.value)
            ? { ...parsed.value, workspace_id: workspace }
            : parsed.value,
        );
      edit(null);
      list.reload();
    } catch (err) {
      if (err instanceof ApiError && err.status === 400) setError(err.body);
      else setOther(messageOf(err));
    }
  };
  const remove = async (row: T) => {
    setOther(undefined);
    try {
      await crud.remove(row.id);
      setRemoving(undefined);
      list.reload();
    } catch (err) {
      setOther(messageOf(err));
    }
  };

  const actions: Column<T> = {
    label: 'Actions',
    cell: (row) =>
      removing === row.id ? (
        <ConfirmRow label="Confirm delete" onConfirm={() => remove(row)} onCancel={() => setRemoving(undefined)} />
      ) : (
        <span class="row-form">
          {canEdit && (
            <button type="button" onClick={() => edit(row)} aria-label={`edit ${row.name ?? row.id}`}>
              Edit
            </button>
          )}
          {extra && (
            <button
              type="button"
              onClick={() => setSelected(selected?.id === row.id ? undefined : row)}
              aria-pressed={selected?.id === row.id}
            >
              {extraLabel}
            </button>
          )}
          {rowActions?.(row)}
          <button type="button" class="danger" onClick={() => setRemoving(row.id)} aria-label={`delete ${row.name ?? row.id}`}>
            Delete
          </button>
        </span>
      ),
  };

  return (
    <>
      <PageHeader title={title}>
        <button type="button" onClick={list.reload}>
          Refresh
        </button>
      </PageHeader>
      {intro}
      <ErrorBanner error={other} />
      <PagedTable list={list} caption={title} rowKey={(r) => r.id} columns={[...columns, actions]} />
      {selected && extra && (
        <Section title={`${selected.name ?? selected.id}`} id="details">
          {extra(selected)}
        </Section>
      )}
      <Section title={editing ? `Edit ${noun} ${editing.name ?? editing.id}` : `New ${noun}`} id="editor">
        <form onSubmit={submit(save)} aria-label={`${noun} editor`}>
          {templates && !editing && (
            <Field label="Start from">
              <select
                name="template"
                value={start}
                onChange={(e) => {
                  const key = (e.target as HTMLSelectElement).value;
                  setStart(key);
                  setError(undefined);
                  setText(JSON.stringify(templates[key] ?? template, null, 2));
                }}
              >
                {Object.keys(templates).map((k) => (
                  <option value={k}>{k}</option>
                ))}
              </select>
            </Field>
          )}
          <JsonEditor label={`${noun} (JSON)`} value={text} onInput={setText} error={error} />
          <div class="actions">
            <button type="submit" class="primary">
              {editing ? 'Save' : 'Create'}
            </button>
            {editing && (
              <button type="button" onClick={() => edit(null)}>
                Cancel
              </button>
            )}
          </div>
        </form>
      </Section>
    </>
  );
}

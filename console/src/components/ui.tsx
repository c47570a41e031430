import type { ComponentChildren, JSX } from 'preact';

/** An error line, announced to screen readers. */
export function ErrorBanner({ error }: { error: string | undefined }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error}
    </p>
  );
}

/** A page's title and its actions. */
export function PageHeader({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <header class="page-header">
      <h1>{title}</h1>
      <div class="actions">{children}</div>
    </header>
  );
}

/** A titled block of a page. */
export function Section({ title, children, id }: { title: string; children: ComponentChildren; id?: string }) {
  return (
    <section class="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/** One column of a `DataTable`. */
export interface Column<T> {
  label: string;
  cell(row: T): ComponentChildren;
  /** Right-aligned numbers. */
  numeric?: boolean;
}

/** A table of rows (scrolls sideways on a phone); `empty` shows when there are none. */
export function DataTable<T>({
  rows,
  columns,
  rowKey,
  empty = 'Nothing yet.',
  caption,
}: {
  rows: T[];
  columns: Column<T>[];
  rowKey(row: T): string;
  empty?: string;
  caption?: string;
}) {
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={caption ?? 'table'}>
      <table>
        {caption && <caption>{caption}</caption>}
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" class={c.numeric ? 'num' : undefined}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length} class="muted">
                {empty}
              </td>
            </tr>
          ) : (
            rows.map((r) => (
              <tr key={rowKey(r)}>
                {columns.map((c) => (
                  <td class={c.numeric ? 'num' : undefined}>{c.cell(r)}</td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}

/** Server-side paging: `current_page` from 0 and the list's `total`. */
export function Pager({ page, pageSize, total, onPage }: { page: number; pageSize: number; total: number; onPage(page: number): void }) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  return (
    <nav class="pager" aria-label="pages">
      <button type="button" disabled={page <= 0} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {page + 1} of {pages} · {total} in all
      </span>
      <button type="button" disabled={page + 1 >= pages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}

/** A labelled form control. */
export function Field({ label, children, hint }: { label: string; children: ComponentChildren; hint?: string }) {
  return (
    <label class="field">
      <span>{label}</span>
      {children}
      {hint && <small class="muted">{hint}</small>}
    </label>
  );
}

/** An ISO time in the reader's locale (with the ISO text as its tooltip). */
export function Time({ value }: { value: string | null | undefined }) {
  if (!value) return <span class="muted">—</span>;
  return (
    <time dateTime={value} title={value}>
      {new Date(value).toLocaleString()}
    </time>
  );
}

/** The second step of a destructive row action: the confirming button and Cancel. */
export function ConfirmRow({ label, onConfirm, onCancel }: { label: string; onConfirm(): void; onCancel(): void }) {
  return (
    <span class="row-form">
      <button type="button" class="danger" onClick={onConfirm}>
        {label}
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </span>
  );
}

/** A status pill. */
export function Badge({ tone, children }: { tone: 'ok' | 'warn' | 'bad' | 'neutral'; children: ComponentChildren }) {
  return <span class={`badge ${tone}`}>{children}</span>;
}

/** Pretty JSON in a scrollable block. */
export function JsonView({ value }: { value: unknown }) {
  return <pre class="json">{JSON.stringify(value, null, 2)}</pre>;
}

/** `onSubmit` that does not reload the page. */
export function submit(fn: () => void): JSX.GenericEventHandler<HTMLFormElement> {
  return (e) => {
    e.preventDefault();
    fn();
  };
}

/** Write-only values by their masked hints (`name: hint, …`), wrapping inside a table cell; "—" when there are none. */
export function Hints({ values }: { values: Record<string, string> }) {
  const entries = Object.entries(values);
  if (entries.length === 0) return <span class="muted">—</span>;
  return <code class="hints">{entries.map(([k, v]) => `${k}: ${v}`).join(', ')}</code>;
}

import { useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { DataTable, ErrorBanner, PageHeader, Pager, type Column } from './ui';
import { linkTo } from '../lib/router';
import { useLoad, type Load } from '../lib/use-load';
import { useApp } from '../session';

/** Rows per page of every server-paged list. */
export const PAGE_SIZE = 50;

/** The query of one page of a list, in the chosen workspace (none: the user's default scope). */
export interface PageQuery {
  current_page: number;
  page_size: number;
  workspace_id?: string;
}

/** A server-paged list: its load, the page shown and how to change it. */
export interface Paged<T> extends Load<{ data: T[]; total: number }> {
  page: number;
  setPage(page: number): void;
}

/** Loads one page of a list (`current_page`, `page_size`, the chosen workspace); reloads when they change. */
export function usePaged<T>(fetch: (query: PageQuery) => Promise<{ data: T[]; total: number }>, deps: unknown[] = []): Paged<T> {
  const { workspace } = useApp();
  const [page, setPage] = useState(0);
  const list = useLoad(
    () => fetch({ current_page: page, page_size: PAGE_SIZE, ...(workspace ? { workspace_id: workspace } : {}) }),
    [page, workspace, ...deps],
  );
  return { ...list, page, setPage };
}

/** The table of a paged list with its pager (and the list's error). */
export function PagedTable<T>({
  list,
  caption,
  columns,
  rowKey,
  empty,
}: {
  list: Paged<T>;
  caption: string;
  columns: Column<T>[];
  rowKey(row: T): string;
  empty?: string;
}) {
  return (
    <>
      <ErrorBanner error={list.error} />
      {list.value && (
        <>
          <DataTable<T> caption={caption} rows={list.value.data} rowKey={rowKey} columns={columns} empty={empty} />
          <Pager page={list.page} pageSize={PAGE_SIZE} total={list.value.total} onPage={list.setPage} />
        </>
      )}
    </>
  );
}

/**
 * A list page whose rows open their own editor page (configs, prompts): the title, a "New …" link to
 * `<base>/new` and the paged table.
 */
export function LinkedListPage<T extends { id: string }>({
  title,
  base,
  newLabel,
  fetch,
  columns,
  children,
}: {
  title: string;
  base: string;
  newLabel: string;
  fetch: (query: PageQuery) => Promise<{ data: T[]; total: number }>;
  columns: Column<T>[];
  children?: ComponentChildren;
}) {
  const list = usePaged(fetch);
  return (
    <>
      <PageHeader title={title}>
        <a class="button primary" {...linkTo(`${base}/new`)}>
          {newLabel}
        </a>
      </PageHeader>
      {children}
      <PagedTable list={list} caption={title.toLowerCase()} rowKey={(r) => r.id} columns={columns} />
    </>
  );
}

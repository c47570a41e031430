import { useEffect, useState } from 'preact/hooks';

/** The console's base path (Vite `base`). */
export const BASE = '/console';

/** The current route: the path under `/console` (e.g. `/logs/123`) and its query. */
export interface Route {
  path: string;
  query: URLSearchParams;
}

function current(): Route {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) || '/' : '/';
  return { path, query: new URLSearchParams(location.search) };
}

const listeners = new Set<() => void>();
addEventListener('popstate', () => listeners.forEach((l) => l()));

/** Goes to a console path (history API; the gateway serves index.html for every client route). */
export function navigate(path: string, replace = false): void {
  const url = BASE + path;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  listeners.forEach((l) => l());
  window.scrollTo(0, 0);
}

/** The current route, re-rendered on navigation. */
export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const update = () => setRoute(current());
    listeners.add(update);
    return () => listeners.delete(update);
  }, []);
  return route;
}

/** Props of an in-app link: a real `href` (open in new tab works) that navigates without reloading. */
export function linkTo(path: string) {
  return {
    href: BASE + path,
    onClick(e: MouseEvent) {
      if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      navigate(path);
    },
  };
}

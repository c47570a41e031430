import { useCallback, useEffect, useState } from 'preact/hooks';
import { messageOf } from '../api/client';

/** The state of a load: its value, its error text, whether it runs, and `reload`. */
export interface Load<T> {
  value?: T;
  error?: string;
  loading: boolean;
  reload(): void;
}

/** Runs `fn` when `deps` change (and on `reload`); a later run wins over an earlier one. */
export function useLoad<T>(fn: () => Promise<T>, deps: unknown[]): Load<T> {
  const [state, setState] = useState<{ value?: T; error?: string; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    fn().then(
      (value) => live && setState({ value, loading: false }),
      (err: unknown) => live && setState({ error: messageOf(err), loading: false }),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Session } from './api/types';

/** What every page knows: the signed-in session, the chosen workspace (null: the user's default) and how to change it. */
export interface AppState {
  session: Session;
  workspace: string | null;
  setWorkspace(id: string | null): void;
  signOut(): void;
}

export const AppContext = createContext<AppState | null>(null);

/** The app state (pages render only when signed in). */
export function useApp(): AppState {
  const s = useContext(AppContext);
  if (!s) throw new Error('useApp outside the signed-in shell');
  return s;
}

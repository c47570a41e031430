import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, dropPostgresSchema, type Store } from '../../src/infra/store/store.js';
import { randomId } from '../../src/foundation/lib/ids.js';
import { PG_URL } from './gateway.js';
import { builtRequestLogThread } from './processes.js';

/** A store under test and how to throw it away. */
export interface StoreHandle {
  store: Store;
  dispose(): Promise<void>;
}

/**
 * The store implementations every store test runs against (conformance): SQLite in a temporary
 * file and PostgreSQL in a schema of its own.
 */
export const STORE_KINDS: Array<{ name: 'sqlite' | 'postgres'; open(): Promise<StoreHandle> }> = [
  {
    name: 'sqlite',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'gw-store-'));
      const path = join(dir, 'gateway.db');
      // As the built gateway does: the request log is written by its own thread.
      const store = await openStore({ kind: 'sqlite', path, requestLogThread: builtRequestLogThread(path) });
      return {
        store,
        dispose: async () => {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'postgres',
    async open() {
      const schema = `t_${randomId(12).toLowerCase()}`;
      const store = await openStore({ kind: 'postgres', url: PG_URL, schema });
      return {
        store,
        dispose: async () => {
          await store.close();
          await dropPostgresSchema(PG_URL, schema);
        },
      };
    },
  },
];

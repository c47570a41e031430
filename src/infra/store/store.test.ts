import { describe, expect, it } from 'vitest';
import type { MigrationResult } from 'kysely';
import { isOtherSchemaChange } from './store.js';

const pg = { kind: 'postgres', url: 'postgres://127.0.0.1/test', schema: 't_mine' } as const;
const err = (message: string) => new Error(message);
const failedOurs: MigrationResult[] = [{ migrationName: '0014-tenancy', direction: 'Up', status: 'Error' }];

describe('isOtherSchemaChange (which failed migration runs are read again)', () => {
  it("retries when another schema's table or the schema itself went away during introspection", () => {
    expect(isOtherSchemaChange(err('schema "t_other" does not exist'), undefined, pg)).toBe(true);
    expect(isOtherSchemaChange(err('relation "t_other.workspaces" does not exist'), undefined, pg)).toBe(true);
    // Our own schema gone is not someone else's change.
    expect(isOtherSchemaChange(err('schema "t_mine" does not exist'), undefined, pg)).toBe(false);
  });

  it('retries a column dropped meanwhile (pg_get_serial_sequence in the introspection) only when no migration of ours failed', () => {
    const dropped = err('column "completion_tokens" of relation "request_logs" does not exist');
    expect(isOtherSchemaChange(dropped, undefined, pg)).toBe(true);
    expect(isOtherSchemaChange(dropped, [{ migrationName: '0001-core', direction: 'Up', status: 'NotExecuted' }], pg)).toBe(true);
    expect(isOtherSchemaChange(dropped, failedOurs, pg)).toBe(false);
  });

  it('never retries other errors, nor on SQLite', () => {
    expect(isOtherSchemaChange(err('syntax error at or near "x"'), undefined, pg)).toBe(false);
    expect(isOtherSchemaChange(err('column "x" of relation "y" does not exist'), undefined, { kind: 'sqlite', path: ':memory:' })).toBe(
      false,
    );
  });
});

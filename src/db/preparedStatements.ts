// Named prepared statements for the hot paths. PostgreSQL plans an unnamed statement on every
// execution; a single-record write spent about a third of its database time planning four
// statements (bench/RESULTS.md). A statement that opts in with `.options(PREPARED)` is sent
// under a name derived from its text, so each pooled connection parses it once and PostgreSQL
// may keep its plan. Opt in only where the SQL text has a fixed shape (lists as one array
// parameter): every distinct text is one more statement kept per connection.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Knex } from 'knex';

/** Pass to `.options()` of a query builder or raw statement. */
export const PREPARED = Object.freeze({ prepare: true });

interface QueryObject {
  sql?: string;
  options?: Record<string, unknown>;
}

type PgClientClass = new (
  config: Knex.Config,
) => {
  _query(connection: unknown, obj: QueryObject): Promise<unknown>;
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<unknown>;
};

// Knex's own PostgreSQL client; `client:` in the Knex config accepts a subclass of it.
const KnexPgClient = createRequire(import.meta.url)('knex/lib/dialects/postgres/index.js') as PgClientClass;

// Statement texts that opt in have fixed shapes, so there are few of them: their names are kept
// rather than hashed on every execution (1.5 % of a single-record write's CPU, bench/RESULTS.md).
const names = new Map<string, string>();
function nameOf(sql: string): string {
  let name = names.get(sql);
  if (name === undefined) {
    name = `mdns_${createHash('sha1').update(sql).digest('hex').slice(0, 32)}`;
    names.set(sql, name);
  }
  return name;
}

export class PreparingPgClient extends KnexPgClient {
  override _query(connection: unknown, obj: QueryObject) {
    if (obj.options?.prepare && obj.sql) {
      const { prepare: _, ...rest } = obj.options;
      obj.options = { ...rest, name: nameOf(obj.sql) };
    }
    return super._query(connection, obj);
  }
}

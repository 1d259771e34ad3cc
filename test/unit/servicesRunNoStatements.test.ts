// Services, the background features, the lab and the maintenance loop run no statement of their
// own (docs/architecture.md): every query lives in src/db/repositories/. This scans their sources
// for statement-building calls on a database handle, which the Knex import rule alone does not
// catch (a handle arrives typed).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const SCANNED = [
  ...['services', 'publication', 'dnssec', 'rdns', 'dyndns', 'webhooks', 'catalog', 'lab', 'jobs'].map((dir) => join(ROOT, 'src', dir)),
  join(ROOT, 'src', 'maintenance.ts'),
];

// A statement starts on a handle (`trx(`, `db(`, `scoped.from(`, `.fromAncestry(`, `.raw(`), or
// is built by a query method on a chain (`.where(`, `.whereIn(`, `.insert(` on a handle …).
const STATEMENT = [
  /\b(trx|db|knex|tx)\s*\(\s*['"`]/,
  /\b(trx|db|knex|tx)\.(raw|with|from|select)\s*\(/,
  /\bscoped\.(from|fromAncestry|insert)\s*\(/,
  /\.(where|whereIn|whereNot|whereNotIn|whereRaw|whereNull|whereNotNull|orWhere|andWhere|orderBy|groupBy|pluck|distinct|forUpdate|forNoKeyUpdate|returning|onConflict)\s*\(/,
  /\.(insert|del|delete)\s*\(\s*[{[]/,
  /\.update\s*\(\s*\{/,
];

const sources = (path: string): string[] =>
  path.endsWith('.ts')
    ? [path]
    : readdirSync(path, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? sources(join(path, e.name)) : e.name.endsWith('.ts') ? [join(path, e.name)] : [],
      );

describe('services and features run no statements', () => {
  it('builds no query outside src/db', () => {
    const found: string[] = [];
    for (const file of SCANNED.flatMap(sources)) {
      const path = relative(ROOT, file).split('\\').join('/');
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (STATEMENT.some((re) => re.test(line))) found.push(`${path}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });

  it('catches a statement', () => {
    for (const line of ["await ctx.db('zones').where('id', id)", "scoped.from('records')", 'ctx.db.raw(`x`)', "q.whereIn('kind', kinds)"]) {
      expect(
        STATEMENT.some((re) => re.test(line)),
        line,
      ).toBe(true);
    }
  });
});

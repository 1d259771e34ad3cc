// Services run no statement of their own (docs/architecture.md, src/services): every query lives
// in src/db/repositories/. This scans the service sources for statement-building calls on a
// database handle, which the Knex import rule alone does not catch (a handle arrives typed).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const SERVICES = join(ROOT, 'src', 'services');

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

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));

describe('services run no statements', () => {
  it('builds no query outside src/db', () => {
    const found: string[] = [];
    for (const file of sources(SERVICES)) {
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

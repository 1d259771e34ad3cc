// Services take their database one way (docs/architecture.md, src/services): a DbContext for
// reads, the WriteContext (a DbContext in a transaction, plus who and when) for writes. This scans
// the parameter lists of the exported service functions for half a context: the tenant scope or
// a runner on its own. A bare Pool or Transaction stays allowed: work with no acting tenant (the
// whole key ring, the backend quota, the platform's bootstrap, global name locks) and the
// functions that build a context from a transaction.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const SERVICES = join(ROOT, 'src', 'services');
const HALF_A_CONTEXT = /\b(ScopedDb|Runner)\b/;
const EXPORTED = /^export (?:async )?(?:function\s+(\w+)\s*(?:<[^(]*>)?\(|const\s+(\w+)\s*=\s*(?:async\s*)?(?:<[^(]*>)?\()/gm;

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));

/** The text between the parenthesis at `open` and its match. */
function parameterList(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return text.slice(open + 1, i);
  }
  return text.slice(open + 1);
}

/** `name: parameters` of every exported function (declared or an arrow constant) in `text`. */
const exportedSignatures = (text: string): string[] =>
  [...text.matchAll(EXPORTED)].map((m) => `${m[1] ?? m[2]}(${parameterList(text, m.index + m[0].length - 1)})`);

describe('services take one context', () => {
  it('no exported service function takes a ScopedDb or a Runner on its own', () => {
    const found: string[] = [];
    for (const file of sources(SERVICES)) {
      const path = relative(ROOT, file).split('\\').join('/');
      for (const signature of exportedSignatures(readFileSync(file, 'utf8'))) {
        if (HALF_A_CONTEXT.test(signature)) found.push(`${path}: ${signature.replace(/\s+/g, ' ')}`);
      }
    }
    expect(found).toEqual([]);
  });

  it('reads the parameter lists it checks', () => {
    const text = [
      'export async function getThing(scoped: ScopedDb, id: string) {}',
      'export const listThings = async (db: Runner, filter: { a?: (x: number) => void }) => [];',
      'export function okThing(ctx: DbContext, id: string) {}',
    ].join('\n');
    expect(exportedSignatures(text).filter((s) => HALF_A_CONTEXT.test(s))).toEqual([
      'getThing(scoped: ScopedDb, id: string)',
      'listThings(db: Runner, filter: { a?: (x: number) => void })',
    ]);
  });
});

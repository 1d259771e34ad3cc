// A user who clones the repository must find the interface reference inside it: every link and
// file path in README.md and docs/*.md resolves to a file of this repository, none points above
// it, and the README leads to the overview (docs/api.md), the OpenAPI document and /docs.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const pages = [
  'README.md',
  ...fs
    .readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Markdown link targets, and code spans that look like a relative path (`../x/y.md`, `docs/x.md`). */
function referencesOf(markdown: string): string[] {
  const links = [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
  const spans = [...markdown.matchAll(/`(\.{1,2}\/[^`\s]+|[\w-]+\/[\w./-]+\.md)`/g)].map((m) => m[1]!);
  // ./.data is DATA_DIR's default: made by the first start, absent from a fresh clone.
  return [...links, ...spans].filter((ref) => !/^(https?:|mailto:|#)/.test(ref) && !/^\.\/\.data\b/.test(ref));
}

describe('README.md and docs/', () => {
  it.each(pages)('%s refers only to files inside the repository', (page) => {
    const text = fs.readFileSync(path.join(root, page), 'utf8');
    expect(text).not.toMatch(/\.\.\/shared\b/);
    for (const ref of referencesOf(text)) {
      const target = path.resolve(path.dirname(path.join(root, page)), ref.split('#')[0]!);
      expect(path.relative(root, target).startsWith('..'), `${page}: ${ref} points outside the repository`).toBe(false);
      expect(fs.existsSync(target), `${page}: ${ref} does not exist`).toBe(true);
    }
  });

  it('README leads to the interface reference of this repository', () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    expect(readme).toContain('](docs/api.md)');
    expect(readme).toContain('/api/v1/openapi.json');
    expect(readme).toMatch(/\/docs\b/);
    const overview = fs.readFileSync(path.join(root, 'docs/api.md'), 'utf8');
    for (const topic of ['Authentication', 'Acting for a customer', 'Errors', 'Pagination', 'Idempotency', 'ETags', 'Rate limits', 'Resources']) {
      expect(overview, topic).toMatch(new RegExp(`^## ${topic}`, 'm'));
    }
  });
});

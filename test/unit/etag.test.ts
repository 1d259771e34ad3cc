import { describe, expect, it } from 'vitest';
import { assertIfMatch, etagOf, noneMatch } from '../../src/api/etag.js';
import { DomainError } from '../../src/domain/errors.js';

describe('ETags', () => {
  const a = { id: 'x', limits: { b: 1, a: 2 } };
  it('does not depend on key order, and changes with the content', () => {
    expect(etagOf(a)).toBe(etagOf({ limits: { a: 2, b: 1 }, id: 'x' }));
    expect(etagOf(a)).not.toBe(etagOf({ ...a, id: 'y' }));
    expect(etagOf(a)).toMatch(/^"[A-Za-z0-9_-]+"$/);
  });

  it('matches If-None-Match weakly, lists and *', () => {
    const tag = etagOf(a);
    expect(noneMatch(tag, tag)).toBe(true);
    expect(noneMatch(`W/${tag}`, tag)).toBe(true);
    expect(noneMatch(`"other", ${tag}`, tag)).toBe(true);
    expect(noneMatch('*', tag)).toBe(true);
    expect(noneMatch('"other"', tag)).toBe(false);
    expect(noneMatch(null, tag)).toBe(false);
  });

  it('matches If-Match strongly and throws 412 otherwise', () => {
    const tag = etagOf(a);
    expect(() => assertIfMatch(tag, a)).not.toThrow();
    expect(() => assertIfMatch(null, a)).not.toThrow();
    expect(() => assertIfMatch('*', a)).not.toThrow();
    for (const bad of [`W/${tag}`, '"stale"']) {
      try {
        assertIfMatch(bad, a);
        expect.unreachable();
      } catch (e) {
        expect((e as DomainError).code).toBe('precondition_failed');
      }
    }
  });
});

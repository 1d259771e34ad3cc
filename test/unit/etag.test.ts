import { describe, expect, it } from 'vitest';
import { assertIfMatch, etagOf } from '../../src/api/etag.js';
import type { DomainError } from '../../src/domain/errors.js';
import { ifMatchSatisfied, noneMatch, rowEtag } from '../../src/domain/model/etag.js';

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

describe('row ETags (zones and records: the stored version)', () => {
  it('is a function of id and version only: equal for equal rows, different for another version or row', () => {
    expect(rowEtag('rec_a', 1)).toBe(rowEtag('rec_a', 1));
    expect(rowEtag('rec_a', 2)).not.toBe(rowEtag('rec_a', 1));
    expect(rowEtag('rec_b', 1)).not.toBe(rowEtag('rec_a', 1));
    // The separator keeps ("rec_a1", 1) and ("rec_a", 11) apart.
    expect(rowEtag('rec_a1', 1)).not.toBe(rowEtag('rec_a', 11));
    // A strong tag (RFC 9110 §8.8.3: a quoted string, no W/ prefix) of URL-safe characters.
    expect(rowEtag('zon_x', 7)).toMatch(/^"[A-Za-z0-9_.-]+"$/);
  });

  it('If-Match and item if_match: absent and * hold, lists match strongly, weak tags never', () => {
    const tag = rowEtag('rec_a', 3);
    expect(ifMatchSatisfied(undefined, tag)).toBe(true);
    expect(ifMatchSatisfied(null, tag)).toBe(true);
    expect(ifMatchSatisfied('*', tag)).toBe(true);
    expect(ifMatchSatisfied(tag, tag)).toBe(true);
    expect(ifMatchSatisfied(`"other", ${tag}`, tag)).toBe(true);
    expect(ifMatchSatisfied(`W/${tag}`, tag)).toBe(false);
    expect(ifMatchSatisfied(rowEtag('rec_a', 2), tag)).toBe(false);
  });
});

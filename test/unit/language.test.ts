import { describe, expect, it } from 'vitest';
import { negotiateLanguage } from '../../src/api/language.js';
import { localise } from '../../src/domain/errors.js';

describe('negotiateLanguage', () => {
  it.each([
    [undefined, 'en'],
    ['de', 'de'],
    ['de-CH', 'de'],
    ['fr, de;q=0.5', 'de'],
    ['en;q=0.4, de;q=0.8', 'de'],
    ['de;q=0, en', 'en'],
    ['fr', 'en'],
    ['*', 'en'],
    ['garbage;;q=x', 'en'],
  ])('%s → %s', (header, expected) => {
    expect(negotiateLanguage(header)).toBe(expected);
  });
});

describe('localise', () => {
  it('fills placeholders and leaves unknown ones empty', () => {
    expect(localise('insufficient_scope', 'de', { scopes: 'zones:read' })).toEqual({
      status: 403,
      title: 'Unzureichende Berechtigung',
      detail: 'Diese Operation benötigt die Berechtigung(en) zones:read, die das Token nicht hat.',
    });
    expect(localise('unauthenticated', 'en', {}).detail).not.toContain('{reason}');
  });
});

// Every problem a German-speaking client can get, rendered in German: every code of the catalogue,
// with every reason its generic codes can carry and every noun `not_found` can name. A text that
// still contains English (a forgotten translation, an English reason pasted into a German
// template, an English noun after a German article) or a placeholder nobody filled fails here.
import { describe, expect, it } from 'vitest';
import {
  declineGerman,
  errorCatalogue,
  type ErrorCode,
  type ErrorParams,
  localise,
  problemReasons,
  type ProblemReason,
  resourceNouns,
  type ResourceNoun,
} from '../../src/domain/errors.js';

const codes = Object.keys(errorCatalogue) as ErrorCode[];
const reasons = Object.keys(problemReasons) as ProblemReason[];
const nouns = Object.keys(resourceNouns) as ResourceNoun[];

const placeholdersOf = (s: string) => [...s.matchAll(/\{(\w+)(?::\w+:\w+)?\}/g)].map((m) => m[1]!);

/** A value no language has a word for, so it can be found in the output and never looks English. */
const sample = (name: string) => `«${name}»`;

/** Every combination of params a code's templates can be filled with. */
function paramSets(code: ErrorCode): ErrorParams[] {
  const { detail } = errorCatalogue[code];
  const names = new Set([...placeholdersOf(detail.en), ...placeholdersOf(detail.de)]);
  const plain: ErrorParams = {};
  for (const name of names) if (name !== 'reason' && name !== 'resource') plain[name] = sample(name);
  let sets: ErrorParams[] = [plain];
  if (names.has('reason')) {
    sets = reasons.map((reason) => {
      const own: ErrorParams = { ...plain, reason };
      for (const name of placeholdersOf(problemReasons[reason].en + problemReasons[reason].de)) own[name] = sample(name);
      return own;
    });
  }
  if (names.has('resource')) sets = sets.flatMap((s) => nouns.map((resource) => ({ ...s, resource })));
  return sets;
}

// Words of the English texts that German shares: protocol and header names, identifiers, loanwords
// German uses as they are. Everything else of the English vocabulary must not appear in German.
const SHARED_WORDS = new Set([
  'API',
  'Authorization',
  'Bearer',
  'DNSSEC',
  'ETag',
  'GET',
  'Idempotency-Key',
  'JSON',
  'NS',
  'SOA',
  'Zone',
  'Token',
  'Multipart',
  'Apex-NS',
  'Reseller',
  'Plattform',
  'errors',
  'me',
  'Nameserver',
  'Client',
  'API-Client',
  'token',
  'CNAME',
]);
// English words that mark a sentence as English even when the English texts above lack them: function
// words in any case, and nouns written small (German capitalises its nouns: "Zone", never "zone").
const ENGLISH_WORDS = [
  'the',
  'is',
  'are',
  'was',
  'has',
  'have',
  'been',
  'not',
  'no',
  'of',
  'to',
  'for',
  'with',
  'and',
  'or',
  'this',
  'that',
  'there',
  'here',
  'be',
  'it',
  'its',
  'can',
  'cannot',
  'may',
  'only',
  'already',
  'exists',
  'known',
  'unknown',
  'found',
  'later',
  'retry',
  'try',
  'please',
  'yet',
  'being',
  'deleted',
  'other',
  'one',
  'send',
  'use',
  'invalid',
];
const ENGLISH_NOUNS = ['zone', 'record', 'records', 'template', 'tenant', 'client', 'resource', 'change', 'set', 'request', 'body', 'user', 'customer'];

/** The words of the English texts (case kept: "Zone" and "zone" are different findings). */
const englishVocabulary = new Set(
  [
    ...codes.flatMap((c) => [errorCatalogue[c].title.en, errorCatalogue[c].detail.en]),
    ...reasons.map((r) => problemReasons[r].en),
    ...nouns.map((n) => resourceNouns[n].en),
  ]
    .flatMap((text) => wordsOf(text))
    .filter((w) => w.length >= 3 && !SHARED_WORDS.has(w)),
);

function wordsOf(text: string): string[] {
  return (
    text
      // Quoted literals ("Bearer <token>") and sample values are not prose.
      .replace(/"[^"]*"/g, ' ')
      .replace(/«\w+»/g, ' ')
      .replace(/\{[\w:]+\}/g, ' ')
      .match(/[\p{L}][\p{L}\p{N}_\-']*/gu) ?? []
  );
}

function englishIn(german: string): string[] {
  return wordsOf(german).filter((w) => englishVocabulary.has(w) || ENGLISH_WORDS.includes(w.toLowerCase()) || ENGLISH_NOUNS.includes(w));
}

describe('the problem catalogue in German', () => {
  it.each(codes)('%s: German title and detail, no English, every placeholder filled', (code) => {
    const { title } = errorCatalogue[code];
    expect(title.de, 'title').not.toBe(title.en);
    expect(englishIn(title.de), `title "${title.de}"`).toEqual([]);
    expect(new Set(placeholdersOf(errorCatalogue[code].detail.de)), 'same placeholders as English').toEqual(
      new Set(placeholdersOf(errorCatalogue[code].detail.en)),
    );
    for (const params of paramSets(code)) {
      const de = localise(code, 'de', params);
      const en = localise(code, 'en', params);
      const context = `${code} ${JSON.stringify(params)}: "${de.detail}"`;
      expect(de.detail, context).not.toMatch(/[{}]/);
      expect(de.detail.length, context).toBeGreaterThan(0);
      if (en.detail !== Object.values(params).join('')) expect(de.detail, context).not.toBe(en.detail);
      expect(englishIn(de.detail), context).toEqual([]);
      for (const [name, value] of Object.entries(params)) {
        if (name !== 'reason' && name !== 'resource') expect(de.detail, `${context} shows ${name}`).toContain(String(value));
      }
    }
  });

  it.each(reasons)('reason %s has its own German text with the same placeholders', (reason) => {
    const { en, de } = problemReasons[reason];
    expect(de).not.toBe(en);
    expect(englishIn(de), de).toEqual([]);
    expect(new Set(placeholdersOf(de))).toEqual(new Set(placeholdersOf(en)));
  });

  it('names the missing resource with its German article and case', () => {
    const notFound = (resource: ResourceNoun) => localise('not_found', 'de', { resource }).detail;
    expect(notFound('zone')).toBe('Hier gibt es keine Zone.');
    expect(notFound('record')).toBe('Hier gibt es keinen Eintrag.');
    expect(notFound('change set')).toBe('Hier gibt es keinen Änderungssatz.');
    expect(notFound('template')).toBe('Hier gibt es keine Vorlage.');
    expect(notFound('token')).toBe('Hier gibt es kein Token.');
    expect(notFound('tenant')).toBe('Hier gibt es keinen Mandanten.');
    expect(notFound('API client')).toBe('Hier gibt es keinen API-Client.');
    expect(notFound('deleted zone')).toBe('Hier gibt es keine gelöschte Zone.');
    expect(localise('not_found', 'en', { resource: 'change set' }).detail).toBe('There is no change set here.');
  });

  it('declines nouns and adjectives for der and kein in every case', () => {
    const tenant = resourceNouns.tenant.de;
    expect(['nom', 'acc', 'dat'].map((c) => declineGerman(tenant, 'der', c as 'nom'))).toEqual(['der Mandant', 'den Mandanten', 'dem Mandanten']);
    const deleted = resourceNouns['deleted zone'].de;
    expect(['nom', 'acc', 'dat'].map((c) => declineGerman(deleted, 'kein', c as 'nom'))).toEqual([
      'keine gelöschte Zone',
      'keine gelöschte Zone',
      'keiner gelöschten Zone',
    ]);
    expect(declineGerman(resourceNouns.token.de, 'kein', 'dat')).toBe('keinem Token');
  });

  it('catches what issue 11 found: an English reason or noun inside German', () => {
    expect(englishIn('Senden Sie ein gültiges API-Token dieser Umgebung. The token is not known.')).toEqual(expect.arrayContaining(['The', 'not', 'known']));
    expect(englishIn('Hier gibt es kein(e) zone.')).toContain('zone');
  });
});

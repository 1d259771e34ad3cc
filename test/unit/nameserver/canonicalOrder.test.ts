// DNSSEC canonical name order (RFC 4034 §6.1) on the presentation names the zone holds: the RFC's
// own example, the escapes of RFC 1035 §5.1, and agreement with an order computed from the wire
// form the codec writes (an independent path: encode, split into labels, compare octets).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalOrderBelow, compareCanonical, compareNameKeys } from '../../../nameserver/zone/canonicalOrder.js';
import { referenceCanonicalOrder } from '../../helpers/canonicalReference.js';

const referenceOrder = referenceCanonicalOrder;

const sign = (n: number) => Math.sign(n) + 0;

// RFC 4034 §6.1, in the RFC's order (the RFC writes them with a trailing dot).
const RFC_4034_EXAMPLE = [
  'example',
  'a.example',
  'yljkjljk.a.example',
  'Z.a.example',
  'zABC.a.EXAMPLE',
  'z.example',
  '\\001.z.example',
  '*.z.example',
  '\\200.z.example',
];

// Label pieces: plain letters of both cases, digits, hyphen, the wildcard, escaped dots and
// backslashes, \DDD of low, letter and high octets, \X of a plain letter, a non-ASCII character.
const piece = fc.constantFrom(
  'a',
  'b',
  'z',
  'A',
  'Z',
  '0',
  '9',
  '-',
  '_',
  '*',
  '\\.',
  '\\\\',
  '\\000',
  '\\001',
  '\\065',
  '\\097',
  '\\122',
  '\\200',
  '\\255',
  '\\a',
  '\\Z',
  'é',
  '€',
);
const label = fc.array(piece, { minLength: 1, maxLength: 4 }).map((p) => p.join(''));
const name = fc.array(label, { minLength: 0, maxLength: 4 }).map((ls) => ls.join('.'));
// Names of one zone: what the index compares most (the common suffix path).
const zoneName = fc.array(label, { minLength: 0, maxLength: 3 }).map((ls) => [...ls, 'example', 'com'].join('.'));
// Plain ASCII names of one zone, the case compared without decoding: short labels over a small
// alphabet, so that prefixes, equal labels and names that run out at a boundary are common.
const plainLabel = fc.array(fc.constantFrom('a', 'b', 'A', '0', '-'), { minLength: 1, maxLength: 3 }).map((p) => p.join(''));
const plainZoneName = fc.array(plainLabel, { minLength: 0, maxLength: 4 }).map((ls) => [...ls, 'example'].join('.'));

describe('compareCanonical', () => {
  it("orders RFC 4034 §6.1's example as the RFC does", () => {
    const shuffled = [...RFC_4034_EXAMPLE].reverse();
    shuffled.push(shuffled.splice(3, 1)[0]!);
    expect(shuffled.sort(compareCanonical)).toEqual(RFC_4034_EXAMPLE);
    for (let i = 0; i < RFC_4034_EXAMPLE.length; i++) {
      for (let j = 0; j < RFC_4034_EXAMPLE.length; j++) expect(sign(compareCanonical(RFC_4034_EXAMPLE[i]!, RFC_4034_EXAMPLE[j]!))).toBe(sign(i - j));
    }
  });

  it.each([
    ['the root before everything', '', 'a'],
    ['a name before its descendants', 'example.com', 'a.example.com'],
    ['by the rightmost label first', 'z.a.com', 'a.b.com'],
    ['a label before a longer one it begins', 'ab.example', 'abc.example'],
    ['upper case as lower case: "B" after "a"', 'a.example', 'B.example'],
    ['an escaped dot does not end a label: "a.z" before "z"', 'a\\.z.example', 'a.z.example'],
    ['an escaped backslash is the octet 0x5c: after "9" (0x39)…', '9.example', '\\\\.example'],
    ['…and before "a" (0x61), which \\065 ("A") is too', '\\\\.example', '\\065.example'],
    ['"\\\\" then a real dot: two labels', 'a.b\\\\.example', 'c.b\\\\.example'],
    ['\\000 after the absent label', 'example', '\\000.example'],
    ['\\DDD as its octet: \\098 ("b") after "a"', 'a.example', '\\098.example'],
    ['a non-ASCII character as its UTF-8 octets (0xc3…) after "z" and before \\255', 'z.example', 'é.example'],
    ['…and é (0xc3 0xa9) before \\255', 'é.example', '\\255.example'],
  ])('%s', (_, first, second) => {
    expect(compareCanonical(first, second)).toBeLessThan(0);
    expect(compareCanonical(second, first)).toBeGreaterThan(0);
  });

  it.each([
    ['case', 'WWW.Example.COM', 'www.example.com'],
    ['\\DDD of a letter', '\\119ww.example.com', 'www.example.com'],
    ['\\DDD of an upper-case letter', '\\087ww.example.com', 'www.example.com'],
    ['\\X of a plain character', '\\www.ex\\ample.com', 'www.example.com'],
    ['\\DDD of a dot and "\\."', 'a\\046b.example', 'a\\.b.example'],
  ])('treats names differing only in %s as the same name', (_, a, b) => {
    expect(compareCanonical(a, b)).toBe(0);
    // …which the index's total order still tells apart, consistently.
    expect(compareNameKeys(a, b)).not.toBe(0);
    expect(sign(compareNameKeys(a, b))).toBe(-sign(compareNameKeys(b, a)));
  });

  it('agrees with the order of the wire octets, for any names, names of one zone, plain ASCII names', () => {
    for (const names of [name, zoneName, plainZoneName]) {
      fc.assert(
        fc.property(names, names, (a, b) => {
          expect(sign(compareCanonical(a, b))).toBe(sign(referenceOrder(a, b)));
        }),
        { numRuns: 3000 },
      );
    }
  });

  it('canonicalOrderBelow agrees for names of one zone, however many names it compares one name with', () => {
    const below = canonicalOrderBelow('example.com');
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            zoneName,
            plainZoneName.map((n) => `${n}.com`),
          ),
          { minLength: 1, maxLength: 20 },
        ),
        fc.array(fc.nat(), { maxLength: 40 }),
        (names, picks) => {
          // Runs with the same second name (as a search makes them), then changes of it.
          for (const [i, pick] of picks.entries()) {
            const a = names[pick % names.length]!;
            const b = names[Math.floor(i / 5) % names.length]!;
            expect(sign(below(a, b))).toBe(sign(referenceOrder(a, b)));
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('compareNameKeys is a total order that refines the canonical one', () => {
    fc.assert(
      fc.property(fc.array(zoneName, { maxLength: 40 }), (names) => {
        const sorted = [...new Set(names)].sort(compareNameKeys);
        for (let i = 1; i < sorted.length; i++) {
          expect(compareNameKeys(sorted[i - 1]!, sorted[i]!)).toBeLessThan(0);
          expect(referenceOrder(sorted[i - 1]!, sorted[i]!)).toBeLessThanOrEqual(0);
        }
      }),
      { numRuns: 300 },
    );
  });
});

// Names in the tree: labels split at unescaped dots only ("\." is part of a label, RFC 1035 §5.1).
import { describe, expect, it } from 'vitest';
import { isAtOrBelow, parentName } from '../../../nameserver/wire/name.js';
import { childTowards, namesBelow, wildcardBelow } from '../../../nameserver/zone/names.js';

describe('zone names', () => {
  it.each([
    ['www.example.com', 'example.com', true],
    ['example.com', 'example.com', true],
    ['badexample.com', 'example.com', false],
    ['com', 'example.com', false],
    ['a\\.example.com', 'example.com', false], // one label "a.example", then "com"
    ['a\\\\.example.com', 'example.com', true], // label "a\" (escaped backslash), then example.com
    ['anything', '', true],
  ])('%s at or below %s: %s', (name, ancestor, expected) => {
    expect(isAtOrBelow(name, ancestor)).toBe(expected);
  });

  it('walks one label up', () => {
    expect(parentName('www.example.com')).toBe('example.com');
    expect(parentName('com')).toBe('');
    expect(parentName('a\\.b.example.com')).toBe('example.com');
  });

  it('lists the names from below the ancestor down to the name', () => {
    expect(namesBelow('a.b.example.com', 'example.com')).toEqual(['b.example.com', 'a.b.example.com']);
    expect(namesBelow('x\\.y.example.com', 'example.com')).toEqual(['x\\.y.example.com']);
    expect(namesBelow('example.com', 'example.com')).toEqual([]);
    expect(namesBelow('www.example.com', '')).toEqual(['com', 'example.com', 'www.example.com']);
  });

  it('finds the next closer name: the first of namesBelow (RFC 5155 §1.3)', () => {
    const cases: [string, string][] = [
      ['a.b.example.com', 'example.com'],
      ['b.example.com', 'example.com'],
      ['x\\.y.z.example.com', 'example.com'],
      ['a.b\\.c.example.com', 'example.com'],
      ['a\\\\.b.example.com', 'b.example.com'],
      ['www.example.com', ''],
      ['com', ''],
    ];
    for (const [name, ancestor] of cases) expect(childTowards(name, ancestor)).toBe(namesBelow(name, ancestor)[0]);
    expect(childTowards('x.y.z.example.com', 'z.example.com')).toBe('y.z.example.com');
  });

  it('names the wildcard below a name (RFC 4592 §2.1.1)', () => {
    expect(wildcardBelow('example.com')).toBe('*.example.com');
    expect(wildcardBelow('')).toBe('*');
  });
});

describe('the one name module serves the API, zone files and the build', () => {
  it('at-or-below is label-wise and escape-aware (the one copy, nameserver/wire/name.ts)', () => {
    expect(isAtOrBelow('badexample.com', 'example.com')).toBe(false);
    expect(isAtOrBelow('www.example.com', 'example.com')).toBe(true);
  });

  it('absolute names of stored owners: @ is the origin, the root origin adds nothing', async () => {
    const { absoluteName } = await import('../../../nameserver/wire/name.js');
    expect(absoluteName('@', 'example.com')).toBe('example.com');
    expect(absoluteName('www', 'example.com')).toBe('www.example.com');
    expect(absoluteName('www', '')).toBe('www');
    expect(absoluteName('@', '')).toBe('');
  });

  it('reads a name standing alone in RDATA and refuses compression pointers there', async () => {
    const { decodeUncompressedName } = await import('../../../nameserver/wire/name.js');
    expect(decodeUncompressedName(Buffer.from('\x03www\x07example\x00', 'latin1'), 0)).toEqual({ name: 'www.example', end: 13 });
    expect(decodeUncompressedName(Buffer.from('\x03www\xc0\x00', 'latin1'), 0)).toBeNull();
    expect(decodeUncompressedName(Buffer.from('\x03www', 'latin1'), 0)).toBeNull();
  });
});

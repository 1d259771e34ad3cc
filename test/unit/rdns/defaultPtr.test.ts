// Default-PTR patterns (docs/rdns.md "Default PTRs", "Forward records of default PTRs"): the names
// a pattern gives, and the part every one of them ends with, which a forward zone must hold.
import { describe, expect, it } from 'vitest';
import { parseAddress } from '../../../src/domain/ip/address.js';
import { canonicalPattern, patternSuffix, renderDefaultPtr } from '../../../src/domain/ip/defaultPtr.js';
import { NameError } from '../../../src/domain/names.js';

describe('default-PTR patterns', () => {
  it.each([
    ['static.{dashed}.hosting.example.', 'hosting.example'],
    ['{dashed}-static.Hosting.Example.', 'hosting.example'],
    ['h{ip}.pool.example.', 'pool.example'],
    ['{reversed}.rev.hosting.example.', 'rev.hosting.example'],
    ['{dashed}.{reversed}.x.example.', 'x.example'],
    ['hosting.example.{dashed}.', ''],
    ['static.{dashed}.', ''],
  ])('%s: every name ends with "%s"', (pattern, suffix) => {
    expect(patternSuffix(pattern)).toBe(suffix);
  });

  it('gives names that end with the suffix', () => {
    for (const [pattern, ip] of [
      ['static.{dashed}.hosting.example.', '192.0.2.10'],
      ['h{ip}.pool.example.', '198.51.100.7'],
      ['{reversed}.rev.hosting.example.', '2001:db8::10'],
    ] as const) {
      const name = renderDefaultPtr(pattern, parseAddress(ip));
      expect(name.endsWith(`.${patternSuffix(pattern)}`), name).toBe(true);
    }
    expect(renderDefaultPtr('static.{dashed}.hosting.example.', parseAddress('2001:db8:100::10'))).toBe('static.2001-db8-100--10.hosting.example');
  });

  it.each([
    ['static.{dashed}.hosting.example.', 'static.{dashed}.hosting.example.'],
    ['Static.{dashed}.Hosting.EXAMPLE.', 'static.{dashed}.hosting.example.'],
    ['static.{dashed}.Bücher.example.', 'static.{dashed}.xn--bcher-kva.example.'],
    ['H{ip}.pool.example.', 'h{ip}.pool.example.'],
  ])('stores %s as %s', (pattern, stored) => {
    expect(canonicalPattern(pattern)).toBe(stored);
  });

  it('refuses a placeholder inside a non-ASCII label', () => {
    expect(() => canonicalPattern('ü{dashed}.example.')).toThrow(NameError);
  });
});

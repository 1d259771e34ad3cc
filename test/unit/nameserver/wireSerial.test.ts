// RFC 1982 serial arithmetic, the one copy the build, its verification and IXFR share.
import { describe, expect, it } from 'vitest';
import { MAX_SERIAL_ADDEND, serialAdd, serialGreater } from '../../../nameserver/wire/serial.js';
import { nextSerial } from '../../../src/domain/soa.js';

describe('RFC 1982 serial arithmetic', () => {
  it.each([
    [2, 1, true],
    [1, 2, false],
    [1, 1, false],
    [0, 0xffffffff, true], // wrapped: 0 follows 2^32 − 1
    [0xffffffff, 0, false],
    [2 ** 31 - 1, 0, true],
    [2 ** 31, 0, false], // exactly 2^31 apart: undefined, neither is greater (§3.2)
    [0, 2 ** 31, false],
    [2023010100, 2022123199, true],
  ])('%d > %d: %s', (a, b, expected) => {
    expect(serialGreater(a, b)).toBe(expected);
  });

  it('adds modulo 2^32 and refuses addends outside 0 … 2^31 − 1 (§3.1)', () => {
    expect(serialAdd(0xffffffff, 1)).toBe(0);
    expect(serialAdd(5, MAX_SERIAL_ADDEND)).toBe(5 + MAX_SERIAL_ADDEND);
    expect(() => serialAdd(5, 2 ** 31)).toThrow(RangeError);
    expect(() => serialAdd(5, -1)).toThrow(RangeError);
  });

  it('the next published serial wraps past 2^32 − 1 and is always greater', () => {
    const now = new Date('2026-01-02T00:00:00Z');
    for (const current of [0xffffffff, 2026010299, 2026010200, 4000000000]) {
      expect(serialGreater(nextSerial(current, now), current)).toBe(true);
    }
  });
});

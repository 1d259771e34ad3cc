// SOA serial numbers in sequence-space arithmetic (RFC 1982): the one copy, used by the
// publication build (the next serial), its verification (has a nameserver caught up?) and the
// nameserver's IXFR (is the client's serial current?).

const SERIAL_BITS = 32;
const SERIAL_SPACE = 2 ** SERIAL_BITS;
/** RFC 1982 §3.1: the largest addend, 2^(SERIAL_BITS − 1) − 1. */
export const MAX_SERIAL_ADDEND = 2 ** (SERIAL_BITS - 1) - 1;

/**
 * RFC 1982 §3.2: is `a` greater than `b`? False when they are equal and when they are exactly
 * 2^31 apart (the comparison is undefined there; neither is greater).
 */
export function serialGreater(a: number, b: number): boolean {
  const d = (a - b) >>> 0;
  return d !== 0 && d < 0x80000000;
}

/** RFC 1982 §3.1: `serial` + `n` modulo 2^32, for 0 ≤ n ≤ 2^31 − 1. */
export function serialAdd(serial: number, n: number): number {
  if (!Number.isInteger(n) || n < 0 || n > MAX_SERIAL_ADDEND) throw new RangeError(`serial addend ${n} outside 0–${MAX_SERIAL_ADDEND} (RFC 1982 §3.1)`);
  return (serial + n) % SERIAL_SPACE;
}

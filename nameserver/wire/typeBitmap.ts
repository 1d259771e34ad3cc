// The Type Bit Maps field of NSEC and NSEC3 RDATA (RFC 4034 §4.1.2, RFC 5155 §3.2.1): for each
// 256-type window in use, the window number, the bitmap length (1–32 octets, trailing zero
// octets left out) and the bitmap, most significant bit first.

/** Octets of the bitmap field listing `types` (any order, duplicates allowed). */
export function encodeTypeBitmap(types: readonly number[]): Buffer {
  const sorted = [...new Set(types)].sort((a, b) => a - b);
  const out: number[] = [];
  let i = 0;
  while (i < sorted.length) {
    const window = sorted[i]! >> 8;
    const bits = new Uint8Array(32);
    let length = 0;
    for (; i < sorted.length && sorted[i]! >> 8 === window; i++) {
      const low = sorted[i]! & 0xff;
      bits[low >> 3]! |= 0x80 >> (low & 7);
      length = (low >> 3) + 1;
    }
    out.push(window, length, ...bits.subarray(0, length));
  }
  return Buffer.from(out);
}

/**
 * Type codes listed in the bitmap field `buf[start, end)`, ascending; null when malformed
 * (RFC 4034 §4.1.2: windows ascending, each 1–32 octets, and the field used up exactly).
 */
export function decodeTypeBitmap(buf: Buffer, start: number, end: number): number[] | null {
  const types: number[] = [];
  let pos = start;
  let previous = -1;
  while (pos < end) {
    if (pos + 2 > end) return null;
    const window = buf[pos]!;
    const length = buf[pos + 1]!;
    if (window <= previous || length < 1 || length > 32 || pos + 2 + length > end) return null;
    for (let i = 0; i < length; i++) {
      const octet = buf[pos + 2 + i]!;
      for (let bit = 0; bit < 8; bit++) if (octet & (0x80 >> bit)) types.push((window << 8) | (i * 8 + bit));
    }
    previous = window;
    pos += 2 + length;
  }
  return types;
}

// Random and mutated messages for the codec's fuzz tests (wireQuery, wireUpdate), reproducible
// from a seed: a quarter random octets, the rest copies of real messages with one to four
// mutations — an octet set, cut short, extended, a section count replaced, a compression pointer
// planted anywhere.
import { mulberry32 } from './seededRandom.js';

export interface FuzzOptions {
  count: number;
  seed: number;
  /** Random buffers are shorter than this. */
  randomLength: number;
  /** What octet 2 (QR, OPCODE, AA, TC, RD) of a random buffer becomes, so that parsing goes deep. */
  flags: (octet: number) => number;
}

export function* fuzzMessages(seeds: readonly Buffer[], options: FuzzOptions): Generator<Buffer> {
  const random = mulberry32(options.seed);
  const next = () => Math.floor(random() * 0x1_0000_0000);
  for (let i = 0; i < options.count; i++) {
    let buf: Buffer;
    if (i % 4 === 0) {
      buf = Buffer.allocUnsafe(next() % options.randomLength);
      for (let j = 0; j < buf.length; j++) buf[j] = next() & 0xff;
      if (buf.length > 2) buf[2] = options.flags(buf[2]!);
    } else {
      buf = Buffer.from(seeds[next() % seeds.length]!);
      const mutations = 1 + (next() % 4);
      for (let m = 0; m < mutations; m++) {
        const kind = next() % 5;
        if (kind === 0) buf[next() % buf.length] = next() & 0xff;
        else if (kind === 1) buf = buf.subarray(0, next() % (buf.length + 1));
        else if (kind === 2) buf = Buffer.concat([buf, Buffer.from([next() & 0xff, next() & 0xff])]);
        else if (kind === 3 && buf.length >= 12) buf.writeUInt16BE(next() % 4, 4 + 2 * (next() % 4));
        else if (kind === 4 && buf.length > 14) buf.writeUInt16BE(0xc000 | (next() % (buf.length + 8)), 12 + (next() % (buf.length - 13)));
      }
    }
    yield buf;
  }
}

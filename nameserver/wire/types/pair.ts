// RDATA that is two fields of one kind, written and read in order: two <character-string>s
// (HINFO) or two uncompressed names (RP).
import { quoted, type RdataBuilder, type RdataReader, type RecordCodec } from '../rdataCodec.js';

interface PairKind {
  write(b: RdataBuilder, field: string): void;
  read(r: RdataReader): string;
  present(r: RdataReader): string;
}

const PAIR_KINDS = {
  string: {
    write: (b, field) => b.utf8(field, b.string(field), true),
    read: (r) => r.utf8(r.characterString()),
    present: (r) => quoted(r.characterString()),
  },
  name: {
    write: (b, field) => b.name(field),
    read: (r) => r.name(),
    present: (r) => r.presentationName(),
  },
} satisfies Record<'string' | 'name', PairKind>;

export function pairCodec(type: string, kind: keyof typeof PAIR_KINDS, first: string, second: string): RecordCodec {
  const { write, read, present } = PAIR_KINDS[kind] as PairKind;
  return {
    type,
    fields: [
      [first, kind],
      [second, kind],
    ],
    encode: (b) => {
      write(b, first);
      write(b, second);
    },
    // A computed key's value is evaluated right after the key, so the fields are read in order.
    decode: (r) => ({ [first]: read(r), [second]: read(r) }),
    format: (r) => `${present(r)} ${present(r)}`,
  };
}

// CAA (RFC 8659 §4.1): flags, tag length, tag, value (the rest of the RDATA). Any tag of 1–15
// ASCII letters and digits is well-formed here; what a tag's value must look like is policy
// (src/domain/records/caa.ts).
import { quoted, Malformed, type RecordCodec } from '../rdataCodec.js';

const CAA_TAG = /^[a-zA-Z0-9]{1,15}$/;

/** RFC 8659 §4.1: a property tag is 1–15 ASCII letters and digits. */
export const isCaaTag = (tag: string): boolean => CAA_TAG.test(tag);

export const caa: RecordCodec = {
  type: 'CAA',
  fields: [
    ['flags', 'uint'],
    ['tag', 'word'],
    ['value', 'string'],
  ],
  encode: (b) => {
    b.u8('flags');
    const tag = b.string('tag');
    if (!CAA_TAG.test(tag)) b.fail('tag', 'expected 1 to 15 ASCII letters and digits (RFC 8659 §4.1)');
    b.bytes('tag', tag, 'latin1', tag.length, true);
    b.utf8('value', b.string('value'));
  },
  decode: (r) => {
    const flags = r.u8();
    const tag = r.characterString().toString('latin1');
    if (!CAA_TAG.test(tag)) throw new Malformed();
    return { flags, tag, value: r.utf8(r.rest()) };
  },
  format: (r) => `${r.u8()} ${r.characterString().toString('latin1')} ${quoted(r.rest())}`,
};

// OPENPGPKEY (RFC 7929 §2.1): one OpenPGP transferable public key, the whole RDATA, in base64.
import type { RecordCodec } from '../rdataCodec.js';

export const openpgpkey: RecordCodec = {
  type: 'OPENPGPKEY',
  fields: [['public_key', 'base64']],
  encode: (b) => b.base64('public_key', { allowEmpty: false }),
  decode: (r) => ({ public_key: r.restNonEmpty().toString('base64') }),
  format: (r) => r.restNonEmpty().toString('base64'),
};

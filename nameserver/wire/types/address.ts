// A (RFC 1035 §3.4.1) and AAAA (RFC 3596 §2.2): one address, in the address module's text form.
import { formatIpv4, formatIpv6, writeIpv4, writeIpv6 } from '../address.js';
import type { RecordCodec } from '../rdataCodec.js';

export const a: RecordCodec = {
  type: 'A',
  fields: [['address', 'word']],
  encode: (b) => {
    const address = b.string('address');
    if (!writeIpv4(b.scratch, b.pos, address)) b.fail('address', `"${address}" is not an IPv4 address`);
    b.pos += 4;
  },
  decode: (r) => ({ address: formatIpv4(r.buf, r.take(4)) }),
  format: (r) => formatIpv4(r.buf, r.take(4)),
};

export const aaaa: RecordCodec = {
  type: 'AAAA',
  fields: [['address', 'word']],
  encode: (b) => {
    const address = b.string('address');
    if (!writeIpv6(b.scratch, b.pos, address)) b.fail('address', `"${address}" is not an IPv6 address`);
    b.pos += 16;
  },
  decode: (r) => ({ address: formatIpv6(r.buf, r.take(16)) }),
  format: (r) => formatIpv6(r.buf, r.take(16)),
};

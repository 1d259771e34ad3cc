// SOA (RFC 1035 §3.3.13): MNAME, RNAME and five 32-bit counters.
import type { RecordCodec } from '../rdataCodec.js';

const COUNTERS = ['serial', 'refresh', 'retry', 'expire', 'minimum'] as const;

export const soa: RecordCodec = {
  type: 'SOA',
  fields: [['mname', 'name'], ['rname', 'name'], ...COUNTERS.map((f) => [f, 'uint'] as const)],
  encode: (b) => {
    b.name('mname');
    b.name('rname');
    for (const f of COUNTERS) b.u32(f);
  },
  decode: (r) => {
    const data: Record<string, unknown> = { mname: r.name(), rname: r.name() };
    for (const f of COUNTERS) data[f] = r.u32();
    return data;
  },
  format: (r) => [r.presentationName(), r.presentationName(), ...COUNTERS.map(() => String(r.u32()))].join(' '),
};

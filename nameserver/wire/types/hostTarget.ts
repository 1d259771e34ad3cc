// The types whose RDATA is fixed 16-bit fields and then one host name: NS (RFC 1035 §3.3.11),
// CNAME (§3.3.1), PTR (§3.3.12), MX (§3.3.9) and SRV (RFC 2782).
import type { RecordCodec } from '../rdataCodec.js';

function uintsThenName(type: string, uints: readonly string[], name: string): RecordCodec {
  return {
    type,
    fields: [...uints.map((f) => [f, 'uint'] as const), [name, 'name'] as const],
    encode: (b) => {
      for (const f of uints) b.u16(f);
      b.name(name);
    },
    decode: (r) => {
      const data: Record<string, unknown> = {};
      for (const f of uints) data[f] = r.u16();
      data[name] = r.name();
      return data;
    },
    format: (r) => [...uints.map(() => String(r.u16())), r.presentationName()].join(' '),
  };
}

export const ns = uintsThenName('NS', [], 'nameserver');
export const cname = uintsThenName('CNAME', [], 'target');
export const ptr = uintsThenName('PTR', [], 'target');
export const mx = uintsThenName('MX', ['preference'], 'exchange');
export const srv = uintsThenName('SRV', ['priority', 'weight', 'port'], 'target');

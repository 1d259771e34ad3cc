// The RDATA fields a snapshot reads once when it is built, besides the targets of NS, CNAME, PTR,
// MX and SRV (rdataTarget in ../wire/rdata.ts): the SOA counters and the type an RRSIG covers.
import { decodeUncompressedName } from '../wire/name.js';

export class RdataError extends Error {
  override readonly name = 'RdataError';
}

export interface SoaCounters {
  serial: number;
  minimum: number;
}

/** SERIAL and MINIMUM of SOA RDATA (RFC 1035 §3.3.13: MNAME, RNAME, then five 32-bit counters). */
export function soaCounters(rdata: Buffer): SoaCounters {
  const mname = decodeUncompressedName(rdata, 0);
  const rname = mname && decodeUncompressedName(rdata, mname.end);
  if (!rname || rname.end + 20 !== rdata.length) throw new RdataError('SOA RDATA is not MNAME, RNAME and five 32-bit counters');
  return { serial: rdata.readUInt32BE(rname.end), minimum: rdata.readUInt32BE(rname.end + 16) };
}

/** The type an RRSIG covers: its first two octets (RFC 4034 §3.1.1). */
export function typeCovered(rdata: Buffer): number {
  if (rdata.length < 18) throw new RdataError('RRSIG RDATA shorter than its fixed fields');
  return rdata.readUInt16BE(0);
}

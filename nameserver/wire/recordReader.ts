// The fixed part of one resource record in a message (RFC 1035 §4.1.3), read without decoding
// the owner name, for the parsers that only need some records' names.
import { skipName } from './name.js';

export interface RecordFields {
  /** Where the RR (its owner name) starts. */
  offset: number;
  type: number;
  klass: number;
  ttl: number;
  rdataStart: number;
  /** Offset just after the RDATA: where the next RR starts. */
  rdataEnd: number;
}

/** The RR at `offset`, or null when its name or fields run past the message or are malformed. */
export function readRecord(buf: Buffer, offset: number): RecordFields | null {
  const nameEnd = skipName(buf, offset);
  if (nameEnd < 0 || nameEnd + 10 > buf.length) return null;
  const rdataStart = nameEnd + 10;
  const rdataEnd = rdataStart + buf.readUInt16BE(nameEnd + 8);
  if (rdataEnd > buf.length) return null;
  return {
    offset,
    type: buf.readUInt16BE(nameEnd),
    klass: buf.readUInt16BE(nameEnd + 2),
    ttl: buf.readUInt32BE(nameEnd + 4),
    rdataStart,
    rdataEnd,
  };
}

/** SOA serial from SOA RDATA (names possibly compressed), or null when malformed. */
export function soaSerial(buf: Buffer, rr: RecordFields): number | null {
  const mnameEnd = skipName(buf, rr.rdataStart);
  const rnameEnd = mnameEnd < 0 || mnameEnd > rr.rdataEnd ? -1 : skipName(buf, mnameEnd);
  if (rnameEnd < 0 || rnameEnd + 20 !== rr.rdataEnd) return null;
  return buf.readUInt32BE(rnameEnd);
}

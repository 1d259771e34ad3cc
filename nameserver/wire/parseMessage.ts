// Decoding a whole message, any kind, for the code that reads replies (NOTIFY acknowledgements,
// SOA checks of secondaries) and for tests. Not the query fast path: that is query.ts; UPDATE
// requests are update.ts's, which reads their records with uncompressedRdata below.
import { TYPE } from '../types.js';
import { ednsFromOpt, type Edns } from './edns.js';
import { FLAG, HEADER_OCTETS, opcodeOf } from './header.js';
import { decodeName, encodeName } from './name.js';
import { readRecord } from './recordReader.js';
import { readTsigRdata, type TsigRecord } from './tsig.js';

export interface MessageQuestion {
  /** As sent (case kept), dotted, without the trailing dot. */
  name: string;
  type: number;
  klass: number;
}

export interface MessageRecord {
  /** As sent (case kept), dotted, without the trailing dot ("" for the root). */
  name: string;
  type: number;
  klass: number;
  ttl: number;
  /** Uncompressed wire RDATA (names in NS, CNAME, PTR, MX, SOA, SRV RDATA are decompressed). */
  rdata: Buffer;
}

export interface Message {
  id: number;
  qr: boolean;
  opcode: number;
  aa: boolean;
  tc: boolean;
  rd: boolean;
  ra: boolean;
  ad: boolean;
  cd: boolean;
  /** 12 bits when the message has an OPT RR (RFC 6891 §6.1.3), else the header's 4. */
  rcode: number;
  questions: MessageQuestion[];
  answer: MessageRecord[];
  authority: MessageRecord[];
  /** Every additional RR, OPT and TSIG included (also given decoded below). */
  additional: MessageRecord[];
  edns: Edns | null;
  tsig: TsigRecord | null;
}

/**
 * RFC 3597 §4: RDATA of these types may arrive with compressed names; layout as fixed octets
 * before the first name, then names (and fixed octets after the last).
 */
const COMPRESSIBLE: ReadonlyMap<number, { before: number; names: number; after: number }> = new Map([
  [TYPE.NS, { before: 0, names: 1, after: 0 }],
  [TYPE.CNAME, { before: 0, names: 1, after: 0 }],
  [TYPE.PTR, { before: 0, names: 1, after: 0 }],
  [TYPE.MX, { before: 2, names: 1, after: 0 }],
  [TYPE.SRV, { before: 6, names: 1, after: 0 }],
  [TYPE.SOA, { before: 0, names: 2, after: 20 }],
]);

/** The RDATA at `buf[start, end)` with its names decompressed, or null when malformed. */
export function uncompressedRdata(buf: Buffer, type: number, start: number, end: number): Buffer | null {
  const layout = COMPRESSIBLE.get(type);
  if (!layout) return buf.subarray(start, end);
  if (start + layout.before > end) return null;
  const parts: Buffer[] = [buf.subarray(start, start + layout.before)];
  let pos = start + layout.before;
  for (let i = 0; i < layout.names; i++) {
    const name = pos < end ? decodeName(buf, pos) : null;
    if (!name || name.end > end) return null;
    parts.push(encodeName(name.name));
    pos = name.end;
  }
  if (pos + layout.after !== end) return null;
  parts.push(buf.subarray(pos, end));
  return Buffer.concat(parts);
}

/** Decodes `buf`; null when it is not a well-formed message (trailing octets included). */
export function parseMessage(buf: Buffer): Message | null {
  if (buf.length < HEADER_OCTETS) return null;
  const flags = buf.readUInt16BE(2);
  const counts = [buf.readUInt16BE(6), buf.readUInt16BE(8), buf.readUInt16BE(10)] as const;
  const questions: MessageQuestion[] = [];
  let pos = HEADER_OCTETS;
  for (let i = buf.readUInt16BE(4); i > 0; i--) {
    const name = decodeName(buf, pos);
    if (!name || name.end + 4 > buf.length) return null;
    questions.push({ name: name.name, type: buf.readUInt16BE(name.end), klass: buf.readUInt16BE(name.end + 2) });
    pos = name.end + 4;
  }
  const sections: MessageRecord[][] = [[], [], []];
  let edns: Edns | null = null;
  let tsig: TsigRecord | null = null;
  for (let s = 0; s < 3; s++) {
    for (let i = 0; i < counts[s]!; i++) {
      const rr = readRecord(buf, pos);
      const owner = rr && decodeName(buf, rr.offset);
      const rdata = rr && uncompressedRdata(buf, rr.type, rr.rdataStart, rr.rdataEnd);
      if (!rr || !owner || !rdata) return null;
      sections[s]!.push({ name: owner.name, type: rr.type, klass: rr.klass, ttl: rr.ttl, rdata });
      if (s === 2 && rr.type === TYPE.OPT && !edns) edns = ednsFromOpt(buf, rr.klass, rr.ttl, rr.rdataStart, rr.rdataEnd);
      if (s === 2 && rr.type === TYPE.TSIG && i === counts[2] - 1) {
        tsig = readTsigRdata(buf, owner.name.toLowerCase(), rr.offset, rr.rdataStart, rr.rdataEnd);
        if (!tsig) return null;
      }
      pos = rr.rdataEnd;
    }
  }
  if (pos !== buf.length) return null;
  return {
    id: buf.readUInt16BE(0),
    qr: (flags & FLAG.QR) !== 0,
    opcode: opcodeOf(flags),
    aa: (flags & FLAG.AA) !== 0,
    tc: (flags & FLAG.TC) !== 0,
    rd: (flags & FLAG.RD) !== 0,
    ra: (flags & FLAG.RA) !== 0,
    ad: (flags & FLAG.AD) !== 0,
    cd: (flags & FLAG.CD) !== 0,
    rcode: edns ? (edns.extendedRcode << 4) | (flags & 0x0f) : flags & 0x0f,
    questions,
    answer: sections[0]!,
    authority: sections[1]!,
    additional: sections[2]!,
    edns,
    tsig,
  };
}

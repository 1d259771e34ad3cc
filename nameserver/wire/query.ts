// Reading a request: the cheap drop test every datagram gets first, then the full parse into a
// query the answer logic can use, or the error to answer with. Parsing never throws; bounds are
// checked before every read (the fuzz test in test/unit/nameserver/wireQuery.test.ts holds us to it).
import { CLASS, OPCODE, RCODE, TYPE } from '../types.js';
import { ednsFromOpt, wellFormedOptions, type Edns } from './edns.js';
import { FLAG, HEADER_OCTETS, opcodeOf } from './header.js';
import { decodeName, MAX_NAME_OCTETS } from './name.js';
import { readRecord, soaSerial } from './recordReader.js';
import { readTsigRdata, type TsigRecord } from './tsig.js';

export interface Question {
  /** Lower case, dotted, without the trailing dot ("" for the root); escapes as in name.ts. */
  name: string;
  /** The name's octets exactly as sent (case kept), to echo: a view into the message. */
  nameWire: Buffer;
  qtype: number;
  qclass: number;
}

export interface Query {
  id: number;
  opcode: number;
  rd: boolean;
  cd: boolean;
  question: Question;
  edns: Edns | null;
  /**
   * Why the EDNS part is malformed (two OPT RRs, OPT not owned by the root, bad option TLVs), or
   * null. The answer is FORMERR, with an OPT record when `edns` is set (RFC 6891 §6.1.1, §7).
   */
  ednsError: string | null;
  tsig: TsigRecord | null;
  /** IXFR (RFC 1995 §3): serial of the client's SOA in the authority section. */
  ixfrSerial: number | null;
  /** NOTIFY (RFC 1996 §3.7): serial of the SOA in the answer section, when one was sent. */
  notifySerial: number | null;
  raw: Buffer;
}

/** A request to answer with an error rcode alone (and the question, when it could be read). */
export interface QueryError {
  kind: 'error';
  rcode: number;
  reason: string;
  id: number;
  opcode: number;
  rd: boolean;
  cd: boolean;
  question: Question | null;
  edns: Edns | null;
}

export type ParsedQuery = { kind: 'query'; query: Query } | QueryError | { kind: 'drop'; reason: string };

/**
 * The check run before any parsing: false for what must get no answer at all — fewer octets than
 * a header, or a response (QR set; answering responses makes reflection loops, RFC 1035 §4.1.1).
 */
export function quickCheck(buf: Buffer): boolean {
  return buf.length >= HEADER_OCTETS && (buf[2]! & 0x80) === 0;
}

/**
 * The question at offset 12 (or an UPDATE's zone section, of the same form): an uncompressed
 * name (nothing precedes it to point to) and 4 octets.
 */
export function readQuestion(buf: Buffer): { question: Question; end: number } | null {
  let pos = HEADER_OCTETS;
  for (;;) {
    if (pos >= buf.length) return null;
    const length = buf[pos]!;
    if (length === 0) break;
    if (length > 63) return null;
    pos += 1 + length;
    if (pos - HEADER_OCTETS + 1 > MAX_NAME_OCTETS) return null;
  }
  const nameEnd = pos + 1;
  if (nameEnd + 4 > buf.length) return null;
  const decoded = decodeName(buf, HEADER_OCTETS, true);
  if (!decoded) return null;
  return {
    question: {
      name: decoded.name,
      nameWire: buf.subarray(HEADER_OCTETS, nameEnd),
      qtype: buf.readUInt16BE(nameEnd),
      qclass: buf.readUInt16BE(nameEnd + 2),
    },
    end: nameEnd + 4,
  };
}

/** What an error result repeats from the request. */
export interface RequestHeader {
  id: number;
  opcode: number;
  rd: boolean;
  cd: boolean;
  question: Question | null;
}

export function queryError(header: RequestHeader, rcode: number, reason: string, question: Question | null = header.question): QueryError {
  return { kind: 'error', rcode, reason, id: header.id, opcode: header.opcode, rd: header.rd, cd: header.cd, question, edns: null };
}

/** What a request's additional section holds (readAdditional). */
export interface AdditionalSection {
  edns: Edns | null;
  /** Why the EDNS part is malformed, or null (see Query.ednsError). */
  ednsError: string | null;
  tsig: TsigRecord | null;
}

// parseQuery's, reused: parsing is synchronous, and the fast path allocates nothing it need not.
const additional: AdditionalSection = { edns: null, ednsError: null, tsig: null };

/**
 * Reads the `count` additional RRs of a request starting at `pos` into `out`: at most one OPT
 * (RFC 6891; a second one, one not owned by the root or malformed options set `ednsError`) and
 * a TSIG, which must be the last (RFC 8945 §5.1), class ANY, TTL 0. Returns where the section
 * ends, or the reason for a FORMERR (a string) — any other type is one.
 */
export function readAdditional(buf: Buffer, pos: number, count: number, out: AdditionalSection): number | string {
  out.edns = null;
  out.ednsError = null;
  out.tsig = null;
  for (let i = 0; i < count; i++) {
    const rr = readRecord(buf, pos);
    if (!rr) return 'malformed additional record';
    if (out.tsig) return 'TSIG is not the last record';
    if (rr.type === TYPE.OPT) {
      if (out.edns) out.ednsError = 'more than one OPT record';
      else {
        out.edns = ednsFromOpt(buf, rr.klass, rr.ttl, rr.rdataStart, rr.rdataEnd);
        // RFC 6891 §6.1.2: the OPT owner is the root.
        if (buf[rr.offset] !== 0) out.ednsError = 'OPT record not owned by the root';
        else if (!wellFormedOptions(out.edns.options)) out.ednsError = 'malformed EDNS options';
      }
    } else if (rr.type === TYPE.TSIG) {
      // RFC 8945 §4.2: class ANY, TTL 0.
      if (rr.klass !== CLASS.ANY || rr.ttl !== 0) return 'TSIG with a class other than ANY or a TTL';
      const owner = decodeName(buf, rr.offset, true);
      out.tsig = owner && readTsigRdata(buf, owner.name, rr.offset, rr.rdataStart, rr.rdataEnd);
      if (!out.tsig) return 'malformed TSIG record';
    } else return `unexpected type ${rr.type} in the additional section`;
    pos = rr.rdataEnd;
  }
  return pos;
}

/**
 * Parses a request. Drops what quickCheck drops; answers NOTIMP to opcodes other than QUERY and
 * NOTIFY (RFC 1035 §4.1.1; UPDATE messages are update.ts's to read, and the server sends them
 * there before this); FORMERR to anything that is not exactly: one question; no answer RR
 * except one SOA in a NOTIFY; no authority RR except the client's SOA in an IXFR (RFC 1995 §3);
 * at most two additional RRs, an OPT and a TSIG, the TSIG last (RFC 8945 §5.1); nothing after.
 */
export function parseQuery(buf: Buffer): ParsedQuery {
  if (buf.length < HEADER_OCTETS) return { kind: 'drop', reason: 'shorter than a header' };
  if ((buf[2]! & 0x80) !== 0) return { kind: 'drop', reason: 'a response (QR set)' };
  const id = buf.readUInt16BE(0);
  const flags = buf.readUInt16BE(2);
  const opcode = opcodeOf(flags);
  const rd = (flags & FLAG.RD) !== 0;
  const cd = (flags & FLAG.CD) !== 0;
  const qdCount = buf.readUInt16BE(4);
  const anCount = buf.readUInt16BE(6);
  const nsCount = buf.readUInt16BE(8);
  const arCount = buf.readUInt16BE(10);
  const read = qdCount >= 1 ? readQuestion(buf) : null;
  // No closure per call: parseQuery runs for every datagram, and under tsx each closure created
  // also goes through a naming helper.
  const header: RequestHeader = { id, opcode, rd, cd, question: read?.question ?? null };

  if (opcode !== OPCODE.QUERY && opcode !== OPCODE.NOTIFY) return queryError(header, RCODE.NOTIMP, `opcode ${opcode} is not implemented`);
  // RFC 9619: a QDCOUNT other than 1 is a format error.
  if (qdCount !== 1) return queryError(header, RCODE.FORMERR, `QDCOUNT is ${qdCount}`, null);
  if (!read) return queryError(header, RCODE.FORMERR, 'malformed question', null);
  const { question } = read;
  // OPT and TSIG are meta-types that live only in the additional section (RFC 6895 §3.1).
  if (question.qtype === TYPE.OPT || question.qtype === TYPE.TSIG) return queryError(header, RCODE.FORMERR, `QTYPE ${question.qtype} in the question`);

  const notify = opcode === OPCODE.NOTIFY;
  const ixfr = !notify && question.qtype === TYPE.IXFR;
  if (anCount > (notify ? 1 : 0)) return queryError(header, RCODE.FORMERR, `ANCOUNT is ${anCount}`);
  if (nsCount !== (ixfr ? 1 : 0)) return queryError(header, RCODE.FORMERR, ixfr ? 'IXFR without exactly one SOA in authority' : `NSCOUNT is ${nsCount}`);
  if (arCount > 2) return queryError(header, RCODE.FORMERR, `ARCOUNT is ${arCount}`);

  let pos = read.end;
  let notifySerial: number | null = null;
  let ixfrSerial: number | null = null;
  for (let i = 0; i < anCount + nsCount; i++) {
    const rr = readRecord(buf, pos);
    if (!rr || rr.type !== TYPE.SOA) return queryError(header, RCODE.FORMERR, 'expected an SOA record');
    const serial = soaSerial(buf, rr);
    if (serial === null) return queryError(header, RCODE.FORMERR, 'malformed SOA record');
    if (ixfr) {
      // RFC 1995 §3: the authority SOA is the client's version of the zone asked for.
      const owner = decodeName(buf, rr.offset, true);
      if (!owner || owner.name !== question.name) return queryError(header, RCODE.FORMERR, 'IXFR SOA owner is not the zone');
      ixfrSerial = serial;
    } else notifySerial = serial;
    pos = rr.rdataEnd;
  }

  const end = readAdditional(buf, pos, arCount, additional);
  if (typeof end === 'string') return queryError(header, RCODE.FORMERR, end);
  if (end !== buf.length) return queryError(header, RCODE.FORMERR, `${buf.length - end} octets after the last record`);
  const { edns, ednsError, tsig } = additional;

  return {
    kind: 'query',
    query: { id, opcode, rd, cd, question, edns, ednsError, tsig, ixfrSerial, notifySerial, raw: buf },
  };
}

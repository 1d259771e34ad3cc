// Reading an RFC 2136 dynamic UPDATE request: the zone section, the prerequisite and update
// sections as records, and the additional section (an OPT and the TSIG, read as queries' are).
// What the records mean — CLASS ANY and NONE, TTL 0, RDATA present or not — is left to the code
// that applies them (RFC 2136 §2.4, §2.5); here only the checks a message can fail on its own
// (checkUpdateForm: §3.2.1–§3.2.3 and §3.4.1.3 as far as they need no zone data). Never throws;
// bounds are checked before every read (the fuzz test in test/unit/nameserver/wireUpdate.test.ts).
import { CLASS, OPCODE, RCODE, TYPE } from '../types.js';
import type { Edns } from './edns.js';
import { FLAG, HEADER_OCTETS, opcodeOf } from './header.js';
import { decodeName, isAtOrBelow } from './name.js';
import { type MessageRecord, uncompressedRdata } from './parseMessage.js';
import { queryError, readAdditional, readQuestion, type AdditionalSection, type QueryError, type Question, type RequestHeader } from './query.js';
import { readRecord } from './recordReader.js';
import type { TsigRecord } from './tsig.js';

/**
 * One record of the prerequisite or update section: a message's record, its owner in lower case
 * (names are matched, not echoed) and its class saying what the record asks for — IN, ANY or NONE
 * (RFC 2136 §2.4, §2.5); RDATA empty when RDLENGTH is 0.
 */
export type UpdateRecord = MessageRecord;

export interface UpdateMessage {
  id: number;
  opcode: number;
  rd: boolean;
  cd: boolean;
  /**
   * The zone section (RFC 2136 §2.3): ZNAME, ZTYPE (SOA) and ZCLASS (IN) in the shape of a
   * question, which it is on the wire, so that a response echoes it as it was sent (§3.8).
   */
  question: Question;
  /** ZNAME: lower case, without the trailing dot. */
  zone: string;
  prerequisites: UpdateRecord[];
  updates: UpdateRecord[];
  edns: Edns | null;
  /** Why the EDNS part is malformed, or null (as for queries: FORMERR). */
  ednsError: string | null;
  tsig: TsigRecord | null;
  raw: Buffer;
}

export type ParsedUpdate = { kind: 'update'; update: UpdateMessage } | QueryError | { kind: 'drop'; reason: string };

/** Reads `count` records from `pos` into `into`; the offset after them, or -1 when one is malformed. */
function readRecords(buf: Buffer, pos: number, count: number, into: UpdateRecord[]): number {
  for (let i = 0; i < count; i++) {
    const rr = readRecord(buf, pos);
    const owner = rr && decodeName(buf, rr.offset, true);
    if (!rr || !owner) return -1;
    // A delete (CLASS ANY/NONE prerequisites and updates) has no RDATA, which no layout fits.
    const rdata = rr.rdataEnd === rr.rdataStart ? Buffer.alloc(0) : uncompressedRdata(buf, rr.type, rr.rdataStart, rr.rdataEnd);
    if (!rdata) return -1;
    // Copied: the records may outlive the message buffer (a TCP frame is a view into a read chunk).
    into.push({ name: owner.name, type: rr.type, klass: rr.klass, ttl: rr.ttl, rdata: Buffer.from(rdata) });
    pos = rr.rdataEnd;
  }
  return pos;
}

/**
 * Parses an UPDATE request (opcode 5). Drops what must get no answer (shorter than a header, a
 * response); FORMERR unless: ZOCOUNT is 1 and the zone section reads, with ZTYPE SOA and ZCLASS
 * IN (RFC 2136 §3.1.1); every prerequisite and update record reads; the additional section is at
 * most an OPT and the TSIG, last; nothing follows. Names come out lower case.
 */
export function parseUpdate(buf: Buffer): ParsedUpdate {
  if (buf.length < HEADER_OCTETS) return { kind: 'drop', reason: 'shorter than a header' };
  if ((buf[2]! & 0x80) !== 0) return { kind: 'drop', reason: 'a response (QR set)' };
  const flags = buf.readUInt16BE(2);
  const zoCount = buf.readUInt16BE(4);
  const prCount = buf.readUInt16BE(6);
  const upCount = buf.readUInt16BE(8);
  const adCount = buf.readUInt16BE(10);
  const read = zoCount >= 1 ? readQuestion(buf) : null;
  const header: RequestHeader = {
    id: buf.readUInt16BE(0),
    opcode: opcodeOf(flags),
    rd: (flags & FLAG.RD) !== 0,
    cd: (flags & FLAG.CD) !== 0,
    question: read?.question ?? null,
  };

  if (header.opcode !== OPCODE.UPDATE) return queryError(header, RCODE.FORMERR, `opcode ${header.opcode} is not UPDATE`);
  if (zoCount !== 1) return queryError(header, RCODE.FORMERR, `ZOCOUNT is ${zoCount}`, null);
  if (!read) return queryError(header, RCODE.FORMERR, 'malformed zone section', null);
  const { question } = read;
  if (question.qtype !== TYPE.SOA) return queryError(header, RCODE.FORMERR, `ZTYPE is ${question.qtype}, not SOA`);
  if (question.qclass !== CLASS.IN) return queryError(header, RCODE.FORMERR, `ZCLASS is ${question.qclass}, not IN`);

  const prerequisites: UpdateRecord[] = [];
  const updates: UpdateRecord[] = [];
  let pos = readRecords(buf, read.end, prCount, prerequisites);
  if (pos < 0) return queryError(header, RCODE.FORMERR, 'malformed prerequisite record');
  pos = readRecords(buf, pos, upCount, updates);
  if (pos < 0) return queryError(header, RCODE.FORMERR, 'malformed update record');
  const additional: AdditionalSection = { edns: null, ednsError: null, tsig: null };
  const end = readAdditional(buf, pos, adCount, additional);
  if (typeof end === 'string') return queryError(header, RCODE.FORMERR, end);
  if (end !== buf.length) return queryError(header, RCODE.FORMERR, `${buf.length - end} octets after the last record`);

  return {
    kind: 'update',
    update: { ...header, question, zone: question.name, prerequisites, updates, ...additional, raw: buf },
  };
}

/**
 * Meta-types and QTYPEs (RFC 6895 §3.1: OPT, and 128–255: TKEY, TSIG, IXFR, AXFR, MAILB, MAILA,
 * ANY and the unassigned rest): never data, so never added or removed one by one.
 */
const isMetaType = (type: number) => type === TYPE.OPT || (type >= 128 && type <= 255);

/**
 * The checks of RFC 2136 that need nothing but the message, in its order (§3.2.5 for the
 * prerequisites, §3.4.1 prescan for the updates); null when they pass. A prerequisite: TTL 0
 * (else FORMERR), an owner at or below the zone (else NOTZONE), CLASS ANY or NONE with no RDATA,
 * or CLASS IN (ZCLASS) (else FORMERR). An update: owner in the zone (NOTZONE); CLASS IN adds a
 * record of a data type; CLASS ANY deletes with TTL 0 and no RDATA (type ANY: every RRset of the
 * name); CLASS NONE deletes one record of a data type, TTL 0; anything else FORMERR. Whether the
 * owner lies in a zone delegated away, and everything about the zone's contents, is the caller's.
 */
export function checkUpdateForm(update: Pick<UpdateMessage, 'zone' | 'prerequisites' | 'updates'>): { rcode: number; reason: string } | null {
  const { zone } = update;
  for (const rr of update.prerequisites) {
    if (rr.ttl !== 0) return { rcode: RCODE.FORMERR, reason: `prerequisite ${rr.name} with TTL ${rr.ttl}` };
    if (!isAtOrBelow(rr.name, zone)) return { rcode: RCODE.NOTZONE, reason: `prerequisite ${rr.name} outside the zone` };
    if (rr.klass === CLASS.ANY || rr.klass === CLASS.NONE) {
      if (rr.rdata.length !== 0) return { rcode: RCODE.FORMERR, reason: `prerequisite ${rr.name} of class ${rr.klass} with RDATA` };
    } else if (rr.klass !== CLASS.IN) return { rcode: RCODE.FORMERR, reason: `prerequisite ${rr.name} of class ${rr.klass}` };
  }
  for (const rr of update.updates) {
    if (!isAtOrBelow(rr.name, zone)) return { rcode: RCODE.NOTZONE, reason: `update ${rr.name} outside the zone` };
    if (rr.klass === CLASS.IN) {
      if (isMetaType(rr.type)) return { rcode: RCODE.FORMERR, reason: `update adds a record of meta-type ${rr.type}` };
    } else if (rr.klass === CLASS.ANY) {
      if (rr.ttl !== 0 || rr.rdata.length !== 0) return { rcode: RCODE.FORMERR, reason: `RRset deletion at ${rr.name} with a TTL or RDATA` };
      if (isMetaType(rr.type) && rr.type !== TYPE.ANY) return { rcode: RCODE.FORMERR, reason: `RRset deletion of meta-type ${rr.type}` };
    } else if (rr.klass === CLASS.NONE) {
      if (rr.ttl !== 0) return { rcode: RCODE.FORMERR, reason: `record deletion at ${rr.name} with TTL ${rr.ttl}` };
      if (isMetaType(rr.type)) return { rcode: RCODE.FORMERR, reason: `record deletion of meta-type ${rr.type}` };
    } else return { rcode: RCODE.FORMERR, reason: `update ${rr.name} of class ${rr.klass}` };
  }
  return null;
}

/** What a prerequisite asks (RFC 2136 §2.4), once checkUpdateForm passed. */
export type PrerequisiteKind =
  /** §2.4.4, CLASS ANY, TYPE ANY: at least one RR at the name. */
  | 'name_in_use'
  /** §2.4.5, CLASS NONE, TYPE ANY: no RR at the name. */
  | 'name_not_in_use'
  /** §2.4.1, CLASS ANY: an RRset of the type at the name, whatever its records. */
  | 'rrset_exists'
  /** §2.4.3, CLASS NONE: no RRset of the type at the name. */
  | 'rrset_does_not_exist'
  /** §2.4.2, CLASS IN: the RRset is exactly the records of this class, name and type the prerequisites list. */
  | 'rrset_equals';

export function prerequisiteKind(rr: Pick<UpdateRecord, 'type' | 'klass'>): PrerequisiteKind {
  if (rr.klass === CLASS.ANY) return rr.type === TYPE.ANY ? 'name_in_use' : 'rrset_exists';
  if (rr.klass === CLASS.NONE) return rr.type === TYPE.ANY ? 'name_not_in_use' : 'rrset_does_not_exist';
  return 'rrset_equals';
}

/** What an update record does (RFC 2136 §2.5), once checkUpdateForm passed. */
export type UpdateKind =
  /** §2.5.1, CLASS IN: add the record to its RRset. */
  | 'add'
  /** §2.5.2, CLASS ANY: delete the RRset of the type. */
  | 'delete_rrset'
  /** §2.5.3, CLASS ANY, TYPE ANY: delete every RRset at the name. */
  | 'delete_name'
  /** §2.5.4, CLASS NONE: delete the one record with this RDATA. */
  | 'delete_record';

export function updateKind(rr: Pick<UpdateRecord, 'type' | 'klass'>): UpdateKind {
  if (rr.klass === CLASS.ANY) return rr.type === TYPE.ANY ? 'delete_name' : 'delete_rrset';
  if (rr.klass === CLASS.NONE) return 'delete_record';
  return 'add';
}

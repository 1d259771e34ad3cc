// Encoding the reply to a parsed query: the answer logic's decision (an Answer) or an error rcode.
import type { Answer, RRset } from '../types.js';
import { CLASSIC_UDP_PAYLOAD, OPT_RECORD_OCTETS, SERVER_UDP_PAYLOAD, type Edns } from './edns.js';
import { MessageWriter, WRITER_SLACK, type Section } from './messageWriter.js';
import type { Query, QueryError } from './query.js';

export interface ResponseOptions {
  /** The most the transport takes: the server's UDP limit (SERVER_UDP_PAYLOAD) or 65535 on TCP. */
  maxSize: number;
  tcp: boolean;
  /** Octets to leave free for a TSIG RR appended afterwards (tsig.ts tsigRecordSize). */
  reserve?: number;
}

// encodeResponse runs start to finish synchronously, so one working buffer serves every call.
const scratch = Buffer.allocUnsafe(0xffff + WRITER_SLACK);

/**
 * The size a response to `query` may have: over UDP the requester's EDNS payload size, or 512
 * without EDNS (RFC 1035 §4.2.1, RFC 6891 §6.2.5), capped by `maxSize`.
 */
export function responseSizeLimit(query: { edns: Edns | null }, options: { maxSize: number; tcp: boolean }): number {
  const transport = options.tcp ? 0xffff : (query.edns?.udpSize ?? CLASSIC_UDP_PAYLOAD);
  return Math.min(options.maxSize, transport, 0xffff);
}

function addSection(writer: MessageWriter, section: Section, rrsets: readonly RRset[]): boolean {
  for (const rrset of rrsets) if (!writer.addRRset(section, rrset)) return false;
  return true;
}

/** The additional section; false when one of the first `required` RRsets did not fit. */
function addAdditional(writer: MessageWriter, rrsets: readonly RRset[], required: number): boolean {
  for (let i = 0; i < rrsets.length; i++) if (!writer.addRRset('additional', rrsets[i]!)) return i >= required;
  return true;
}

/**
 * The response to `query` carrying `answer`. Header: the query's ID, opcode, RD and CD; QR set;
 * AA from the answer; RA and AD clear (we are authoritative only); the rcode's low 4 bits. The
 * question is echoed as sent, and owner names equal to it point there, so they carry the
 * requester's case. With EDNS in the query an OPT RR follows (RFC 6891 §7): our payload size, the
 * rcode's high bits, version 0, DO echoed (RFC 3225 §3).
 *
 * Truncation (RFC 2181 §9, RFC 1035 §4.2.1): RRsets are added whole, in order, until one does not
 * fit. Additional records are mostly optional, so running out of room there just stops; running
 * out in the answer or authority section, or among the required additional RRsets (a referral's
 * in-domain glue, RFC 9471 §3), sets TC and keeps only the complete RRsets before that point.
 * Room for the OPT RR (and `reserve`) is kept throughout, so it always fits.
 */
export function encodeResponse(query: Query, answer: Answer, options: ResponseOptions): Buffer {
  const size = responseSizeLimit(query, options);
  const writer = new MessageWriter(
    size,
    { id: query.id, opcode: query.opcode, qr: true, aa: answer.aa, rd: query.rd, cd: query.cd, rcode: answer.rcode },
    scratch,
  );
  const reserve = options.reserve ?? 0;
  writer.limit = size - reserve;
  writer.addQuestion(query.question);
  writer.limit = size - reserve - (query.edns ? OPT_RECORD_OCTETS : 0);
  const complete =
    addSection(writer, 'answer', answer.answer) &&
    addSection(writer, 'authority', answer.authority) &&
    addAdditional(writer, answer.additional, answer.requiredAdditional ?? 0);
  if (!complete) writer.setTruncated();
  writer.limit = size - reserve;
  if (query.edns) writer.addOpt({ udpSize: SERVER_UDP_PAYLOAD, extendedRcode: answer.rcode >> 4, dnssecOk: query.edns.dnssecOk });
  return writer.finish();
}

/** What an error reply needs from a request: a parsed Query or parseQuery's error result. */
export type ErrorSource = Pick<QueryError, 'id' | 'opcode' | 'rd' | 'cd' | 'question' | 'edns'>;

/**
 * A reply with `rcode` and no records: FORMERR, NOTIMP, REFUSED, NOTAUTH (for TSIG errors, with
 * the TSIG RR appended by tsig.ts), BADVERS (16: OPT version 0 with the high bits, RFC 6891
 * §6.1.3). The question is echoed when one could be read; an OPT RR is added when the request had
 * EDNS. An rcode above 15 needs EDNS in the request: a RangeError otherwise.
 */
export function encodeError(source: ErrorSource, rcode: number): Buffer {
  if (rcode > 15 && !source.edns) throw new RangeError(`rcode ${rcode} needs EDNS, and the request had none`);
  const writer = new MessageWriter(CLASSIC_UDP_PAYLOAD, { id: source.id, opcode: source.opcode, qr: true, rd: source.rd, cd: source.cd, rcode }, scratch);
  // A question is at most 259 octets and OPT 11: both always fit in 512.
  if (source.question) writer.addQuestion(source.question);
  if (source.edns) writer.addOpt({ udpSize: SERVER_UDP_PAYLOAD, extendedRcode: rcode >> 4, dnssecOk: source.edns.dnssecOk });
  return writer.finish();
}

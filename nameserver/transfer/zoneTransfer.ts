// Zone transfers as sequences of DNS messages: AXFR (RFC 5936) and IXFR (RFC 1995). What goes
// into the answer sections is decided here from a snapshot (immutable, so a transfer streams a
// consistent version while newer ones are being served) and the store's journal; the TCP server
// only writes the messages out.
import { TYPE, type ZoneDiff, type ZoneRecord } from '../types.js';
import { OPT_RECORD_OCTETS, SERVER_UDP_PAYLOAD } from '../wire/edns.js';
import { MessageWriter, WRITER_SLACK, type RecordToWrite } from '../wire/messageWriter.js';
import type { Query } from '../wire/query.js';
import { responseSizeLimit } from '../wire/response.js';
import { signMessage, tsigRecordSize, type TsigKey } from '../wire/tsig.js';
import type { ZoneSnapshot } from '../zone/snapshot.js';

const MAX_MESSAGE = 0xffff;

/** RFC 1982 serial arithmetic, from the codec's one copy: true when `a` is newer than `b`. */

function soaRecord(zone: ZoneSnapshot): ZoneRecord {
  return { name: zone.origin, type: TYPE.SOA, ttl: zone.soa.ttl, rdata: zone.soa.rdatas[0]! };
}

/** RFC 5936 §2.2: the SOA, every other record, the SOA again. */
export function* axfrRecords(zone: ZoneSnapshot): Generator<RecordToWrite> {
  // records() starts with the SOA (RFC 5936 §2.2 order).
  yield* zone.records();
  yield soaRecord(zone);
}

/** The current SOA alone: IXFR from a serial that is current or newer (RFC 1995 §2), and over UDP. */
export function* soaOnly(zone: ZoneSnapshot): Generator<RecordToWrite> {
  yield soaRecord(zone);
}

/**
 * RFC 1995 §4, incremental form: the new SOA; for each diff, the SOA it starts from, the records
 * it removes, the SOA it ends at, the records it adds; the new SOA again. Null when a diff lacks
 * its SOA records (it cannot then be told apart on the wire): send the whole zone instead.
 */
export function ixfrRecords(zone: ZoneSnapshot, diffs: readonly ZoneDiff[]): Iterable<RecordToWrite> | null {
  const steps: { oldSoa: ZoneRecord; newSoa: ZoneRecord; diff: ZoneDiff }[] = [];
  for (const diff of diffs) {
    const oldSoa = diff.removed.find((r) => r.type === TYPE.SOA && r.name === zone.origin);
    const newSoa = diff.added.find((r) => r.type === TYPE.SOA && r.name === zone.origin);
    if (!oldSoa || !newSoa) return null;
    steps.push({ oldSoa, newSoa, diff });
  }
  return (function* () {
    const current = soaRecord(zone);
    yield current;
    for (const { oldSoa, newSoa, diff } of steps) {
      yield oldSoa;
      for (const r of diff.removed) if (r !== oldSoa) yield r;
      yield newSoa;
      for (const r of diff.added) if (r !== newSoa) yield r;
    }
    yield current;
  })();
}

/**
 * Signs each message of a stream: the first with the request's MAC, later ones chained (RFC 8945
 * §5.3.1), each MAC as long as the request's (signMessage follows a truncated one).
 */
export class StreamSigner {
  private previousMac: Buffer | null = null;

  constructor(
    readonly key: TsigKey,
    private readonly requestMac: Buffer,
    private readonly now: () => Date,
  ) {}

  sign(message: Buffer): Buffer {
    const signed = this.previousMac
      ? signMessage(message, this.key, { previousMac: this.previousMac, timersOnly: true, now: this.now() })
      : signMessage(message, this.key, { requestMac: this.requestMac, now: this.now() });
    this.previousMac = signed.mac;
    return signed.message;
  }
}

export interface PackOptions {
  /** TCP: messages of up to 65535 octets; UDP: within the requester's size (responseSizeLimit). */
  tcp: boolean;
  signer: StreamSigner | null;
}

/**
 * The messages carrying `records` in their answer sections (RFC 5936 §2.2): each as full as 65535
 * octets allow (room kept for OPT and TSIG), the question in the first only, AA set, an OPT in each
 * when the request had EDNS, each signed when `signer` is given. A record too large for a message
 * of its own throws a RangeError (the caller answers SERVFAIL or ends the stream).
 */
export function* packMessages(query: Query, records: Iterable<RecordToWrite>, options: PackOptions): Generator<Buffer> {
  const maxSize = responseSizeLimit(query, { maxSize: options.tcp ? MAX_MESSAGE : SERVER_UDP_PAYLOAD, tcp: options.tcp });
  const reserve = options.signer ? tsigRecordSize(options.signer.key) : 0;
  const recordLimit = maxSize - reserve - (query.edns ? OPT_RECORD_OCTETS : 0);
  // One working buffer per transfer: the generator pauses between messages, while other queries
  // use the shared buffers of response.ts.
  const buffer = Buffer.allocUnsafe(maxSize + WRITER_SLACK);
  const header = { id: query.id, opcode: query.opcode, qr: true, aa: true, rd: query.rd, cd: query.cd, rcode: 0 };
  const start = () => {
    const w = new MessageWriter(maxSize, header, buffer);
    w.limit = recordLimit;
    return w;
  };
  const finish = (w: MessageWriter) => {
    w.limit = maxSize - reserve;
    if (query.edns) w.addOpt({ udpSize: SERVER_UDP_PAYLOAD, dnssecOk: query.edns.dnssecOk });
    const message = w.finish();
    return options.signer ? options.signer.sign(message) : message;
  };

  let writer = start();
  if (!writer.addQuestion(query.question)) throw new RangeError('question does not fit');
  for (const record of records) {
    if (writer.addRecord('answer', record)) continue;
    if (writer.recordCount === 0) throw new RangeError(`record ${record.name} type ${record.type} larger than a message`);
    yield finish(writer);
    writer = start();
    if (!writer.addRecord('answer', record)) throw new RangeError(`record ${record.name} type ${record.type} larger than a message`);
  }
  yield finish(writer);
}

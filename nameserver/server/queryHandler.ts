// One DNS message in, the reply out: what the UDP and TCP sockets call for every message they
// read. No I/O here, so the whole path can be driven (and fuzzed) in-process.
//
// The order: drop what must get no answer (quickCheck); serve from the response cache when the
// message is a plain query asked before; otherwise parse, check the TSIG (RFC 8945 §5.2: before
// anything else of the request), the EDNS version, and dispatch on opcode and type — QUERY to
// the answer logic, AXFR/IXFR to the transfer code, NOTIFY acknowledged. Anything thrown on the
// way becomes SERVFAIL and a log line (the CoreDNS rule: nothing reaches the socket as an
// exception).
import { answerQuery } from '../answer/answerQuery.js';
import { CLASS, OPCODE, RCODE, TYPE, type Answer } from '../types.js';
import { SERVER_UDP_PAYLOAD } from '../wire/edns.js';
import { FLAG, HEADER_OCTETS } from '../wire/header.js';
import { parseQuery, quickCheck, type Query } from '../wire/query.js';
import { encodeError, encodeResponse, type ErrorSource } from '../wire/response.js';
import { appendTsigError, signBadTime, signMessage, tsigRecordSize, verifyTsig, type TsigKey } from '../wire/tsig.js';
import type { ZoneStore } from '../zone/store.js';
import { axfrRecords, ixfrRecords, packMessages, soaOnly, StreamSigner } from '../transfer/zoneTransfer.js';
import { serialGreater } from '../wire/serial.js';
import { AddressList } from './addressList.js';
import type { NameserverLogger } from './logger.js';
import { cacheProbe, ResponseCache, type CacheProbe, type ResponseCacheOptions } from './responseCache.js';
import { countResponse, emptyStats, type ServerStats } from './serverStats.js';

export interface QueryContext {
  transport: 'udp' | 'tcp';
  /** The client's address as the socket reports it (IPv4, IPv6 or IPv4-mapped IPv6). */
  remoteAddress: string;
}

/**
 * A zone transfer over TCP: its messages, made one at a time as the connection reads them, so a
 * large zone never sits in memory whole. Iterating never throws: a failure before the first
 * message yields a SERVFAIL instead; a failure later ends the stream and sets `failed` (the
 * connection should then be closed: the client cannot tell a cut-off transfer otherwise).
 */
export interface TransferReply {
  readonly kind: 'transfer';
  messages(): Generator<Buffer, void, undefined>;
  readonly failed: boolean;
}

export type Reply = Buffer | TransferReply | null;

export interface QueryHandlerOptions {
  store: ZoneStore;
  /** CIDR blocks allowed AXFR/IXFR. */
  transferAllow: readonly string[];
  /** When non-empty, transfers need a valid TSIG with one of these keys. */
  tsigKeys: readonly { name: string; secret: Buffer }[];
  logger: NameserverLogger;
  /** Response cache bounds, or false to answer every query from the store. */
  cache?: ResponseCacheOptions | false;
  /** The clock TSIG is checked and signed with. */
  now?: () => Date;
  /** Counters to add to (the server shares one set between handler and sockets). */
  stats?: ServerStats;
}

const TCP_MAX = 0xffff;

export class QueryHandler {
  readonly stats: ServerStats;
  private readonly store: ZoneStore;
  private readonly allow: AddressList;
  private readonly keys: ReadonlyMap<string, Buffer>;
  private readonly logger: NameserverLogger;
  private readonly cache: ResponseCache | null;
  private readonly now: () => Date;

  constructor(options: QueryHandlerOptions) {
    this.store = options.store;
    this.allow = new AddressList(options.transferAllow);
    this.keys = new Map(options.tsigKeys.map((k) => [k.name.toLowerCase().replace(/\.$/, ''), k.secret]));
    this.logger = options.logger;
    this.cache = options.cache === false ? null : new ResponseCache(options.store, options.cache ?? {});
    this.now = options.now ?? (() => new Date());
    this.stats = options.stats ?? emptyStats();
  }

  /** Entries in the response cache. */
  get cacheSize(): number {
    return this.cache?.size ?? 0;
  }

  /**
   * The reply to one message: a response, a transfer stream (AXFR/IXFR over TCP), or null for a
   * message that gets no answer (shorter than a header, or a response). Never throws.
   */
  handleQuery(buf: Buffer, context: QueryContext): Reply {
    this.stats.queries[context.transport]++;
    if (!quickCheck(buf)) {
      this.stats.dropped++;
      return null;
    }
    try {
      let probe: CacheProbe | null = null;
      if (this.cache) {
        probe = cacheProbe(buf, context.transport === 'tcp');
        if (probe) {
          const hit = this.cache.answer(buf, probe);
          if (hit) {
            this.stats.cache.hits++;
            countResponse(this.stats, hit[3]! & 0x0f);
            return hit;
          }
          this.stats.cache.misses++;
        }
      }
      return this.answer(buf, context, probe);
    } catch (err) {
      return this.serverFailure(buf, context, err);
    }
  }

  private answer(buf: Buffer, context: QueryContext, probe: CacheProbe | null): Reply {
    const parsed = parseQuery(buf);
    if (parsed.kind === 'drop') {
      this.stats.dropped++;
      return null;
    }
    if (parsed.kind === 'error') {
      this.logger.debug({ remote: context.remoteAddress, transport: context.transport, reason: parsed.reason, rcode: parsed.rcode }, 'malformed or unsupported request');
      return this.counted(encodeError(parsed, parsed.rcode), parsed.rcode);
    }
    const query = parsed.query;

    let key: TsigKey | null = null;
    if (query.tsig) {
      const check = verifyTsig(query.raw, query.tsig, this.keys, this.now());
      if (!check.ok) return this.tsigError(query, check.error, context);
      key = check.key;
    }
    // RFC 6891 §7: a malformed OPT is FORMERR; RFC 6891 §6.1.3: a version we do not speak, BADVERS.
    if (query.ednsError) return this.error(query, RCODE.FORMERR, key);
    if (query.edns && query.edns.version !== 0) return this.error(query, RCODE.BADVERS, key);
    if (query.opcode === OPCODE.NOTIFY) return this.notifyReceived(query, key, context);

    const { qtype, qclass, name } = query.question;
    if (qtype === TYPE.AXFR || qtype === TYPE.IXFR) return this.transfer(query, key, context);
    // Only class IN is served; CHAOS (version.bind) and the rest are not ours to answer.
    if (qclass !== CLASS.IN) return this.error(query, RCODE.REFUSED, key);

    const answer: Answer = answerQuery(this.store, { name, type: qtype }, { dnssecOk: query.edns?.dnssecOk ?? false });
    const tcp = context.transport === 'tcp';
    const response = encodeResponse(query, answer, { maxSize: tcp ? TCP_MAX : SERVER_UDP_PAYLOAD, tcp, reserve: key ? tsigRecordSize(key.name) : 0 });
    countResponse(this.stats, answer.rcode);
    if (key) return this.sign(response, query, key);
    if (probe && this.cache) this.cache.remember(probe, name, qtype, response);
    return response;
  }

  /** RFC 1996 §3.7: we are the primary, so a NOTIFY changes nothing here; it is acknowledged. */
  private notifyReceived(query: Query, key: TsigKey | null, context: QueryContext): Buffer {
    this.stats.notify.received++;
    const { name, qtype, qclass } = query.question;
    const zone = qtype === TYPE.SOA && qclass === CLASS.IN ? this.store.get(name) : undefined;
    this.logger.info({ remote: context.remoteAddress, zone: name, serial: query.notifySerial, served: Boolean(zone) }, 'NOTIFY received (we are the primary: nothing to do)');
    if (!zone) return this.error(query, RCODE.NOTAUTH, key);
    const answer: Answer = { rcode: RCODE.NOERROR, aa: true, answer: [], authority: [], additional: [] };
    const tcp = context.transport === 'tcp';
    const response = encodeResponse(query, answer, { maxSize: tcp ? TCP_MAX : SERVER_UDP_PAYLOAD, tcp, reserve: key ? tsigRecordSize(key.name) : 0 });
    countResponse(this.stats, RCODE.NOERROR);
    return key ? this.sign(response, query, key) : response;
  }

  /**
   * AXFR (RFC 5936) and IXFR (RFC 1995). Refused (REFUSED) unless the client's address is in
   * transferAllow and, when keys are configured, the request carries a valid TSIG. AXFR over UDP
   * is FORMERR, after the access check, as BIND's xfrout answers it ("attempted AXFR over UDP";
   * Knot 3.2 answers NOTIMP). IXFR over UDP gets the current SOA alone (RFC 1995
   * §2), after which the client comes back over TCP.
   */
  private transfer(query: Query, key: TsigKey | null, context: QueryContext): Reply {
    const { name, qtype, qclass } = query.question;
    const kind = qtype === TYPE.AXFR ? 'AXFR' : 'IXFR';
    const log = { remote: context.remoteAddress, transport: context.transport, zone: name, kind, key: key?.name };
    const refuse = (reason: string) => {
      this.stats.transfers.refused++;
      this.logger.warn({ ...log, reason }, 'zone transfer refused');
      return this.error(query, RCODE.REFUSED, key);
    };
    if (!this.allow.includes(context.remoteAddress)) return refuse('address not in transferAllow');
    if (this.keys.size > 0 && !key) return refuse('no TSIG (keys are configured)');
    if (kind === 'AXFR' && context.transport === 'udp') {
      this.logger.info(log, 'AXFR over UDP');
      return this.error(query, RCODE.FORMERR, key);
    }
    const zone = qclass === CLASS.IN ? this.store.get(name) : undefined;
    if (!zone) {
      this.logger.info(log, 'zone transfer of a zone not served here');
      return this.error(query, RCODE.NOTAUTH, key);
    }
    const signer = key ? new StreamSigner(key, query.tsig!.mac, this.now) : null;
    const tcp = context.transport === 'tcp';

    let records;
    let style: string;
    if (kind === 'AXFR') {
      records = axfrRecords(zone);
      style = 'full';
      this.stats.transfers.axfr++;
    } else {
      this.stats.transfers.ixfr++;
      const clientSerial = query.ixfrSerial!;
      if (!tcp || clientSerial === zone.serial || serialGreater(clientSerial, zone.serial)) {
        records = soaOnly(zone);
        style = 'soa';
      } else {
        const diffs = this.store.diffsSince(name, clientSerial);
        const incremental = diffs && ixfrRecords(zone, diffs);
        records = incremental ?? axfrRecords(zone);
        style = incremental ? `incremental (${diffs!.length} diffs)` : 'full (history unknown)';
      }
    }
    this.logger.info({ ...log, serial: zone.serial, clientSerial: query.ixfrSerial, style }, 'zone transfer');
    countResponse(this.stats, RCODE.NOERROR);
    const messages = packMessages(query, records, { tcp, signer });
    if (!tcp) {
      // One SOA: a single message.
      const first = messages.next();
      if (first.done) throw new Error('transfer produced no message');
      return first.value;
    }
    return new TransferStream(messages, query, this.logger, log, () => this.stats.errors++);
  }

  /** RFC 8945 §5.2: BADKEY and BADSIG unsigned, BADTIME signed; the rcode is NOTAUTH. */
  private tsigError(query: Query, error: number, context: QueryContext): Buffer {
    const tsig = query.tsig!;
    this.logger.info({ remote: context.remoteAddress, key: tsig.keyName, error: error === RCODE.BADTIME ? 'BADTIME' : error === RCODE.BADKEY ? 'BADKEY' : 'BADSIG' }, 'TSIG verification failed');
    const response = encodeError(query, RCODE.NOTAUTH);
    countResponse(this.stats, RCODE.NOTAUTH);
    const secret = this.keys.get(tsig.keyName);
    if (error === RCODE.BADTIME && secret) return signBadTime(response, { name: tsig.keyName, secret }, tsig, this.now()).message;
    return appendTsigError(response, tsig, error);
  }

  private error(source: ErrorSource & { tsig?: Query['tsig'] }, rcode: number, key: TsigKey | null): Buffer {
    const response = this.counted(encodeError(source, rcode), rcode);
    return key && source.tsig ? signMessage(response, key, { requestMac: source.tsig.mac, now: this.now() }).message : response;
  }

  private sign(response: Buffer, query: Query, key: TsigKey): Buffer {
    return signMessage(response, key, { requestMac: query.tsig!.mac, now: this.now() }).message;
  }

  private counted(response: Buffer, rcode: number): Buffer {
    countResponse(this.stats, rcode);
    return response;
  }

  /** SERVFAIL for a message whose handling threw: with the question when it can be read. */
  private serverFailure(buf: Buffer, context: QueryContext, err: unknown): Buffer {
    this.stats.errors++;
    this.logger.error({ err, remote: context.remoteAddress, transport: context.transport, message: buf.subarray(0, 512).toString('base64') }, 'answering a query failed; SERVFAIL');
    countResponse(this.stats, RCODE.SERVFAIL);
    return servfailFor(buf);
  }
}

/** A SERVFAIL reply to `buf` (at least a header long): the question echoed when it parses. */
export function servfailFor(buf: Buffer): Buffer {
  try {
    const parsed = parseQuery(buf);
    if (parsed.kind === 'query') return encodeError(parsed.query, RCODE.SERVFAIL);
    if (parsed.kind === 'error') return encodeError(parsed, RCODE.SERVFAIL);
  } catch {
    // fall through to the bare header
  }
  const out = Buffer.alloc(HEADER_OCTETS);
  buf.copy(out, 0, 0, 2);
  const flags = buf.readUInt16BE(2);
  out.writeUInt16BE(FLAG.QR | (flags & 0x7800) | (flags & FLAG.RD) | (flags & FLAG.CD) | RCODE.SERVFAIL, 2);
  return out;
}

class TransferStream implements TransferReply {
  readonly kind = 'transfer';
  failed = false;

  constructor(
    private readonly source: Generator<Buffer>,
    private readonly query: Query,
    private readonly logger: NameserverLogger,
    private readonly log: object,
    private readonly onError: () => void,
  ) {}

  *messages(): Generator<Buffer, void, undefined> {
    let sent = 0;
    let next: IteratorResult<Buffer>;
    for (;;) {
      try {
        next = this.source.next();
      } catch (err) {
        this.failed = true;
        this.onError();
        this.logger.error({ ...this.log, err, messagesSent: sent }, 'zone transfer failed');
        if (sent === 0) yield servfailFor(this.query.raw);
        return;
      }
      if (next.done) return;
      sent++;
      yield next.value;
    }
  }
}

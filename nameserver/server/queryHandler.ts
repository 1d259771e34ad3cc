// One DNS message in, the reply out: what the UDP and TCP sockets call for every message they
// read. No I/O here, so the whole path can be driven (and fuzzed) in-process.
//
// The order: drop what must get no answer (quickCheck); serve from the response cache when the
// message is a plain unsigned query asked before; otherwise parse, check the TSIG (RFC 8945 §5.2:
// before anything else of the request) against the key ring (deployment keys, then tenant keys),
// the EDNS version, and dispatch on opcode and type — QUERY to the answer logic (answered signed
// when asked signed), AXFR/IXFR to the transfer code; a zone with an access list (zoneAccess.ts:
// a catalog zone) is answered only to the clients on it, and never from or into the cache, NOTIFY acknowledged, UPDATE (RFC 2136) to
// the UpdateHandler the service plugs in (server/updates.ts), whose answer comes later: the one
// reply that is a Promise. Anything thrown on the way becomes SERVFAIL and a log line (the
// CoreDNS rule: nothing reaches the socket as an exception).
import { answerQuery } from '../answer/answerQuery.js';
import { CLASS, OPCODE, RCODE, TYPE, type Answer } from '../types.js';
import { SERVER_UDP_PAYLOAD } from '../wire/edns.js';
import { FLAG, HEADER_OCTETS, opcodeOf } from '../wire/header.js';
import { parseQuery, quickCheck, type Query } from '../wire/query.js';
import { encodeError, encodeResponse, type ErrorSource } from '../wire/response.js';
import { appendTsigError, signBadTime, signMessage, tsigRecordSize, verifyTsig, type TsigKey, type TsigRecord } from '../wire/tsig.js';
import { checkUpdateForm, parseUpdate, type UpdateMessage } from '../wire/update.js';
import type { ZoneStore } from '../zone/store.js';
import { axfrRecords, ixfrRecords, packMessages, soaOnly, StreamSigner } from '../transfer/zoneTransfer.js';
import { serialGreater } from '../wire/serial.js';
import { AddressList } from './addressList.js';
import { TsigKeyRing, type TsigKeyConfig } from './keyRing.js';
import type { NameserverLogger } from './logger.js';
import { ResponseCache, type CacheProbe, type ResponseCacheOptions } from './responseCache.js';
import { ResponseRateLimit, RRL_DEFAULTS, type ResponseRateLimitOptions } from './responseRateLimit.js';
import { countResponse, emptyStats, type ServerStats } from './serverStats.js';
import type { UpdateHandler, UpdateRequest } from './updates.js';
import { catalogMembers } from './catalogMembers.js';
import { type ZoneAccess, ZoneAccessLists } from './zoneAccess.js';

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

/** A Promise only for an UPDATE handed to the UpdateHandler: it resolves (never rejects) to the response. */
export type Reply = Buffer | Promise<Buffer> | TransferReply | null;

/** A request that may carry a TSIG: a query or an UPDATE. */
type SignableRequest = ErrorSource & { raw: Buffer; tsig: TsigRecord | null; edns: Query['edns']; ednsError: string | null };

export interface QueryHandlerOptions {
  store: ZoneStore;
  /** CIDR blocks allowed AXFR/IXFR. */
  transferAllow: readonly string[];
  /**
   * The deployment's own keys (DNS_TSIG_KEYS). When any is set, transfers need a valid TSIG with
   * one of them. Tenants' keys come and go at run time: setTenantTsigKeys.
   */
  tsigKeys: readonly TsigKeyConfig[];
  /** Applies RFC 2136 UPDATEs; without it they are answered NOTIMP. */
  updates?: UpdateHandler;
  logger: NameserverLogger;
  /** Response cache bounds, or false to answer every query from the store. */
  cache?: ResponseCacheOptions | false;
  /** The clock TSIG is checked and signed with. */
  now?: () => Date;
  /** Counters to add to (the server shares one set between handler and sockets). */
  stats?: ServerStats;
  /**
   * Response rate limiting of this handler's UDP answers (default: NSD's defaults, RRL_DEFAULTS),
   * or false for none. The handler does not apply it: the UDP loop does (udpLoop.ts).
   */
  rateLimit?: ResponseRateLimitOptions | false;
}

const TCP_MAX = 0xffff;

export class QueryHandler {
  readonly stats: ServerStats;
  private readonly store: ZoneStore;
  private readonly allow: AddressList;
  /** The keys TSIG is checked against: the deployment's, and the tenants' (setTenantTsigKeys). */
  readonly keyRing: TsigKeyRing;
  /** The zones only some clients may read (setZoneAccess). */
  readonly zoneAccess = new ZoneAccessLists();
  private readonly updates: UpdateHandler | null;
  private readonly logger: NameserverLogger;
  private readonly cache: ResponseCache | null;
  private readonly now: () => Date;
  /** The rate limit the UDP loop applies to this handler's answers (counting into `stats`), null when off. */
  readonly udpRateLimit: ResponseRateLimit | null;

  constructor(options: QueryHandlerOptions) {
    this.store = options.store;
    this.allow = new AddressList(options.transferAllow);
    this.keyRing = new TsigKeyRing(options.tsigKeys);
    this.updates = options.updates ?? null;
    this.logger = options.logger;
    this.cache = options.cache === false ? null : new ResponseCache(options.store, options.cache ?? {});
    this.now = options.now ?? (() => new Date());
    this.stats = options.stats ?? emptyStats();
    const rateLimit = options.rateLimit ?? RRL_DEFAULTS;
    this.udpRateLimit = rateLimit && rateLimit.rate > 0 ? new ResponseRateLimit(rateLimit, this.stats.rateLimit) : null;
  }

  /**
   * Replaces the tenants' TSIG keys at once (each with its owner: the service's credential id).
   * A name one of the deployment's keys holds stays the deployment's; such names, and names given
   * twice, are logged and left out.
   */
  setTenantTsigKeys(keys: readonly TsigKey[]): void {
    const { shadowed, duplicates } = this.keyRing.setTenantKeys(keys);
    if (shadowed.length > 0 || duplicates.length > 0)
      this.logger.warn({ shadowed, duplicates }, 'tenant TSIG keys left out: name of a deployment key, or given twice');
  }

  /**
   * Replaces the zones' access lists at once. The response cache is emptied: an answer cached
   * for anyone before its zone got a list must not outlive it.
   */
  setZoneAccess(lists: readonly ZoneAccess[]): void {
    this.zoneAccess.set(lists);
    this.cache?.clear();
  }

  /** Entries in the response cache. */
  get cacheSize(): number {
    return this.cache?.size ?? 0;
  }

  /**
   * The reply to one message: a response, a transfer stream (AXFR/IXFR over TCP), a promise of
   * the response (an UPDATE handed to the UpdateHandler; it never rejects), or null for a message
   * that gets no answer (shorter than a header, or a response). Never throws.
   */
  handleQuery(buf: Buffer, context: QueryContext): Reply {
    this.stats.queries[context.transport]++;
    if (!quickCheck(buf)) {
      this.stats.dropped++;
      return null;
    }
    try {
      let probe: CacheProbe | null = null;
      const cache = this.cache;
      if (cache) {
        // The cache's one probe: nothing between here and remember (all synchronous) reads another.
        probe = cache.probe(buf, context.transport === 'tcp');
        if (probe) {
          const hit = cache.answer(buf, probe);
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
    // UPDATE has its own sections (cacheProbe let it by: its opcode is not QUERY).
    if (opcodeOf(buf.readUInt16BE(2)) === OPCODE.UPDATE) return this.update(buf, context);
    const parsed = parseQuery(buf);
    if (parsed.kind === 'drop') {
      this.stats.dropped++;
      return null;
    }
    if (parsed.kind === 'error') {
      this.logger.debug(
        { remote: context.remoteAddress, transport: context.transport, reason: parsed.reason, rcode: parsed.rcode },
        'malformed or unsupported request',
      );
      return this.counted(encodeError(parsed, parsed.rcode), parsed.rcode);
    }
    const query = parsed.query;

    const key = this.verified(query, context);
    if (Buffer.isBuffer(key)) return key;
    const ednsProblem = this.ednsProblem(query, key);
    if (ednsProblem) return ednsProblem;
    if (query.opcode === OPCODE.NOTIFY) return this.notifyReceived(query, key, context);

    const { qtype, qclass, name } = query.question;
    if (qtype === TYPE.AXFR || qtype === TYPE.IXFR) return this.transfer(query, key, context);
    // Only class IN is served; CHAOS (version.bind) and the rest are not ours to answer.
    if (qclass !== CLASS.IN) return this.bare(query, RCODE.REFUSED, key);

    const restricted = this.restrictedZone(name);
    if (restricted && !this.mayRead(restricted, context)) return this.refuseRestricted(query, key, context, restricted);

    const answer: Answer = answerQuery(this.store, { name, type: qtype }, { dnssecOk: query.edns?.dnssecOk ?? false });
    const tcp = context.transport === 'tcp';
    const response = encodeResponse(query, answer, { maxSize: tcp ? TCP_MAX : SERVER_UDP_PAYLOAD, tcp, reserve: key ? tsigRecordSize(key) : 0 });
    countResponse(this.stats, answer.rcode);
    if (key) return this.sign(response, query, key);
    // A restricted zone's answers stay out of the cache: a hit is served before the address is looked at.
    if (probe && this.cache && !restricted) this.cache.remember(probe, name, qtype, answer, response);
    return response;
  }

  /** The origin of the zone answering `name` (lower case: the parser's) when that zone has an access list, else null. */
  private restrictedZone(name: string): string | null {
    return this.zoneAccess.restrictedOriginOf(name);
  }

  /** A restricted zone is read by the clients on its list and by the deployment's transfer clients (transferAllow). */
  private mayRead(origin: string, context: QueryContext): boolean {
    return this.zoneAccess.mayQuery(origin, context.remoteAddress) || this.allow.includes(context.remoteAddress);
  }

  /** Is zone `name` a member of a catalog whose clients include this address and key? */
  private listedForClient(name: string, address: string, key: TsigKey | null): boolean {
    return this.zoneAccess.catalogsGranting(address, key).some((origin) => {
      const catalog = this.store.get(origin);
      return catalog !== undefined && catalogMembers(catalog).has(name);
    });
  }

  private refuseRestricted(query: Query, key: TsigKey | null, context: QueryContext, origin: string): Buffer {
    this.logger.info({ remote: context.remoteAddress, transport: context.transport, zone: origin }, 'query for a restricted zone refused');
    return this.bare(query, RCODE.REFUSED, key);
  }

  /** RFC 1996 §3.7: we are the primary, so a NOTIFY changes nothing here; it is acknowledged. */
  private notifyReceived(query: Query, key: TsigKey | null, context: QueryContext): Buffer {
    this.stats.notify.received++;
    const { name, qtype, qclass } = query.question;
    const restricted = this.restrictedZone(name);
    if (restricted && !this.mayRead(restricted, context)) return this.refuseRestricted(query, key, context, restricted);
    const zone = qtype === TYPE.SOA && qclass === CLASS.IN ? this.store.get(name) : undefined;
    this.logger.info(
      { remote: context.remoteAddress, zone: name, serial: query.notifySerial, served: Boolean(zone) },
      'NOTIFY received (we are the primary: nothing to do)',
    );
    if (!zone) return this.bare(query, RCODE.NOTAUTH, key);
    const answer: Answer = { rcode: RCODE.NOERROR, aa: true, answer: [], authority: [], additional: [] };
    const tcp = context.transport === 'tcp';
    const response = encodeResponse(query, answer, { maxSize: tcp ? TCP_MAX : SERVER_UDP_PAYLOAD, tcp, reserve: key ? tsigRecordSize(key) : 0 });
    countResponse(this.stats, RCODE.NOERROR);
    return key ? this.sign(response, query, key) : response;
  }

  /**
   * AXFR (RFC 5936) and IXFR (RFC 1995). Refused (REFUSED) unless the client's address is in
   * transferAllow and, when deployment keys are configured, the request carries a valid TSIG with
   * one of them; a tenant's key never authorizes a transfer, keys configured or not. A zone with
   * an access list is also transferred to the clients on it, signed with the list's key when it
   * names one (that key may be a tenant's: the set's own), and so is every zone such a zone lists
   * as a catalog (a set's members, to the set's secondaries with the set's key). AXFR over UDP
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
      return this.bare(query, RCODE.REFUSED, key);
    };
    const byList = qclass === CLASS.IN ? this.zoneAccess.mayTransfer(name, context.remoteAddress, key) : undefined;
    const granted = byList === true || (byList === undefined && qclass === CLASS.IN && this.listedForClient(name, context.remoteAddress, key));
    if (!granted) {
      if (!this.allow.includes(context.remoteAddress))
        return refuse(byList === false ? 'not allowed by the zone’s access list' : 'address not in transferAllow');
      if (key && !this.keyRing.isDeploymentKey(key)) return refuse("signed with a tenant's key");
      if (this.keyRing.hasDeploymentKeys && !key) return refuse('no TSIG (keys are configured)');
    }
    if (kind === 'AXFR' && context.transport === 'udp') {
      this.logger.info(log, 'AXFR over UDP');
      return this.bare(query, RCODE.FORMERR, key);
    }
    const zone = qclass === CLASS.IN ? this.store.get(name) : undefined;
    if (!zone) {
      this.logger.info(log, 'zone transfer of a zone not served here');
      return this.bare(query, RCODE.NOTAUTH, key);
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

  /**
   * RFC 2136 UPDATE, in this order: the message must read (FORMERR); its TSIG must verify (as for
   * queries); without an UpdateHandler, NOTIMP; a zone not served here, NOTAUTH (§3.1.1); the
   * checks of the message alone (checkUpdateForm: FORMERR, NOTZONE); unsigned, REFUSED (only
   * signed updates are taken); then the handler decides. The response repeats the zone section,
   * nothing else (§3.8), signed with the request's key.
   */
  private update(buf: Buffer, context: QueryContext): Buffer | Promise<Buffer> | null {
    this.stats.updates.received++;
    const parsed = parseUpdate(buf);
    if (parsed.kind === 'drop') {
      this.stats.dropped++;
      return null;
    }
    if (parsed.kind === 'error') {
      this.logger.debug({ remote: context.remoteAddress, transport: context.transport, reason: parsed.reason }, 'malformed UPDATE');
      return this.counted(encodeError(parsed, parsed.rcode), parsed.rcode);
    }
    const update = parsed.update;
    const key = this.verified(update, context);
    if (Buffer.isBuffer(key)) return key;
    const ednsProblem = this.ednsProblem(update, key);
    if (ednsProblem) return ednsProblem;
    const log = { remote: context.remoteAddress, transport: context.transport, zone: update.zone, key: key?.name };
    if (!this.updates) return this.bare(update, RCODE.NOTIMP, key);
    if (!this.store.get(update.zone)) {
      this.logger.info(log, 'UPDATE for a zone not served here');
      return this.bare(update, RCODE.NOTAUTH, key);
    }
    const form = checkUpdateForm(update);
    if (form) {
      this.logger.info({ ...log, reason: form.reason }, 'UPDATE refused by its form');
      return this.bare(update, form.rcode, key);
    }
    if (!key) {
      this.logger.info(log, 'unsigned UPDATE refused');
      return this.bare(update, RCODE.REFUSED, null);
    }
    this.stats.updates.handed++;
    const request: UpdateRequest = {
      zone: update.zone,
      prerequisites: update.prerequisites,
      updates: update.updates,
      key,
      transport: context.transport,
      remoteAddress: context.remoteAddress,
    };
    return this.applyUpdate(this.updates, request, update, log);
  }

  /** The handler's rcode as the response; a rejection or an rcode that is not one (0–15) is SERVFAIL. */
  private async applyUpdate(handler: UpdateHandler, request: UpdateRequest, update: UpdateMessage, log: object): Promise<Buffer> {
    let rcode: number;
    try {
      rcode = await handler(request);
      if (!Number.isInteger(rcode) || rcode < 0 || rcode > 15) throw new RangeError(`the update handler answered rcode ${String(rcode)}`);
    } catch (err) {
      this.stats.errors++;
      this.logger.error({ ...log, err }, 'UPDATE handler failed; SERVFAIL');
      rcode = RCODE.SERVFAIL;
    }
    try {
      return this.bare(update, rcode, request.key);
    } catch (err) {
      return this.serverFailure(update.raw, request, err);
    }
  }

  /**
   * The request's verified key, null when it is unsigned, or the response to send when its TSIG
   * does not verify (RFC 8945 §5.2): BADKEY and BADSIG unsigned, BADTIME signed, with rcode
   * NOTAUTH; a MAC size §5.2.2.1 does not allow, FORMERR.
   */
  private verified(request: SignableRequest, context: QueryContext): TsigKey | null | Buffer {
    const tsig = request.tsig;
    if (!tsig) return null;
    const check = verifyTsig(request.raw, tsig, this.keyRing, this.now());
    if (check.ok) return check.key;
    const name =
      { [RCODE.FORMERR]: 'MAC size', [RCODE.BADKEY]: 'BADKEY', [RCODE.BADSIG]: 'BADSIG', [RCODE.BADTIME]: 'BADTIME' }[check.error] ?? String(check.error);
    this.logger.info({ remote: context.remoteAddress, key: tsig.keyName, algorithm: tsig.algorithm, error: name }, 'TSIG verification failed');
    if (check.error === RCODE.FORMERR) return this.counted(encodeError(request, RCODE.FORMERR), RCODE.FORMERR);
    const response = this.counted(encodeError(request, RCODE.NOTAUTH), RCODE.NOTAUTH);
    if (check.error === RCODE.BADTIME && check.key) return signBadTime(response, check.key, tsig, this.now()).message;
    return appendTsigError(response, tsig, check.error);
  }

  /** RFC 6891 §7: a malformed OPT is FORMERR; RFC 6891 §6.1.3: a version we do not speak, BADVERS. */
  private ednsProblem(request: SignableRequest, key: TsigKey | null): Buffer | null {
    if (request.ednsError) return this.bare(request, RCODE.FORMERR, key);
    if (request.edns && request.edns.version !== 0) return this.bare(request, RCODE.BADVERS, key);
    return null;
  }

  /** A response of the header, the question (or zone section) and OPT alone; signed when `key` is given. */
  private bare(source: ErrorSource & { tsig?: TsigRecord | null }, rcode: number, key: TsigKey | null): Buffer {
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
    this.logger.error(
      { err, remote: context.remoteAddress, transport: context.transport, message: buf.subarray(0, 512).toString('base64') },
      'answering a query failed; SERVFAIL',
    );
    countResponse(this.stats, RCODE.SERVFAIL);
    return servfailFor(buf);
  }
}

/** A SERVFAIL reply to `buf` (at least a header long): the question echoed when it parses. */
function servfailFor(buf: Buffer): Buffer {
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

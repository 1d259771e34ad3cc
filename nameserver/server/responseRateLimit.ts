// Response rate limiting (RRL) for UDP answers, the scheme BIND, NSD and Knot share: a spoofed
// source can make an authoritative server send large answers to a victim, so the same answer to
// the same client netblock is sent at most `rate` times per second. Past that a response is
// dropped, except every `slip`-th, which leaves as a truncated reply (TC=1, the question alone:
// no larger than the query) so that a real client behind the netblock retries over TCP, where
// the source address cannot be forged. TCP answers are never limited.
//
// An "answer" is classified from the response's octets (no parsing of the request again, no
// string made per response): a positive answer by its query name and type; NXDOMAIN and NODATA by
// the owner of the first authority record (the zone's SOA owner), so a flood of random names in
// one zone shares one account; a referral by the delegation (the NS owner); every other rcode by
// the client netblock alone. Each (netblock, class) has a credit that refills at `rate` per
// second up to `rate` (one second of burst), as BIND's accounts do.
//
// The accounts live in a fixed table of `tableSize` slots indexed by a hash: a flood from random
// sources overwrites slots instead of growing memory (NSD's rrl-size). A slot taken by another
// account starts afresh, full; a collision can only let more through, never block a client.
import { AddressList } from './addressList.js';
import { writeIpv4 } from '../wire/address.js';
import { FLAG, HEADER_OCTETS } from '../wire/header.js';

export interface ResponseRateLimitOptions {
  /** Responses per second per netblock and answer; 0 turns limiting off. NSD's rrl-ratelimit: 200. */
  rate: number;
  /** Every slip-th limited response is sent truncated, the others dropped; 0 drops them all. NSD's rrl-slip: 2. */
  slip: number;
  /** The netblock an IPv4 client is counted in. NSD's rrl-ipv4-prefix-length: 24. */
  ipv4PrefixLength: number;
  /** The netblock an IPv6 client is counted in. NSD's rrl-ipv6-prefix-length: 64. */
  ipv6PrefixLength: number;
  /** Accounts kept (NSD's rrl-size: 1,000,000). */
  tableSize: number;
  /** CIDR blocks never limited (NSD's rrl-whitelist is per zone; BIND's exempt-clients is this). */
  exempt: readonly string[];
}

export const RRL_DEFAULTS: Readonly<ResponseRateLimitOptions> = {
  rate: 200,
  slip: 2,
  ipv4PrefixLength: 24,
  ipv6PrefixLength: 64,
  tableSize: 1_000_000,
  exempt: [],
};

/** What happens to one response: sent as it is, sent truncated, or not sent. */
export const RRL_SEND = 0;
export const RRL_SLIP = 1;
export const RRL_DROP = 2;
export type RateLimitDecision = typeof RRL_SEND | typeof RRL_SLIP | typeof RRL_DROP;

/** Counters the limiter adds to (ServerStats.rateLimit). */
export interface RateLimitCounters {
  dropped: number;
  slipped: number;
}

/** The classes of answer, each with accounts of its own (so an NXDOMAIN flood does not limit positive answers). */
const CLASS_POSITIVE = 1;
const CLASS_NXDOMAIN = 2;
const CLASS_NODATA = 3;
const CLASS_REFERRAL = 4;
const CLASS_ERROR = 5;

const TYPE_NS = 2;
const RCODE_NOERROR = 0;
const RCODE_NXDOMAIN = 3;
const SLOT_WORDS = 4;
/** Elapsed milliseconds are kept modulo 2^32; a gap beyond half of that is taken as "long ago". */
const LONG_AGO = 0x7fffffff;

export class ResponseRateLimit {
  private readonly rate: number;
  private readonly slip: number;
  private readonly exempt: AddressList;
  private readonly size: number;
  private readonly ipv4Mask: number;
  /** IPv6 netblock masks of the first and second 32 bits (prefixes beyond 64 bits count as 64, as in NSD). */
  private readonly ipv6Mask0: number;
  private readonly ipv6Mask1: number;
  // One slot per account, four 32-bit words in one line of memory (a slot costs one cache miss):
  // the account's check hash, its credit (a float), the time it was last used (ms, modulo 2^32),
  // and its count of limited answers since the last slip. Allocated once as zero pages.
  private readonly words: Uint32Array;
  private readonly floats: Float32Array;
  /** The client's address as 16 octets (IPv4 mapped, RFC 4291 §2.5.5.2), rewritten per response. */
  private readonly source = Buffer.alloc(16);

  constructor(
    options: ResponseRateLimitOptions,
    private readonly counters: RateLimitCounters,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(options.rate > 0) || !Number.isFinite(options.rate)) throw new RangeError('the rate limit must be a positive number of responses per second');
    if (!Number.isInteger(options.slip) || options.slip < 0 || options.slip > 255) throw new RangeError('slip must be an integer from 0 to 255');
    if (!Number.isInteger(options.tableSize) || options.tableSize < 1) throw new RangeError('the table size must be a positive integer');
    if (!(options.ipv4PrefixLength >= 0 && options.ipv4PrefixLength <= 32)) throw new RangeError('the IPv4 prefix length must be 0–32');
    if (!(options.ipv6PrefixLength >= 0 && options.ipv6PrefixLength <= 128)) throw new RangeError('the IPv6 prefix length must be 0–128');
    this.rate = options.rate;
    this.slip = options.slip;
    this.exempt = new AddressList(options.exempt);
    this.size = options.tableSize;
    this.ipv4Mask = prefixMask(options.ipv4PrefixLength);
    this.ipv6Mask0 = prefixMask(Math.min(options.ipv6PrefixLength, 32));
    this.ipv6Mask1 = prefixMask(Math.max(0, Math.min(options.ipv6PrefixLength, 64) - 32));
    this.words = new Uint32Array(this.size * SLOT_WORDS);
    this.floats = new Float32Array(this.words.buffer);
  }

  /**
   * The response to send to `address` instead of `response`: the response itself, a truncated
   * copy (slip), or null when it is dropped. Counts what it limits.
   */
  apply(response: Buffer, address: string): Buffer | null {
    const decision = this.decide(response, address);
    if (decision === RRL_SEND) return response;
    if (decision === RRL_SLIP) {
      this.counters.slipped++;
      return truncatedReply(response);
    }
    this.counters.dropped++;
    return null;
  }

  /** Whether `response` may go to `address` now, and takes it from that account's credit. */
  decide(response: Buffer, address: string): RateLimitDecision {
    if (response.length < HEADER_OCTETS || !readSource(address, this.source)) return RRL_SEND;
    const slot = this.account(response);
    if (slot < 0) return RRL_SEND;
    const now = this.now() >>> 0;
    const at = (slot % this.size) * SLOT_WORDS;
    const words = this.words;
    let credit: number;
    if (words[at] !== accountCheck) {
      words[at] = accountCheck;
      words[at + 3] = 0;
      credit = this.rate;
    } else {
      const elapsed = (now - words[at + 2]!) >>> 0;
      credit = elapsed > LONG_AGO ? this.rate : Math.min(this.rate, this.floats[at + 1]! + (elapsed * this.rate) / 1000);
    }
    words[at + 2] = now;
    if (credit >= 1) {
      this.floats[at + 1] = credit - 1;
      return RRL_SEND;
    }
    this.floats[at + 1] = credit;
    if (this.exempt.size > 0 && this.exempt.includesOctets(this.source)) return RRL_SEND;
    if (this.slip === 0) return RRL_DROP;
    const count = words[at + 3]! + 1;
    words[at + 3] = count >= this.slip ? 0 : count;
    return count >= this.slip ? RRL_SLIP : RRL_DROP;
  }

  /**
   * The account of `response` to the client in `this.source`: its slot hash (and, in
   * `accountCheck`, a second hash told apart from other accounts sharing the slot); -1 when the
   * response cannot be read (never limited: the handler made it, so this does not happen).
   */
  private account(response: Buffer): number {
    const rcode = response[3]! & 0x0f;
    const questions = response.readUInt16BE(4);
    const answers = response.readUInt16BE(6);
    const authority = response.readUInt16BE(8);
    let kind: number;
    let nameAt = -1;
    let qtype = 0;
    if (questions === 1) {
      const end = nameEnd(response, HEADER_OCTETS);
      if (end < 0 || end + 4 > response.length) return -1;
      qtype = response.readUInt16BE(end);
      nameAt = HEADER_OCTETS;
      let at = end + 4;
      if (rcode === RCODE_NOERROR && answers > 0) kind = CLASS_POSITIVE;
      else if (rcode !== RCODE_NOERROR && rcode !== RCODE_NXDOMAIN) kind = CLASS_ERROR;
      else {
        kind = rcode === RCODE_NXDOMAIN ? CLASS_NXDOMAIN : CLASS_NODATA;
        for (let i = 0; i < answers && at >= 0; i++) at = recordEnd(response, at);
        // RFC 2308 §3: the SOA owner in authority names the zone; a referral's NS owner, the delegation.
        if (authority > 0 && at >= 0) {
          const ownerEnd = nameEnd(response, at);
          if (ownerEnd >= 0 && ownerEnd + 2 <= response.length) {
            nameAt = at;
            if (kind === CLASS_NODATA && response.readUInt16BE(ownerEnd) === TYPE_NS && (response[2]! & (FLAG.AA >> 8)) === 0) kind = CLASS_REFERRAL;
          }
        }
      }
    } else kind = CLASS_ERROR;
    if (kind !== CLASS_POSITIVE) qtype = 0;
    if (kind === CLASS_ERROR) nameAt = -1;

    // Two FNV-1a style hashes at once over the netblock, the class, the type and the name octets (lower-cased).
    let h1 = 0x811c9dc5;
    let h2 = 0x267fcd16;
    const s = this.source;
    const v4 = isMappedIpv4(s);
    const block0 = v4 ? s.readUInt32BE(12) & this.ipv4Mask : s.readUInt32BE(0) & this.ipv6Mask0;
    const block1 = v4 ? 0 : s.readUInt32BE(4) & this.ipv6Mask1;
    h1 = mix(h1, block0);
    h2 = mix(h2, block0);
    h1 = mix(h1, block1);
    h2 = mix(h2, block1);
    const tag = (v4 ? 0x10000000 : 0x20000000) | (kind << 16) | qtype;
    h1 = mix(h1, tag);
    h2 = mix(h2, tag);
    if (nameAt >= 0) {
      let at = nameAt;
      let jumps = 0;
      for (;;) {
        const length = response[at];
        if (length === undefined) break;
        if (length >= 0xc0) {
          if (++jumps > 16 || at + 1 >= response.length) break;
          at = ((length & 0x3f) << 8) | response[at + 1]!;
          continue;
        }
        const stop = at + 1 + length;
        h1 = Math.imul(h1 ^ length, 0x01000193);
        h2 = Math.imul(h2 ^ length, 0x5bd1e995);
        for (let i = at + 1; i < stop && i < response.length; i++) {
          let c = response[i]!;
          if (c >= 0x41 && c <= 0x5a) c |= 0x20;
          h1 = Math.imul(h1 ^ c, 0x01000193);
          h2 = Math.imul(h2 ^ c, 0x5bd1e995);
        }
        if (length === 0) break;
        at = stop;
      }
    }
    accountCheck = finish(h2);
    return finish(h1);
  }
}

/** The second hash of the account last computed (a module variable: no object per response). */
let accountCheck = 0;

/**
 * What a limited client gets instead of the answer (the "slip"): the response's header with TC
 * set and no records, and its question, as NSD sends it — never larger than the query was.
 */
function truncatedReply(response: Buffer): Buffer {
  const questions = response.readUInt16BE(4);
  let end = HEADER_OCTETS;
  if (questions === 1) {
    const nameStop = nameEnd(response, HEADER_OCTETS);
    end = nameStop >= 0 && nameStop + 4 <= response.length ? nameStop + 4 : HEADER_OCTETS;
  }
  const out = Buffer.allocUnsafe(end);
  response.copy(out, 0, 0, end);
  out[2] = out[2]! | (FLAG.TC >> 8);
  out.writeUInt16BE(end > HEADER_OCTETS ? 1 : 0, 4);
  out.writeUInt32BE(0, 6);
  out.writeUInt16BE(0, 10);
  return out;
}

/** The offset after the (possibly compressed) name at `at`, or -1. */
function nameEnd(buf: Buffer, at: number): number {
  for (let i = 0; i < 128; i++) {
    const length = buf[at];
    if (length === undefined) return -1;
    if (length === 0) return at + 1;
    if (length >= 0xc0) return at + 2 <= buf.length ? at + 2 : -1;
    if (length > 63) return -1;
    at += 1 + length;
  }
  return -1;
}

/** The offset after the resource record at `at`, or -1. */
function recordEnd(buf: Buffer, at: number): number {
  const end = nameEnd(buf, at);
  if (end < 0 || end + 10 > buf.length) return -1;
  const next = end + 10 + buf.readUInt16BE(end + 8);
  return next <= buf.length ? next : -1;
}

function mix(h: number, word: number): number {
  h = Math.imul(h ^ (word & 0xff), 0x01000193);
  h = Math.imul(h ^ ((word >>> 8) & 0xff), 0x01000193);
  h = Math.imul(h ^ ((word >>> 16) & 0xff), 0x01000193);
  return Math.imul(h ^ (word >>> 24), 0x01000193);
}

/** Murmur3's finaliser: FNV's low bits alone spread poorly over a table index. */
function finish(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function prefixMask(bits: number): number {
  return bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
}

function isMappedIpv4(octets: Buffer): boolean {
  for (let i = 0; i < 10; i++) if (octets[i] !== 0) return false;
  return octets[10] === 0xff && octets[11] === 0xff;
}

/**
 * The client's address as the socket reports it, written as 16 octets into `out` (IPv4 as
 * IPv4-mapped IPv6) without allocating; false when it does not read. The socket gives valid
 * addresses, so IPv6 is read leniently: hex groups, one "::", a dotted quad at the end.
 */
export function readSource(text: string, out: Buffer): boolean {
  if (text.indexOf(':') < 0) {
    out.fill(0, 0, 10);
    out[10] = 0xff;
    out[11] = 0xff;
    return writeIpv4(out, 12, text);
  }
  const length = text.indexOf('%') >= 0 ? text.indexOf('%') : text.length;
  let groups = 0;
  let gap = -1;
  let value = 0;
  let digits = 0;
  let groupStart = 0;
  out.fill(0);
  for (let i = 0; i <= length; i++) {
    const c = i < length ? text.charCodeAt(i) : 0x3a;
    if (c === 0x3a) {
      const double = i + 1 < length && text.charCodeAt(i + 1) === 0x3a;
      if (digits > 0) {
        if (groups >= 8) return false;
        out.writeUInt16BE(value, 2 * groups++);
      } else if (!(i === 0 && double) && !(i === length && gap === groups && i > 1 && text.charCodeAt(i - 2) === 0x3a)) return false;
      if (double) {
        if (gap >= 0) return false;
        gap = groups;
        i++;
      }
      value = 0;
      digits = 0;
      groupStart = i + 1;
    } else if (c === 0x2e) {
      // The low 32 bits as a dotted quad: read from the group's start to the end.
      if (groups > 6) return false;
      let part = 0;
      let index = 0;
      let partDigits = 0;
      for (let j = groupStart; j <= length; j++) {
        const d = j < length ? text.charCodeAt(j) : 0x2e;
        if (d === 0x2e) {
          if (partDigits === 0 || index > 3 || part > 255) return false;
          out[2 * groups + index++] = part;
          part = 0;
          partDigits = 0;
        } else if (d >= 0x30 && d <= 0x39) {
          part = part * 10 + (d - 0x30);
          partDigits++;
        } else return false;
      }
      if (index !== 4) return false;
      groups += 2;
      break;
    } else {
      const hex = c >= 0x30 && c <= 0x39 ? c - 0x30 : (c | 0x20) >= 0x61 && (c | 0x20) <= 0x66 ? (c | 0x20) - 0x57 : -1;
      if (hex < 0 || ++digits > 4) return false;
      value = (value << 4) | hex;
    }
  }
  if (gap < 0) return groups === 8;
  if (groups > 7) return false;
  // Move the groups after "::" to the end.
  const move = 2 * (groups - gap);
  out.copy(out, 16 - move, 2 * gap, 2 * groups);
  out.fill(0, 2 * gap, 16 - move);
  return true;
}

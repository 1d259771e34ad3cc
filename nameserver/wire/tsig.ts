// TSIG (RFC 8945): verifying signed messages and signing responses, including the chained MACs
// of multi-message zone transfers (RFC 8945 §5.3.1), with the six HMAC algorithms of RFC 8945 §6
// (HMAC-MD5 under its historic name, HMAC-SHA1, -SHA224, -SHA256, -SHA384, -SHA512) and truncated
// MACs (§5.2.2.1). A key carries its algorithm: a message naming another is BADKEY.
//
// A server's use:
//   const check = verifyTsig(query.raw, query.tsig, keys, now);
//   FORMERR         → encodeError(query, RCODE.FORMERR)   (a MAC size §5.2.2.1 does not allow)
//   BADKEY / BADSIG → appendTsigError(encodeError(query, RCODE.NOTAUTH), query.tsig, check.error)
//                     (unsigned, RFC 8945 §5.3.2)
//   BADTIME         → signBadTime(encodeError(query, RCODE.NOTAUTH), check.key, query.tsig, now)
//                     (signed, RFC 8945 §5.2.3)
//   ok              → signMessage(response, key, { requestMac: query.tsig.mac, now })
// and for an AXFR/IXFR stream, message 1 as above, then every later message with
//   signMessage(next, key, { previousMac: previous.mac, timersOnly: true, now }).
// A response to a request with a truncated MAC is truncated to the same length (signMessage
// does it: the MAC's length follows `requestMac`/`previousMac`).
// Encode responses with `reserve: tsigRecordSize(key)` so the appended record still fits.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { CLASS, RCODE, TYPE } from '../types.js';
import { decodeName, encodeName } from './name.js';

export type TsigAlgorithm = 'hmac-md5' | 'hmac-sha1' | 'hmac-sha224' | 'hmac-sha256' | 'hmac-sha384' | 'hmac-sha512';

interface AlgorithmSpec {
  /** node:crypto's name of the hash. */
  hash: string;
  /** Octets of the untruncated MAC. */
  macOctets: number;
  /** The algorithm's name in a TSIG RR (RFC 8945 §6), lower case, and in wire form. */
  wireName: string;
  wire: Buffer;
}

const spec = (hash: string, macOctets: number, wireName: string): AlgorithmSpec => ({ hash, macOctets, wireName, wire: encodeName(wireName) });

const ALGORITHMS: Readonly<Record<TsigAlgorithm, AlgorithmSpec>> = {
  // RFC 8945 §6: HMAC-MD5 keeps the name it had in RFC 2845.
  'hmac-md5': spec('md5', 16, 'hmac-md5.sig-alg.reg.int'),
  'hmac-sha1': spec('sha1', 20, 'hmac-sha1'),
  'hmac-sha224': spec('sha224', 28, 'hmac-sha224'),
  'hmac-sha256': spec('sha256', 32, 'hmac-sha256'),
  'hmac-sha384': spec('sha384', 48, 'hmac-sha384'),
  'hmac-sha512': spec('sha512', 64, 'hmac-sha512'),
};

export const TSIG_ALGORITHMS = Object.keys(ALGORITHMS) as readonly TsigAlgorithm[];
/** RFC 8945 §6: HMAC-SHA256 is mandatory to implement; keys without an algorithm use it. */
export const DEFAULT_TSIG_ALGORITHM: TsigAlgorithm = 'hmac-sha256';
/** RFC 8945 §10: 300 seconds is the recommended fudge. */
const DEFAULT_FUDGE = 300;

const BY_WIRE_NAME: ReadonlyMap<string, TsigAlgorithm> = new Map(TSIG_ALGORITHMS.map((a) => [ALGORITHMS[a].wireName, a]));

export const isTsigAlgorithm = (s: string): s is TsigAlgorithm => Object.hasOwn(ALGORITHMS, s);

/** The algorithm a TSIG RR names (its algorithm field, lower case, no trailing dot); null for one we do not implement. */
export function tsigAlgorithmOf(wireName: string): TsigAlgorithm | null {
  return BY_WIRE_NAME.get(wireName) ?? null;
}

/**
 * RFC 8945 §5.2.2.1: the shortest MAC accepted is the larger of 10 octets and half the hash
 * output; anything shorter (other than the empty MAC of an error response), or longer than the
 * hash output, is a format error.
 */
export function minimumMacOctets(algorithm: TsigAlgorithm): number {
  return Math.max(10, Math.ceil(ALGORITHMS[algorithm].macOctets / 2));
}

/** Octets of `algorithm`'s untruncated MAC. */
export function fullMacOctets(algorithm: TsigAlgorithm): number {
  return ALGORITHMS[algorithm].macOctets;
}

/** A TSIG RR as read from a message (names lower case, without the trailing dot). */
export interface TsigRecord {
  keyName: string;
  /** The algorithm's name as sent (lower case): see tsigAlgorithmOf. */
  algorithm: string;
  /** Seconds since the epoch (48 bits). */
  timeSigned: number;
  fudge: number;
  mac: Buffer;
  originalId: number;
  error: number;
  otherData: Buffer;
  /** Where the TSIG RR starts in the message: the signed part ends here (RFC 8945 §4.3.1). */
  offset: number;
}

export interface TsigKey {
  /** Lower case, without the trailing dot. */
  name: string;
  algorithm: TsigAlgorithm;
  secret: Buffer;
  /**
   * Whose key it is: the service's credential id for a tenant's key, null for the deployment's own
   * keys (DNS_TSIG_KEYS), the only ones that may authorize zone transfers.
   */
  owner: string | null;
}

/** Where verifyTsig finds the key a message names (a Map, or the server's key ring). */
export interface TsigKeyFinder {
  get(name: string): TsigKey | undefined;
}

/**
 * Reads the RDATA of a TSIG RR (RFC 8945 §4.2) owned by `keyName`, whose RR starts at `offset` and
 * RDATA spans `buf[start, end)`. Null when the fields do not exactly fill the RDATA.
 */
export function readTsigRdata(buf: Buffer, keyName: string, offset: number, start: number, end: number): TsigRecord | null {
  const algorithm = decodeName(buf, start);
  if (!algorithm || algorithm.end + 10 > end) return null;
  let pos = algorithm.end;
  const timeSigned = buf.readUIntBE(pos, 6);
  const fudge = buf.readUInt16BE(pos + 6);
  const macSize = buf.readUInt16BE(pos + 8);
  pos += 10;
  if (pos + macSize + 6 > end) return null;
  const mac = buf.subarray(pos, pos + macSize);
  pos += macSize;
  const originalId = buf.readUInt16BE(pos);
  const error = buf.readUInt16BE(pos + 2);
  const otherLength = buf.readUInt16BE(pos + 4);
  pos += 6;
  if (pos + otherLength !== end) return null;
  const otherData = buf.subarray(pos, end);
  return { keyName, algorithm: algorithm.name.toLowerCase(), timeSigned, fudge, mac, originalId, error, otherData, offset };
}

/** Which MAC a message's MAC chains from, and whether it covers all TSIG variables. */
export interface TsigChain {
  /** The request's MAC: a response's MAC covers it (RFC 8945 §4.3.3). */
  requestMac?: Buffer;
  /** The previous message's MAC, for the 2nd and later messages of a stream (RFC 8945 §5.3.1). */
  previousMac?: Buffer;
  /** Cover only the timers (time signed, fudge), as later messages of a stream do. */
  timersOnly?: boolean;
}

interface TsigVariables {
  keyName: string;
  timeSigned: number;
  fudge: number;
  error: number;
  otherData: Buffer;
}

/** The MAC over `chain` prefix, the unsigned message and the TSIG variables (RFC 8945 §4.3), untruncated. */
function computeMac(key: TsigKey, header: Buffer, body: Buffer, v: TsigVariables, chain: TsigChain): Buffer {
  const algorithm = ALGORITHMS[key.algorithm];
  const hmac = createHmac(algorithm.hash, key.secret);
  const prior = chain.previousMac ?? chain.requestMac;
  // A truncated prior MAC is covered as it was sent (RFC 8945 §5.2.2.1).
  if (prior) hmac.update(u16(prior.length)).update(prior);
  hmac.update(header).update(body);
  const timers = Buffer.allocUnsafe(8);
  timers.writeUIntBE(v.timeSigned, 0, 6);
  timers.writeUInt16BE(v.fudge, 6);
  if (chain.timersOnly) return hmac.update(timers).digest();
  // RFC 8945 §4.3.3: key name and algorithm in canonical (lower case, uncompressed) form, class
  // ANY, TTL 0, then time signed, fudge, error, other length and other data.
  const classTtl = Buffer.alloc(6);
  classTtl.writeUInt16BE(CLASS.ANY, 0);
  const errorOther = Buffer.allocUnsafe(4);
  errorOther.writeUInt16BE(v.error, 0);
  errorOther.writeUInt16BE(v.otherData.length, 2);
  return hmac.update(encodeName(v.keyName, true)).update(classTtl).update(algorithm.wire).update(timers).update(errorOther).update(v.otherData).digest();
}

function u16(value: number): Buffer {
  const b = Buffer.allocUnsafe(2);
  b.writeUInt16BE(value, 0);
  return b;
}

/**
 * The outcome of verifyTsig. `error` is a TSIG error (BADKEY, BADSIG, BADTIME: answer NOTAUTH) or
 * FORMERR (a MAC size RFC 8945 §5.2.2.1 does not allow: answer FORMERR, unsigned). BADTIME names
 * the key, which signs that answer.
 */
export type TsigVerification = { ok: true; key: TsigKey } | { ok: false; error: number; key?: TsigKey };

/**
 * Checks the TSIG RR `tsig` read from `message` (RFC 8945 §5.2, in its order: key, then MAC, then
 * time). The key is found by name in `keys` and must be of the algorithm the RR names (else
 * BADKEY). The MAC is recomputed over the message as it was before signing — TSIG RR removed,
 * ARCOUNT one less, the original ID restored — and compared in constant time; a truncated MAC
 * (RFC 8945 §5.2.2.1) is compared with as many leading octets, down to minimumMacOctets; a
 * shorter one, or one longer than the hash, is FORMERR; an empty one BADSIG. The local policy for
 * truncation (§5.2.4, BADTRUNC) is the RFC's own minimum, so BADTRUNC never arises here. On a
 * reply, `chain` names the MAC it covers, and the reply's own TSIG error field (tsig.error) is
 * the caller's to read.
 */
export function verifyTsig(message: Buffer, tsig: TsigRecord, keys: TsigKeyFinder, now: Date, chain: TsigChain = {}): TsigVerification {
  const key = keys.get(tsig.keyName);
  if (!key || tsigAlgorithmOf(tsig.algorithm) !== key.algorithm) return { ok: false, error: RCODE.BADKEY };
  const size = tsig.mac.length;
  if (size > fullMacOctets(key.algorithm) || (size > 0 && size < minimumMacOctets(key.algorithm))) return { ok: false, error: RCODE.FORMERR };
  if (size === 0 || tsig.offset < 12 || tsig.offset > message.length) return { ok: false, error: RCODE.BADSIG };
  const header = Buffer.from(message.subarray(0, 12));
  header.writeUInt16BE(tsig.originalId, 0);
  header.writeUInt16BE((header.readUInt16BE(10) - 1) & 0xffff, 10);
  const expected = computeMac(key, header, message.subarray(12, tsig.offset), tsig, chain);
  if (!timingSafeEqual(expected.subarray(0, size), tsig.mac)) return { ok: false, error: RCODE.BADSIG };
  if (Math.abs(Math.floor(now.getTime() / 1000) - tsig.timeSigned) > tsig.fudge) return { ok: false, error: RCODE.BADTIME, key };
  return { ok: true, key };
}

export interface SignOptions extends TsigChain {
  now: Date;
  /** TSIG error (0, or BADTIME for a signed BADTIME response). */
  error?: number;
  otherData?: Buffer;
  /** Default: `now` in seconds. A BADTIME response repeats the request's (RFC 8945 §5.2.3). */
  timeSigned?: number;
  fudge?: number;
}

/**
 * Octets of the TSIG RR we append for `key` (an untruncated MAC, and room for a BADTIME's 6
 * octets of other data).
 */
export function tsigRecordSize(key: Pick<TsigKey, 'name' | 'algorithm'>): number {
  const algorithm = ALGORITHMS[key.algorithm];
  return encodeName(key.name).length + 10 + algorithm.wire.length + 10 + algorithm.macOctets + 6 + 6;
}

/** `message` with a TSIG RR appended and ARCOUNT incremented. */
function appendTsig(
  message: Buffer,
  keyName: string,
  algorithm: Buffer,
  v: { timeSigned: number; fudge: number; mac: Buffer; error: number; otherData: Buffer },
): Buffer {
  const owner = encodeName(keyName, true);
  const rdLength = algorithm.length + 10 + v.mac.length + 6 + v.otherData.length;
  const out = Buffer.allocUnsafe(message.length + owner.length + 10 + rdLength);
  let pos = message.copy(out, 0);
  pos += owner.copy(out, pos);
  pos = out.writeUInt16BE(TYPE.TSIG, pos);
  pos = out.writeUInt16BE(CLASS.ANY, pos);
  pos = out.writeUInt32BE(0, pos);
  pos = out.writeUInt16BE(rdLength, pos);
  pos += algorithm.copy(out, pos);
  pos = out.writeUIntBE(v.timeSigned, pos, 6);
  pos = out.writeUInt16BE(v.fudge, pos);
  pos = out.writeUInt16BE(v.mac.length, pos);
  pos += v.mac.copy(out, pos);
  pos = out.writeUInt16BE(message.readUInt16BE(0), pos); // original ID: the message's own
  pos = out.writeUInt16BE(v.error, pos);
  pos = out.writeUInt16BE(v.otherData.length, pos);
  v.otherData.copy(out, pos);
  out.writeUInt16BE(message.readUInt16BE(10) + 1, 10);
  return out;
}

/**
 * Signs `message` (complete, unsigned) with `key`: returns it with the TSIG RR appended and the
 * MAC as sent, which the next message of a stream chains from (RFC 8945 §5.3.1: `previousMac`
 * and `timersOnly: true` for every message after the first). When the MAC chained from was
 * truncated (a request signed with, say, hmac-sha256-128), this one is truncated to its length.
 */
export function signMessage(message: Buffer, key: TsigKey, options: SignOptions): { message: Buffer; mac: Buffer } {
  const v: TsigVariables = {
    keyName: key.name,
    timeSigned: options.timeSigned ?? Math.floor(options.now.getTime() / 1000),
    fudge: options.fudge ?? DEFAULT_FUDGE,
    error: options.error ?? 0,
    otherData: options.otherData ?? Buffer.alloc(0),
  };
  const full = computeMac(key, message.subarray(0, 12), message.subarray(12), v, options);
  const prior = options.previousMac ?? options.requestMac;
  const mac = prior && prior.length < full.length && prior.length >= minimumMacOctets(key.algorithm) ? full.subarray(0, prior.length) : full;
  return { message: appendTsig(message, key.name, ALGORITHMS[key.algorithm].wire, { ...v, mac }), mac };
}

/**
 * RFC 8945 §5.3.2: an error about the key or MAC (BADKEY, BADSIG) goes back unsigned — empty MAC —
 * with the request's key name, algorithm, time and fudge (no other data). `message` is the NOTAUTH response.
 */
export function appendTsigError(message: Buffer, request: TsigRecord, error: number): Buffer {
  const algorithm = encodeName(request.algorithm, true);
  return appendTsig(message, request.keyName, algorithm, {
    timeSigned: request.timeSigned,
    fudge: request.fudge,
    mac: Buffer.alloc(0),
    error,
    otherData: Buffer.alloc(0),
  });
}

/**
 * RFC 8945 §5.2.3: a BADTIME response is signed with the request's key, repeats the request's
 * time signed and fudge, and carries the server's time (48 bits) as other data, so the client can
 * verify it despite the clock difference. `message` is the NOTAUTH response.
 */
export function signBadTime(message: Buffer, key: TsigKey, request: TsigRecord, now: Date): { message: Buffer; mac: Buffer } {
  const serverTime = Buffer.alloc(6);
  serverTime.writeUIntBE(Math.floor(now.getTime() / 1000), 0, 6);
  return signMessage(message, key, {
    now,
    requestMac: request.mac,
    error: RCODE.BADTIME,
    timeSigned: request.timeSigned,
    fudge: request.fudge,
    otherData: serverTime,
  });
}

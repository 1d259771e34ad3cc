// TSIG (RFC 8945) with HMAC-SHA256: verifying signed requests and signing responses, including
// the chained MACs of multi-message zone transfers (RFC 8945 §5.3.1).
//
// A server's use:
//   const check = verifyTsig(query.raw, query.tsig, keys, now);
//   BADKEY / BADSIG → appendTsigError(encodeError(query, RCODE.NOTAUTH), query.tsig, check.error)
//                     (unsigned, RFC 8945 §5.3.2)
//   BADTIME         → signBadTime(encodeError(query, RCODE.NOTAUTH), key, query.tsig, now)
//                     (signed, RFC 8945 §5.2.3)
//   ok              → signMessage(response, key, { requestMac: query.tsig.mac, now })
// and for an AXFR/IXFR stream, message 1 as above, then every later message with
//   signMessage(next, key, { previousMac: previous.mac, timersOnly: true, now }).
// Encode responses with `reserve: tsigRecordSize(keyName)` so the appended record still fits.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { CLASS, RCODE, TYPE } from '../types.js';
import { decodeName, encodeName } from './name.js';

/** The one algorithm we speak (RFC 8945 §6: HMAC-SHA256 is mandatory to implement). */
export const TSIG_ALGORITHM = 'hmac-sha256';
/** RFC 8945 §10: 300 seconds is the recommended fudge. */
export const DEFAULT_FUDGE = 300;
const MAC_OCTETS = 32;
const ALGORITHM_WIRE = encodeName(TSIG_ALGORITHM);

/** A TSIG RR as read from a message (names lower case, without the trailing dot). */
export interface TsigRecord {
  keyName: string;
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
  secret: Buffer;
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

/** The MAC over `chain` prefix, the unsigned message and the TSIG variables (RFC 8945 §4.3). */
function computeMac(secret: Buffer, header: Buffer, body: Buffer, v: TsigVariables, chain: TsigChain): Buffer {
  const hmac = createHmac('sha256', secret);
  const prior = chain.previousMac ?? chain.requestMac;
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
  return hmac
    .update(encodeName(v.keyName, true))
    .update(classTtl)
    .update(ALGORITHM_WIRE)
    .update(timers)
    .update(errorOther)
    .update(v.otherData)
    .digest();
}

function u16(value: number): Buffer {
  const b = Buffer.allocUnsafe(2);
  b.writeUInt16BE(value, 0);
  return b;
}

export type TsigVerification = { ok: true; key: TsigKey } | { ok: false; error: number };

/**
 * Checks the TSIG RR `tsig` read from `message` (RFC 8945 §5.2, in its order: key, then MAC, then
 * time). The MAC is recomputed over the message as it was before signing — TSIG RR removed,
 * ARCOUNT one less, the original ID restored — and compared in constant time. Truncated MACs
 * (RFC 8945 §5.2.2.1) are not accepted. Errors are the TSIG error codes BADKEY, BADSIG, BADTIME.
 * `keys` maps key names (lower case, no trailing dot) to secrets. On a reply, `chain` names the
 * MAC it covers, and the reply's own TSIG error field (tsig.error) is the caller's to read.
 */
export function verifyTsig(message: Buffer, tsig: TsigRecord, keys: ReadonlyMap<string, Buffer>, now: Date, chain: TsigChain = {}): TsigVerification {
  const secret = keys.get(tsig.keyName);
  if (!secret || tsig.algorithm !== TSIG_ALGORITHM) return { ok: false, error: RCODE.BADKEY };
  if (tsig.mac.length !== MAC_OCTETS || tsig.offset < 12 || tsig.offset > message.length) return { ok: false, error: RCODE.BADSIG };
  const header = Buffer.from(message.subarray(0, 12));
  header.writeUInt16BE(tsig.originalId, 0);
  header.writeUInt16BE((header.readUInt16BE(10) - 1) & 0xffff, 10);
  const expected = computeMac(secret, header, message.subarray(12, tsig.offset), tsig, chain);
  if (!timingSafeEqual(expected, tsig.mac)) return { ok: false, error: RCODE.BADSIG };
  if (Math.abs(Math.floor(now.getTime() / 1000) - tsig.timeSigned) > tsig.fudge) return { ok: false, error: RCODE.BADTIME };
  return { ok: true, key: { name: tsig.keyName, secret } };
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

/** Octets of the TSIG RR we append for `keyName` (with room for a BADTIME's 6 octets of other data). */
export function tsigRecordSize(keyName: string): number {
  return encodeName(keyName).length + 10 + ALGORITHM_WIRE.length + 10 + MAC_OCTETS + 6 + 6;
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
 * MAC, which the next message of a stream chains from (RFC 8945 §5.3.1: `previousMac` and
 * `timersOnly: true` for every message after the first).
 */
export function signMessage(message: Buffer, key: TsigKey, options: SignOptions): { message: Buffer; mac: Buffer } {
  const v: TsigVariables = {
    keyName: key.name,
    timeSigned: options.timeSigned ?? Math.floor(options.now.getTime() / 1000),
    fudge: options.fudge ?? DEFAULT_FUDGE,
    error: options.error ?? 0,
    otherData: options.otherData ?? Buffer.alloc(0),
  };
  const mac = computeMac(key.secret, message.subarray(0, 12), message.subarray(12), v, options);
  return { message: appendTsig(message, key.name, ALGORITHM_WIRE, { ...v, mac }), mac };
}

/**
 * RFC 8945 §5.3.2: an error about the key or MAC (BADKEY, BADSIG) goes back unsigned — empty MAC —
 * with the request's key name, algorithm, time and fudge (no other data). `message` is the NOTAUTH response.
 */
export function appendTsigError(message: Buffer, request: TsigRecord, error: number): Buffer {
  const algorithm = encodeName(request.algorithm, true);
  return appendTsig(message, request.keyName, algorithm, { timeSigned: request.timeSigned, fudge: request.fudge, mac: Buffer.alloc(0), error, otherData: Buffer.alloc(0) });
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

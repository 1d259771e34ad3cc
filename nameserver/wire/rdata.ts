// RDATA between the service's record data (the JSON each record row holds) and wire form, and the
// presentation of that data: the entry points to the per-type codecs of ./types/. The data shapes
// are documented in each codec's module; names are absolute, without the trailing dot, '.' (or '')
// for the root.
import { TYPE } from '../types.js';
import { decodeName, decodeUncompressedName } from './name.js';
import { Malformed, RdataBuilder, RdataReader } from './rdataCodec.js';
import { codecOf } from './types/index.js';

/**
 * The wire RDATA of a record of `type` (mnemonic of the type table) with the service's `data`.
 * Throws a RangeError for a type without a codec or any invalid value: nothing malformed is ever
 * written. This is the test of what can be served: the API validates through it.
 */
export function encodeRdata(type: string, data: Record<string, unknown>): Buffer {
  const codec = codecOf(type);
  if (!codec) throw new RangeError(`no RDATA encoder for type "${type}"`);
  if (typeof data !== 'object' || data === null) throw new RangeError(`${type}: expected an object of fields`);
  const builder = new RdataBuilder(type, data);
  codec.encode(builder);
  return builder.result();
}

/**
 * The service's data for wire RDATA of `type` (mnemonic), the inverse of encodeRdata (names lower
 * case as the wire holds them after encodeRdata; '.' for the root). Null for a type without a
 * codec or RDATA malformed for its type.
 */
export function rdataToData(type: string, rdata: Uint8Array): Record<string, unknown> | null {
  const codec = codecOf(type);
  if (!codec) return null;
  const reader = new RdataReader(Buffer.from(rdata.buffer, rdata.byteOffset, rdata.byteLength));
  try {
    const data = codec.decode(reader);
    return reader.done() ? data : null;
  } catch (e) {
    if (e instanceof Malformed) return null;
    throw e;
  }
}

/**
 * The presentation of a record's data as the API and the zone export show it (`content`): made
 * from the wire form, so it is exactly what the nameserver serves; hex in lower case, the stored
 * form. Throws a RangeError where encodeRdata does.
 */
export function presentData(type: string, data: Record<string, unknown>): string {
  return presentRdata(type, encodeRdata(type, data));
}

/** The presentation of wire RDATA of `type` (mnemonic); throws a RangeError when it is malformed for its type. */
export function presentRdata(type: string, rdata: Uint8Array): string {
  const codec = codecOf(type);
  if (!codec) throw new RangeError(`no codec for type ${type}`);
  try {
    return codec.format(new RdataReader(Buffer.from(rdata.buffer, rdata.byteOffset, rdata.byteLength), true));
  } catch (e) {
    if (e instanceof Malformed) throw new RangeError(`malformed ${type} RDATA: ${e.message}`);
    throw e;
  }
}

/** Offset of the name in RDATA of the types whose RDATA ends in a host name to chase. */
const TARGET_OFFSET: ReadonlyMap<number, number> = new Map([
  [TYPE.NS, 0],
  [TYPE.CNAME, 0],
  [TYPE.PTR, 0],
  [TYPE.MX, 2],
  [TYPE.SRV, 6],
]);

/** RFC 9460 §2.2: the TargetName follows the SvcPriority, and SvcParams follow it. */
const SVCB_TARGET_OFFSET = 2;

/**
 * The target name in NS, CNAME, PTR, MX, SRV, SVCB and HTTPS RDATA, lower case without the
 * trailing dot ("" for the root of a null MX or SRV, and of an SVCB that names its owner): what
 * CNAME chasing and additional-section processing look up (RFC 1034 §3.6.2, §4.3.2; RFC 2782;
 * RFC 9460 §4.1). Null for other types or malformed RDATA.
 */
export function rdataTarget(type: number, rdata: Buffer): string | null {
  if (type === TYPE.SVCB || type === TYPE.HTTPS) {
    const decoded = rdata.length > SVCB_TARGET_OFFSET ? decodeUncompressedName(rdata, SVCB_TARGET_OFFSET) : null;
    return decoded ? decoded.name.toLowerCase() : null;
  }
  const offset = TARGET_OFFSET.get(type);
  if (offset === undefined) return null;
  const decoded = decodeName(rdata, offset);
  if (!decoded || decoded.end !== rdata.length) return null;
  return decoded.name.toLowerCase();
}

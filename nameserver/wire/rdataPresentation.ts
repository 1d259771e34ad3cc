// RDATA in presentation form (RFC 1035 §5.1 master-file syntax) for tests, logs and transfer
// debugging. The output matches what `dig +nosplit` prints (hex and base32hex upper case, names
// absolute with the trailing dot) so the two can be compared directly. The per-type formatting
// is each codec's (./types/).
import { Malformed, RdataReader } from './rdataCodec.js';
import { CODEC_BY_CODE } from './types/index.js';

/** RFC 3597 §5: the generic form, valid for any type. */
function generic(rdata: Buffer): string {
  return rdata.length === 0 ? '\\# 0' : `\\# ${rdata.length} ${rdata.toString('hex').toUpperCase()}`;
}

/**
 * The presentation form of `rdata` of type `type`, as in a zone file after the type mnemonic.
 * Never throws: unknown types and RDATA malformed for its type come out in the RFC 3597 generic
 * form (`\# 4 C0000201`), which any zone-file parser also accepts.
 */
export function decodeRdata(type: number, rdata: Buffer): string {
  const codec = CODEC_BY_CODE.get(type);
  if (!codec) return generic(rdata);
  const reader = new RdataReader(rdata);
  try {
    const text = codec.format(reader);
    return reader.done() ? text : generic(rdata);
  } catch (e) {
    if (e instanceof Malformed) return generic(rdata);
    throw e;
  }
}

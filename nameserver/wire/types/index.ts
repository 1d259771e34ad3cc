// The codec table: one codec per RR type the service reads and writes as data (presentation ⇄
// data ⇄ wire), each in its own module here. Every other type travels in the RFC 3597 generic
// form. API validation, zone files, the publication build, the signer and the server use these.
import type { RecordCodec } from '../rdataCodec.js';
import { isOpaqueType, TYPE } from '../rrTypes.js';
import { a, aaaa } from './address.js';
import { caa } from './caa.js';
import { cert } from './cert.js';
import { cdnskey, cds, dnskey, ds, nsec, nsec3, nsec3param, rrsig } from './dnssec.js';
import { cname, mx, ns, ptr, srv } from './hostTarget.js';
import { hinfo } from './hinfo.js';
import { loc } from './loc.js';
import { naptr } from './naptr.js';
import { opaqueCodec } from './opaque.js';
import { openpgpkey } from './openpgpkey.js';
import { rp } from './rp.js';
import { soa } from './soa.js';
import { sshfp } from './sshfp.js';
import { https, svcb } from './svcb.js';
import { smimea, tlsa } from './tlsa.js';
import { txt } from './txt.js';
import { uri } from './uri.js';

const ALL: readonly RecordCodec[] = [
  a,
  aaaa,
  ns,
  cname,
  ptr,
  mx,
  txt,
  srv,
  caa,
  tlsa,
  soa,
  dnskey,
  cdnskey,
  ds,
  cds,
  rrsig,
  nsec,
  nsec3,
  nsec3param,
  svcb,
  https,
  sshfp,
  uri,
  hinfo,
  rp,
  openpgpkey,
  smimea,
  naptr,
  cert,
  loc,
];

const CODEC_BY_TYPE: ReadonlyMap<string, RecordCodec> = new Map(ALL.map((c) => [c.type, c]));
export const CODEC_BY_CODE: ReadonlyMap<number, RecordCodec> = new Map(ALL.map((c) => [TYPE[c.type as keyof typeof TYPE], c]));

/** The mnemonics that have a codec, in table order. */
export const CODEC_TYPES: readonly string[] = ALL.map((c) => c.type);

const OPAQUE = new Map<string, RecordCodec>();

/** The codec of a type: its own, or for an unnamed `TYPEnnn` the RFC 3597 opaque one; undefined otherwise. */
export function codecOf(type: string): RecordCodec | undefined {
  const own = CODEC_BY_TYPE.get(type);
  if (own || !isOpaqueType(type)) return own;
  let codec = OPAQUE.get(type);
  if (!codec) OPAQUE.set(type, (codec = opaqueCodec(type)));
  return codec;
}

// RRSIG over one RRset (RFC 4034 §3.1.8.1, RFC 4035 §5.3): the signed data is the RRSIG RDATA
// without its signature, then every RR of the set in canonical form (RFC 4034 §6.2: owner in
// lower case and wire form, original TTL, RDATA names lower case for the types RFC 6840 §5.1
// lists) and canonical order (§6.3: RDATA as octet strings, duplicates dropped).
import { sign, verify } from 'node:crypto';
import { TYPE } from '../types.js';
import { encodeName, isAtOrBelow, splitLabels } from '../wire/name.js';
import { encodeRdata, rdataToData } from '../wire/rdata.js';
import { typeCode, typeName } from '../wire/rrTypes.js';
import { keyTag, privateKeyObject, publicKeyObject, type ZoneKey } from './keys.js';

/** Seconds since the epoch. */
export interface SignatureWindow {
  inception: number;
  expiration: number;
}

export interface SignedRRset {
  name: string;
  type: number;
  ttl: number;
  rdatas: Buffer[];
}

/**
 * RFC 4034 §6.2 item 3 as corrected by RFC 6840 §5.1 (NSEC left out; HINFO holds no name). The
 * ones the codec knows are re-encoded by it, which writes names in lower case; the others cannot
 * be written through the API and are signed as stored (the service stores them lower case).
 */
const NAMES_LOWER_CASED: ReadonlySet<number> = new Set(
  [
    'NS',
    'MD',
    'MF',
    'CNAME',
    'SOA',
    'MB',
    'MG',
    'MR',
    'PTR',
    'MINFO',
    'MX',
    'RP',
    'AFSDB',
    'RT',
    'SIG',
    'PX',
    'NXT',
    'NAPTR',
    'KX',
    'SRV',
    'DNAME',
    'A6',
    'RRSIG',
  ].map((t) => TYPE[t as keyof typeof TYPE]),
);

/** RDATA in canonical form: the stored octets unless a name in them has an upper-case letter. */
function canonicalRdata(type: number, rdata: Buffer): Buffer {
  if (!NAMES_LOWER_CASED.has(type) || !rdata.some((b) => b >= 0x41 && b <= 0x5a)) return rdata;
  const mnemonic = typeName(type);
  const data = rdataToData(mnemonic, rdata);
  return data ? encodeRdata(mnemonic, data) : rdata;
}

/** The RDATA of an RRset in canonical form and order, without duplicates (RFC 4034 §6.3). */
export function canonicalRdatas(type: number, rdatas: readonly Buffer[]): Buffer[] {
  const sorted = rdatas.map((r) => canonicalRdata(type, r)).sort(Buffer.compare);
  return sorted.filter((r, i) => i === 0 || !r.equals(sorted[i - 1]!));
}

/** RRSIG labels field (RFC 4034 §3.1.3): the owner's labels, a leading wildcard label not counted. */
function rrsigLabels(name: string): number {
  const labels = splitLabels(name);
  return labels[0] === '*' ? labels.length - 1 : labels.length;
}

/** The octets a signature covers: `prefix` (RRSIG RDATA, no signature), then each RR canonically. */
function signedData(prefix: Buffer, owner: string, type: number, originalTtl: number, rdatas: readonly Buffer[]): Buffer {
  const ownerWire = encodeName(owner, true);
  const canonical = canonicalRdatas(type, rdatas);
  const fixed = Buffer.alloc(10);
  fixed.writeUInt16BE(type, 0);
  fixed.writeUInt16BE(1, 2); // class IN
  fixed.writeUInt32BE(originalTtl, 4);
  const parts: Buffer[] = [prefix];
  for (const rdata of canonical) {
    const head = Buffer.from(fixed);
    head.writeUInt16BE(rdata.length, 8);
    parts.push(ownerWire, head, rdata);
  }
  return Buffer.concat(parts);
}

function rrsigPrefix(fields: {
  type: number;
  algorithm: number;
  labels: number;
  ttl: number;
  window: SignatureWindow;
  keyTag: number;
  signer: string;
}): Buffer {
  return encodeRdata('RRSIG', {
    type_covered: fields.type,
    algorithm: fields.algorithm,
    labels: fields.labels,
    original_ttl: fields.ttl,
    expiration: fields.window.expiration,
    inception: fields.window.inception,
    key_tag: fields.keyTag,
    signer_name: fields.signer,
    signature: '',
  });
}

/** RRSIG RDATA over `rrset` by `key` of the zone `signer`, valid during `window`. */
export function signRRset(rrset: SignedRRset, key: ZoneKey, signer: string, window: SignatureWindow): Buffer {
  const prefix = rrsigPrefix({
    type: rrset.type,
    algorithm: key.algorithm,
    labels: rrsigLabels(rrset.name),
    ttl: rrset.ttl,
    window,
    keyTag: key.keyTag,
    signer,
  });
  const data = signedData(prefix, rrset.name, rrset.type, rrset.ttl, rrset.rdatas);
  // RFC 6605 §4: r and s as two 32-octet integers, not DER; RFC 8080 §4: the 64-octet Ed25519 signature.
  const signature =
    key.algorithm === 13 ? sign('sha256', data, { key: privateKeyObject(key), dsaEncoding: 'ieee-p1363' }) : sign(null, data, privateKeyObject(key));
  return Buffer.concat([prefix, signature]);
}

/**
 * True when `rrsigRdata` is a valid signature of `rrset` by the key `dnskeyRdata` at time `now`
 * (RFC 4035 §5.3.1, §5.3.3): the type, algorithm and key tag match, the key is a zone key, the
 * owner lies at or below the signer, now is inside the window, and the signature verifies over the
 * canonical RRset with the RRSIG's original TTL (so the TTL the set is served with does not matter;
 * for a wildcard signature, the owner is rebuilt as "*." and the labels the RRSIG counts).
 */
export function verifyRRsig(rrset: SignedRRset, rrsigRdata: Buffer, dnskeyRdata: Buffer, now = Math.floor(Date.now() / 1000)): boolean {
  const sig = rdataToData('RRSIG', rrsigRdata);
  const key = rdataToData('DNSKEY', dnskeyRdata);
  if (!sig || !key) return false;
  if (typeCode(sig.type_covered as string) !== rrset.type || sig.algorithm !== key.algorithm) return false;
  if (sig.key_tag !== keyTag(dnskeyRdata) || ((key.flags as number) & 0x0100) === 0 || key.protocol !== 3) return false;
  const inception = sig.inception as number;
  const expiration = sig.expiration as number;
  if (now < inception || now > expiration) return false;
  const signer = sig.signer_name === '.' ? '' : (sig.signer_name as string);
  const owner = rrset.name.toLowerCase();
  if (!isAtOrBelow(owner, signer)) return false;
  const labels = splitLabels(owner);
  const counted = sig.labels as number;
  if (counted > labels.length) return false;
  const signedOwner = counted === labels.length ? owner : ['*', ...labels.slice(labels.length - counted)].join('.');
  const publicKey = publicKeyObject(dnskeyRdata);
  if (!publicKey) return false;
  const signature = Buffer.from(sig.signature as string, 'base64');
  const prefix = encodeRdata('RRSIG', { ...sig, signature: '' });
  const data = signedData(prefix, signedOwner, rrset.type, sig.original_ttl as number, rrset.rdatas);
  return key.algorithm === 13
    ? signature.length === 64 && verify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature)
    : verify(null, data, publicKey, signature);
}

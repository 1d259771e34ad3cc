// Record type and class mnemonics a master file may contain, and how the importer treats each type.
import { isRecordType, type RecordType } from '../records/types.js';

/** IANA "Resource Record (RR) TYPEs" registry: mnemonic → number (meta types included). */
const TYPE_NUMBERS: Readonly<Record<string, number>> = {
  A: 1, NS: 2, MD: 3, MF: 4, CNAME: 5, SOA: 6, MB: 7, MG: 8, MR: 9, NULL: 10, WKS: 11, PTR: 12,
  HINFO: 13, MINFO: 14, MX: 15, TXT: 16, RP: 17, AFSDB: 18, X25: 19, ISDN: 20, RT: 21, NSAP: 22,
  'NSAP-PTR': 23, SIG: 24, KEY: 25, PX: 26, GPOS: 27, AAAA: 28, LOC: 29, NXT: 30, EID: 31,
  NIMLOC: 32, SRV: 33, ATMA: 34, NAPTR: 35, KX: 36, CERT: 37, A6: 38, DNAME: 39, SINK: 40, OPT: 41,
  APL: 42, DS: 43, SSHFP: 44, IPSECKEY: 45, RRSIG: 46, NSEC: 47, DNSKEY: 48, DHCID: 49, NSEC3: 50,
  NSEC3PARAM: 51, TLSA: 52, SMIMEA: 53, HIP: 55, NINFO: 56, RKEY: 57, TALINK: 58, CDS: 59,
  CDNSKEY: 60, OPENPGPKEY: 61, CSYNC: 62, ZONEMD: 63, SVCB: 64, HTTPS: 65, DSYNC: 66, SPF: 99,
  UINFO: 100, UID: 101, GID: 102, UNSPEC: 103, NID: 104, L32: 105, L64: 106, LP: 107, EUI48: 108,
  EUI64: 109, TKEY: 249, TSIG: 250, IXFR: 251, AXFR: 252, MAILB: 253, MAILA: 254, ANY: 255,
  URI: 256, CAA: 257, AVC: 258, DOA: 259, AMTRELAY: 260, RESINFO: 261, WALLET: 262, TA: 32768,
  DLV: 32769,
};

const MNEMONIC_OF: ReadonlyMap<number, string> = new Map(Object.entries(TYPE_NUMBERS).map(([m, n]) => [n, m]));

/** Types the zone's signer produces itself (RFC 4034, RFC 5155, RFC 7344): never imported. */
const DNSSEC_TYPES: ReadonlySet<string> = new Set(['DNSKEY', 'RRSIG', 'NSEC', 'NSEC3', 'NSEC3PARAM', 'DS', 'CDS', 'CDNSKEY']);

const GENERIC_TYPE = /^TYPE([0-9]{1,5})$/;

/**
 * The type mnemonic of a type token (case-insensitive): a registered mnemonic, or RFC 3597
 * `TYPEnnn` (mapped to its mnemonic when the number is registered, else kept as `TYPEnnn`).
 * Null when the token is no type at all.
 */
export function typeMnemonic(token: string): string | null {
  const upper = token.toUpperCase();
  if (Object.hasOwn(TYPE_NUMBERS, upper)) return upper;
  const m = GENERIC_TYPE.exec(upper);
  if (!m) return null;
  const n = Number(m[1]);
  if (n > 65535) return null;
  return MNEMONIC_OF.get(n) ?? `TYPE${n}`;
}

export type TypeDisposition =
  | { kind: 'import'; type: RecordType }
  | { kind: 'skip'; reason: 'soa' | 'dnssec' | 'unsupported_type' };

/** What the importer does with a type (apex NS is decided by the caller, who knows the owner). */
export function typeDisposition(mnemonic: string): TypeDisposition {
  if (isRecordType(mnemonic)) return { kind: 'import', type: mnemonic };
  if (mnemonic === 'SOA') return { kind: 'skip', reason: 'soa' };
  if (DNSSEC_TYPES.has(mnemonic)) return { kind: 'skip', reason: 'dnssec' };
  return { kind: 'skip', reason: 'unsupported_type' };
}

// RFC 1035 §3.2.4 and RFC 2136 §2.4 (NONE, ANY) classes, in BIND's spellings; RFC 3597 CLASSnnn.
const OTHER_CLASSES: ReadonlySet<string> = new Set(['CH', 'CHAOS', 'HS', 'HESIOD', 'CS', 'NONE', 'ANY']);
const GENERIC_CLASS = /^CLASS[0-9]{1,5}$/;

/** The class of a class token: 'IN' (also RFC 3597 `CLASS1`), 'other' for CH, HS, …, or null. */
export function classOf(token: string): 'IN' | 'other' | null {
  const upper = token.toUpperCase();
  if (upper === 'IN' || upper === 'CLASS1') return 'IN';
  if (OTHER_CLASSES.has(upper) || GENERIC_CLASS.test(upper)) return 'other';
  return null;
}

// The one table of RR types (IANA "Resource Record (RR) TYPEs" registry): mnemonic ⇄ number for
// every registered type, and the roles the service gives some of them — which ones the API may
// write, which ones only the zone's signer produces, and which exist only in queries and
// transfers. Which types have a codec (data ⇄ wire ⇄ presentation) is the codec table's
// (./types/index.ts); types without one travel in the RFC 3597 generic form.

/** Mnemonic → number, meta types included. */
export const TYPE = {
  A: 1,
  NS: 2,
  MD: 3,
  MF: 4,
  CNAME: 5,
  SOA: 6,
  MB: 7,
  MG: 8,
  MR: 9,
  NULL: 10,
  WKS: 11,
  PTR: 12,
  HINFO: 13,
  MINFO: 14,
  MX: 15,
  TXT: 16,
  RP: 17,
  AFSDB: 18,
  X25: 19,
  ISDN: 20,
  RT: 21,
  NSAP: 22,
  'NSAP-PTR': 23,
  SIG: 24,
  KEY: 25,
  PX: 26,
  GPOS: 27,
  AAAA: 28,
  LOC: 29,
  NXT: 30,
  EID: 31,
  NIMLOC: 32,
  SRV: 33,
  ATMA: 34,
  NAPTR: 35,
  KX: 36,
  CERT: 37,
  A6: 38,
  DNAME: 39,
  SINK: 40,
  OPT: 41,
  APL: 42,
  DS: 43,
  SSHFP: 44,
  IPSECKEY: 45,
  RRSIG: 46,
  NSEC: 47,
  DNSKEY: 48,
  DHCID: 49,
  NSEC3: 50,
  NSEC3PARAM: 51,
  TLSA: 52,
  SMIMEA: 53,
  HIP: 55,
  NINFO: 56,
  RKEY: 57,
  TALINK: 58,
  CDS: 59,
  CDNSKEY: 60,
  OPENPGPKEY: 61,
  CSYNC: 62,
  ZONEMD: 63,
  SVCB: 64,
  HTTPS: 65,
  DSYNC: 66,
  SPF: 99,
  UINFO: 100,
  UID: 101,
  GID: 102,
  UNSPEC: 103,
  NID: 104,
  L32: 105,
  L64: 106,
  LP: 107,
  EUI48: 108,
  EUI64: 109,
  TKEY: 249,
  TSIG: 250,
  IXFR: 251,
  AXFR: 252,
  MAILB: 253,
  MAILA: 254,
  ANY: 255,
  URI: 256,
  CAA: 257,
  AVC: 258,
  DOA: 259,
  AMTRELAY: 260,
  RESINFO: 261,
  WALLET: 262,
  TA: 32768,
  DLV: 32769,
} as const;

export type TypeMnemonic = keyof typeof TYPE;

/**
 * Types only the zone's signer produces (RFC 4034, RFC 5155, RFC 7344): never written by users.
 * DS is not one: it is the parent's data about a child, written at a delegation like its NS.
 */
const SIGNER_ONLY: readonly TypeMnemonic[] = ['DNSKEY', 'RRSIG', 'NSEC', 'NSEC3', 'NSEC3PARAM', 'CDS', 'CDNSKEY'];
export const DNSSEC_TYPES: ReadonlySet<string> = new Set<string>(SIGNER_ONLY);
/** DNSSEC_TYPES by type code, for code that holds records rather than mnemonics (the signer, the build). */
export const DNSSEC_TYPE_CODES: ReadonlySet<number> = new Set(SIGNER_ONLY.map((t) => TYPE[t]));

const CODE_OF: ReadonlyMap<string, number> = new Map(Object.entries(TYPE));
const NAME_OF: ReadonlyMap<number, string> = new Map(Object.entries(TYPE).map(([name, code]) => [code, name]));

/** "A" → 1, "a" → 1, "TYPE65280" → 65280 (RFC 3597 §5); null for an unknown mnemonic or a code above 65535. */
export function typeCode(mnemonic: string): number | null {
  const upper = mnemonic.toUpperCase();
  const known = CODE_OF.get(upper);
  if (known !== undefined) return known;
  const m = /^TYPE(\d{1,5})$/.exec(upper);
  if (!m) return null;
  const code = Number(m[1]);
  return code <= 0xffff ? code : null;
}

/** 1 → "A", 65280 → "TYPE65280" (RFC 3597 §5: every master-file parser accepts it). */
export function typeName(code: number): string {
  return NAME_OF.get(code) ?? `TYPE${code}`;
}

/**
 * RFC 3597: `TYPEnnn` of a number the type table does not name, which the service holds as opaque
 * RDATA. Not 0 and 65535 (reserved) nor 128–255 (meta types and QTYPEs, RFC 6895 §3.1).
 */
export function isOpaqueType(mnemonic: string): mnemonic is `TYPE${number}` {
  const m = /^TYPE([1-9][0-9]{0,4})$/.exec(mnemonic);
  if (!m) return false;
  const code = Number(m[1]);
  return code < 0xffff && (code < 128 || code > 255) && !NAME_OF.has(code);
}

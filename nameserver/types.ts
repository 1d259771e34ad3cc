// The vocabulary every part of the nameserver shares: numeric codes from the IANA DNS registries
// and the shapes a zone is handed in. Names everywhere are absolute, lower case, without the
// trailing dot, '' for the root ("example.com", "www.example.com").

// Type numbers come from the one type table of the codec.
export { TYPE } from './wire/rrTypes.js';

export const CLASS = { IN: 1, CH: 3, NONE: 254, ANY: 255 } as const;

export const OPCODE = { QUERY: 0, IQUERY: 1, STATUS: 2, NOTIFY: 4, UPDATE: 5 } as const;

/** RCODE values; above 15 they need EDNS (the upper 8 bits travel in the OPT record). */
export const RCODE = {
  NOERROR: 0,
  FORMERR: 1,
  SERVFAIL: 2,
  NXDOMAIN: 3,
  NOTIMP: 4,
  REFUSED: 5,
  YXDOMAIN: 6,
  YXRRSET: 7,
  NXRRSET: 8,
  NOTAUTH: 9,
  NOTZONE: 10,
  BADVERS: 16,
  BADSIG: 16,
  BADKEY: 17,
  BADTIME: 18,
  BADTRUNC: 22,
} as const;

/**
 * One resource record as a zone holds it: RDATA already in (uncompressed) wire form. The owner is
 * absolute in a zone snapshot; a published version (src/publication) keeps it zone-relative ('@'
 * the apex) until it is loaded, so one shape serves both.
 */
export interface ZoneRecord {
  name: string;
  type: number;
  ttl: number;
  rdata: Buffer;
}

/** Records sharing owner, type and class; one TTL (RFC 2181 §5.2). */
export interface RRset {
  /** Owner as it goes on the wire (for wildcard answers: the query name). */
  name: string;
  type: number;
  ttl: number;
  rdatas: Buffer[];
}

/** What the answer logic decides, before any encoding. */
export interface Answer {
  rcode: number;
  /** Authoritative answer; clear on referrals. */
  aa: boolean;
  answer: RRset[];
  authority: RRset[];
  additional: RRset[];
  /**
   * How many of the first `additional` RRsets are required (RFC 9471: the glue of in-domain name
   * servers in a referral): when they do not all fit, the response sets TC. 0 when absent.
   */
  requiredAdditional?: number;
}

/** One published version step of a zone: what IXFR sends and what a loaded snapshot applies. */
export interface ZoneDiff {
  fromSerial: number;
  toSerial: number;
  removed: ZoneRecord[];
  added: ZoneRecord[];
}

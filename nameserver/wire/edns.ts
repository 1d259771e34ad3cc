// EDNS(0) (RFC 6891): what a query's OPT record says and what ours says back.

/**
 * The UDP payload size we advertise and the most we send over UDP: 1232 octets fits the IPv6
 * minimum MTU of 1280 without fragmentation (DNS Flag Day 2020, RFC 9715 §3).
 */
export const SERVER_UDP_PAYLOAD = 1232;
/** RFC 1035 §4.2.1: without EDNS a UDP message holds at most 512 octets. */
export const CLASSIC_UDP_PAYLOAD = 512;
/** An OPT RR without options: root name, type, class, TTL, RDLENGTH. */
export const OPT_RECORD_OCTETS = 11;

export interface Edns {
  /** The requester's UDP payload size; values below 512 count as 512 (RFC 6891 §6.2.3). */
  udpSize: number;
  version: number;
  /** The DO bit (RFC 3225 §3). */
  dnssecOk: boolean;
  /** Upper 8 bits of a 12-bit rcode (meaningful in responses). */
  extendedRcode: number;
  /** The option TLVs, undecoded (a view into the message). */
  options: Buffer;
}

/** RFC 6891 §6.1.3: the OPT TTL holds extended rcode, version, DO and Z; CLASS the payload size. */
export function ednsFromOpt(buf: Buffer, klass: number, ttl: number, rdataStart: number, rdataEnd: number): Edns {
  return {
    udpSize: Math.max(klass, CLASSIC_UDP_PAYLOAD),
    extendedRcode: ttl >>> 24,
    version: (ttl >>> 16) & 0xff,
    dnssecOk: (ttl & 0x8000) !== 0,
    options: buf.subarray(rdataStart, rdataEnd),
  };
}

/**
 * True when octets [start, end) of `buf` are a well-formed sequence of {code, length, data} (RFC
 * 6891 §6.1.2). Offsets rather than a subarray: the response cache checks a query's options with
 * nothing allocated.
 */
export function wellFormedOptions(buf: Buffer, start = 0, end = buf.length): boolean {
  let pos = start;
  while (pos < end) {
    if (pos + 4 > end) return false;
    pos += 4 + ((buf[pos + 2]! << 8) | buf[pos + 3]!);
  }
  return pos === end;
}

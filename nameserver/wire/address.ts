// IP addresses between text and the octets of A (RFC 1035 §3.4.1) and AAAA (RFC 3596 §2.2)
// RDATA: the one address module of the service (API validation, zone files, the publication
// build and the server all read and write addresses here). Parsing is strict: a wrong address
// must never reach the wire as some other address. Output is one text form per address, the one
// dig and kdig print (inet_ntop of BIND and glibc), so the API, the zone export and the served
// data always read alike: RFC 5952 §4, with the IPv4-mapped (::ffff:0:0/96) and IPv4-compatible
// (::/96 but :: and ::x) prefixes of RFC 4291 §2.5.5 in mixed notation (RFC 5952 §5).

/**
 * Writes the dotted quad `text` as 4 octets at `offset`; false when it is not one. Each part is
 * decimal 0–255 without leading zeros: "010" is octal to inet_aton and decimal to others.
 */
export function writeIpv4(target: Buffer, offset: number, text: string): boolean {
  let part = 0;
  let digits = 0;
  let index = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0x2e;
    if (c === 0x2e) {
      if (digits === 0 || index > 3) return false;
      target[offset + index++] = part;
      part = 0;
      digits = 0;
    } else if (c >= 0x30 && c <= 0x39) {
      if (digits > 0 && part === 0) return false; // leading zero
      part = part * 10 + (c - 0x30);
      if (++digits > 3 || part > 255) return false;
    } else return false;
  }
  return index === 4;
}

const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

/**
 * Writes an IPv6 address in any RFC 4291 §2.2 text form (full, "::"-compressed, or with the low
 * 32 bits as an embedded dotted quad) as 16 octets at `offset`; false when it is not one. A zone
 * index ("fe80::1%eth0") is local to a host and has no wire form.
 */
export function writeIpv6(target: Buffer, offset: number, text: string): boolean {
  const halves = text.split('::');
  if (halves.length > 2) return false;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 ? (halves[1] ? halves[1].split(':') : []) : null;
  const groups: number[] = [];
  const last = tail ?? head;
  let embedded: Buffer | null = null;
  if (last.length > 0 && last[last.length - 1]!.includes('.')) {
    embedded = Buffer.alloc(4);
    if (!writeIpv4(embedded, 0, last.pop()!)) return false;
  }
  const explicit = head.length + (tail?.length ?? 0) + (embedded ? 2 : 0);
  if (tail === null ? explicit !== 8 : explicit > 7) return false;
  for (const g of head) {
    if (!HEX_GROUP.test(g)) return false;
    groups.push(parseInt(g, 16));
  }
  if (tail !== null) {
    for (let i = explicit; i < 8; i++) groups.push(0);
    for (const g of tail) {
      if (!HEX_GROUP.test(g)) return false;
      groups.push(parseInt(g, 16));
    }
  }
  for (let i = 0; i < groups.length; i++) target.writeUInt16BE(groups[i]!, offset + 2 * i);
  if (embedded) embedded.copy(target, offset + 12);
  return true;
}

/** Dotted quad of the 4 octets at `offset`. */
export function formatIpv4(buf: Buffer, offset: number): string {
  return `${buf[offset]}.${buf[offset + 1]}.${buf[offset + 2]}.${buf[offset + 3]}`;
}

/**
 * RFC 5952 §4 text of the 16 octets at `offset`: lower case, no leading zeros, the longest run
 * (first of equals) of two or more zero groups as "::". RFC 5952 §5: addresses with an IPv4
 * address in the low 32 bits under a well-known prefix of RFC 4291 §2.5.5 — IPv4-mapped
 * (::ffff:0:0/96) and the deprecated IPv4-compatible (::/96 except :: and ::x) — keep the dotted
 * quad, as inet_ntop in BIND and glibc writes them.
 */
export function formatIpv6(buf: Buffer, offset: number): string {
  const groups: number[] = [];
  for (let i = 0; i < 8; i++) groups.push(buf.readUInt16BE(offset + 2 * i));
  if (groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0) {
    if (groups[5] === 0xffff) return `::ffff:${formatIpv4(buf, offset + 12)}`;
    if (groups[5] === 0 && groups[6] !== 0) return `::${formatIpv4(buf, offset + 12)}`;
  }
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

const ipv4Scratch = Buffer.alloc(4);
const ipv6Scratch = Buffer.alloc(16);

/** The canonical dotted quad of `text` (which is then `text` itself), or null when it is none. */
export function canonicalIpv4(text: string): string | null {
  return writeIpv4(ipv4Scratch, 0, text) ? formatIpv4(ipv4Scratch, 0) : null;
}

/** The one text form (see the top of this file) of an IPv6 address in any RFC 4291 §2.2 form, or null. */
export function canonicalIpv6(text: string): string | null {
  return writeIpv6(ipv6Scratch, 0, text) ? formatIpv6(ipv6Scratch, 0) : null;
}

// Zone files for the outside tools, written through the codec's presentation (decodeRdata), and a
// varied unsigned zone to sign.
import { TYPE, type ZoneRecord } from '../../nameserver/types.js';
import { encodeRdata } from '../../nameserver/wire/rdata.js';
import { decodeRdata } from '../../nameserver/wire/rdataPresentation.js';
import { typeCode, typeName } from '../../nameserver/wire/rrTypes.js';

/** One master-file line per record: absolute owner, TTL, class, type, RDATA. */
export function zoneFileText(records: readonly ZoneRecord[]): string {
  return records.map((r) => `${r.name === '' ? '.' : `${r.name}.`} ${r.ttl} IN ${typeName(r.type)} ${decodeRdata(r.type, r.rdata)}\n`).join('');
}

/** A record of a named type or of an RFC 3597 TYPEnnn (data: { rdata: hex }). */
export const record = (name: string, type: keyof typeof TYPE | `TYPE${number}`, data: Record<string, unknown>, ttl = 3600): ZoneRecord => ({
  name,
  type: typeCode(type)!,
  ttl,
  rdata: encodeRdata(type, data),
});

/**
 * Apex with SOA, NS, MX and TXT; A/AAAA; a CNAME; a wildcard; an empty non-terminal (b.c, with
 * a.b.c below it); a secure delegation (DS, in-bailiwick glue two levels down) and an insecure one
 * (glue at and below the cut); owners with escapes ("\." inside a label, \DDD); HTTPS and SVCB
 * with escapes in their params; a record of every type the API writes and of an opaque TYPEnnn.
 */
export function variedZone(zone: string, serial = 2026112501): ZoneRecord[] {
  const at = (label: string) => (label === '@' ? zone : `${label}.${zone}`);
  return [
    record(zone, 'SOA', { mname: at('ns1'), rname: `hostmaster.${zone}`, serial, refresh: 7200, retry: 3600, expire: 1209600, minimum: 300 }),
    record(zone, 'NS', { nameserver: at('ns1') }),
    record(zone, 'NS', { nameserver: 'ns.other.test' }),
    record(zone, 'MX', { preference: 10, exchange: at('mail') }),
    record(zone, 'TXT', { text: 'v=spf1 mx -all' }),
    record(zone, 'A', { address: '192.0.2.1' }),
    record(at('ns1'), 'A', { address: '192.0.2.53' }),
    record(at('mail'), 'A', { address: '192.0.2.25' }),
    record(at('mail'), 'AAAA', { address: '2001:db8::25' }),
    record(at('www'), 'CNAME', { target: zone }),
    record(at('*.wild'), 'TXT', { text: 'wildcard' }, 600),
    record(at('a.b.c'), 'A', { address: '192.0.2.3' }),
    record(at('secure'), 'NS', { nameserver: at('ns.deep.secure') }),
    record(at('secure'), 'DS', { key_tag: 12345, algorithm: 13, digest_type: 2, digest: 'ab'.repeat(32) }),
    record(at('ns.deep.secure'), 'A', { address: '192.0.2.54' }),
    record(at('insecure'), 'NS', { nameserver: at('insecure') }),
    record(at('insecure'), 'A', { address: '192.0.2.55' }),
    record(at('ns.insecure'), 'AAAA', { address: '2001:db8::55' }),
    record(at('dot\\.in\\.label'), 'A', { address: '192.0.2.7' }),
    record(at('sp\\032ace\\255'), 'TXT', { text: 'escaped octets' }),
    // At a name that exists anyway (the denial chains stay as they are). No escapes in alpn: ldns
    // 1.8 reads RFC 9460's two escape levels in an ALPN id as one (Appendix D.2 Figure 9).
    record(at('a.b.c'), 'HTTPS', { priority: 1, target: '.', params: { alpn: ['h3', 'h2'], port: 443, ipv4hint: ['192.0.2.3'], ech: 'AEX+DQ==' } }),
    record(at('a.b.c'), 'SVCB', { priority: 2, target: at('Ns1'), params: { mandatory: ['alpn'], alpn: ['dot'], dohpath: '/q{?dns}', key65000: 'x\\001\\"' } }),
    // One record of every other type the API writes, and an RFC 3597 opaque one. Names inside RDATA
    // in mixed case: the codecs write them in lower case, the canonical form of the types RFC 4034
    // §6.2 lists and the only form served.
    record(at('every'), 'MX', { preference: 20, exchange: at('Mail') }),
    record(at('every'), 'SRV', { priority: 1, weight: 2, port: 5060, target: at('SIP.Every') }),
    record(at('every'), 'RP', { mailbox: `Admin.${zone}`, text: at('Every') }),
    record(at('every'), 'NAPTR', { order: 100, preference: 10, flags: 'U', services: 'E2U+sip', regexp: '!^.*$!sip:info@example.test!', replacement: '.' }),
    record(at('every'), 'NAPTR', { order: 101, preference: 10, flags: 'S', services: 'SIP+D2U', regexp: '', replacement: `_Sip._UDP.${zone}` }),
    record(at('every'), 'CAA', { flags: 0, tag: 'issue', value: 'ca.example.net' }),
    record(at('every'), 'SSHFP', { algorithm: 4, fingerprint_type: 2, fingerprint: 'AB'.repeat(32) }),
    record(at('every'), 'URI', { priority: 10, weight: 1, target: 'https://Every.Example.test/' }),
    record(at('every'), 'HINFO', { cpu: 'RISC-V', os: 'Linux 6' }),
    record(at('every'), 'CERT', { cert_type: 1, key_tag: 12345, algorithm: 13, certificate: 'AQIDBAUGBwg=' }),
    record(at('every'), 'LOC', { latitude: 52.5, longitude: -13.25, altitude: 34.5, size: 1, horizontal_precision: 10000, vertical_precision: 10 }),
    record(at('every'), 'PTR', { target: at('WWW') }),
    record(at('every'), 'TYPE65400', { rdata: '00ff10' }),
    record(at('_443._tcp.every'), 'TLSA', { usage: 3, selector: 1, matching_type: 1, certificate_data: 'cd'.repeat(32) }),
    record(at('cname.every'), 'CNAME', { target: at('Every') }),
    record(at(`${'ab'.repeat(28)}._openpgpkey`), 'OPENPGPKEY', { public_key: 'mQINBGAAAAABEAC=' }),
    record(at(`${'ab'.repeat(28)}._smimecert`), 'SMIMEA', { usage: 3, selector: 1, matching_type: 1, certificate_data: 'ef'.repeat(32) }),
  ];
}

// Zone files for the outside tools, written through the codec's presentation (decodeRdata), and a
// varied unsigned zone to sign.
import { TYPE, type ZoneRecord } from '../../nameserver/types.js';
import { encodeRdata } from '../../nameserver/wire/rdata.js';
import { decodeRdata } from '../../nameserver/wire/rdataPresentation.js';
import { typeName } from '../../nameserver/wire/rrTypes.js';

/** One master-file line per record: absolute owner, TTL, class, type, RDATA. */
export function zoneFileText(records: readonly ZoneRecord[]): string {
  return records.map((r) => `${r.name === '' ? '.' : `${r.name}.`} ${r.ttl} IN ${typeName(r.type)} ${decodeRdata(r.type, r.rdata)}\n`).join('');
}

export const record = (name: string, type: keyof typeof TYPE, data: Record<string, unknown>, ttl = 3600): ZoneRecord => ({
  name,
  type: TYPE[type],
  ttl,
  rdata: encodeRdata(type, data),
});

/**
 * Apex with SOA, NS, MX and TXT; A/AAAA; a CNAME; a wildcard; an empty non-terminal (b.c, with
 * a.b.c below it); a secure delegation (DS, in-bailiwick glue two levels down) and an insecure one
 * (glue at and below the cut); owners with escapes ("\." inside a label, \DDD); HTTPS and SVCB
 * with escapes in their params.
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
    record(at('a.b.c'), 'SVCB', { priority: 2, target: at('ns1'), params: { mandatory: ['alpn'], alpn: ['dot'], dohpath: '/q{?dns}', key65000: 'x\\001\\"' } }),
  ];
}

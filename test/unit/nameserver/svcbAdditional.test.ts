// RFC 9460 §4.1: an authoritative answer to an SVCB or HTTPS query carries, in the additional
// section, the A and AAAA records (and the SVCB/HTTPS set, for an AliasMode chain) of every
// TargetName the zone holds; a TargetName of "." is the owner itself in ServiceMode (§2.5) and
// names no service in AliasMode.
import { describe, expect, it } from 'vitest';
import { answerQuery } from '../../../nameserver/answer/answerQuery.js';
import type { RRset, ZoneRecord } from '../../../nameserver/types.js';
import { decodeRdata } from '../../../nameserver/wire/rdataPresentation.js';
import { typeCode, typeName } from '../../../nameserver/wire/rrTypes.js';
import { buildZoneSnapshot } from '../../../nameserver/zone/snapshot.js';
import { ZoneStore } from '../../../nameserver/zone/store.js';
import { rdataFromText } from '../../../src/domain/zonefile/rdataFromPresentation.js';

const ZONE = `
example.com 3600 SOA ns1.example.com. hostmaster.example.com. 1 7200 3600 1209600 300
example.com 3600 NS ns1.example.net.
example.com 300 HTTPS 1 . alpn=h3,h2
example.com 300 A 192.0.2.1
example.com 300 AAAA 2001:db8::1
www.example.com 300 HTTPS 0 cdn.example.com.
cdn.example.com 300 HTTPS 1 . alpn=h2
cdn.example.com 300 A 192.0.2.80
api.example.com 300 HTTPS 1 svc.example.com. port=8443
api.example.com 300 HTTPS 2 svc2.example.com.
api.example.com 300 HTTPS 3 svc.example.org.
svc.example.com 300 AAAA 2001:db8::443
gone.example.com 300 HTTPS 0 .
gone.example.com 300 A 192.0.2.99
_dns.resolver.example.com 300 SVCB 1 doh.example.com. alpn=h2 dohpath=/dns-query{?dns}
doh.example.com 300 A 192.0.2.53
*.wild.example.com 300 HTTPS 1 . alpn=h2
*.wild.example.com 300 A 192.0.2.7
`;

function record(line: string): ZoneRecord {
  const [name, ttl, type, ...rest] = line.split(/\s+/);
  const rdata = rdataFromText(type!, rest.join(' '));
  if (!rdata.ok) throw new Error(`${line}: ${rdata.detail}`);
  return { name: name!, type: typeCode(type!)!, ttl: Number(ttl), rdata: rdata.value };
}

const store = new ZoneStore();
store.set(
  buildZoneSnapshot(
    'example.com',
    ZONE.split('\n')
      .filter((l) => l.trim())
      .map(record),
  ),
);

const text = (rrsets: RRset[]) => rrsets.flatMap((s) => s.rdatas.map((r) => `${s.name} ${typeName(s.type)} ${decodeRdata(s.type, r)}`)).sort();
const ask = (name: string, type: string) => {
  const a = answerQuery(store, { name, type: typeCode(type)! }, { dnssecOk: false });
  return { answer: text(a.answer), additional: text(a.additional) };
};

describe('SVCB and HTTPS additional-section processing (RFC 9460 §4.1)', () => {
  it('ServiceMode with TargetName ".": the owner’s own addresses', () => {
    expect(ask('example.com', 'HTTPS').additional).toEqual(['example.com A 192.0.2.1', 'example.com AAAA 2001:db8::1']);
  });

  it('AliasMode: the target’s HTTPS set and its addresses', () => {
    expect(ask('www.example.com', 'HTTPS').additional).toEqual(['cdn.example.com A 192.0.2.80', 'cdn.example.com HTTPS 1 . alpn="h2"']);
  });

  it('several targets: those the zone holds, each once; names elsewhere add nothing', () => {
    expect(ask('api.example.com', 'HTTPS').additional).toEqual(['svc.example.com AAAA 2001:db8::443']);
  });

  it('AliasMode with ".": no service, nothing added', () => {
    expect(ask('gone.example.com', 'HTTPS').additional).toEqual([]);
  });

  it('SVCB (DNR/DDR style) too', () => {
    expect(ask('_dns.resolver.example.com', 'SVCB').additional).toEqual(['doh.example.com A 192.0.2.53']);
  });

  it('an answer from a wildcard adds nothing (exact names only, as for MX and SRV)', () => {
    const a = ask('x.wild.example.com', 'HTTPS');
    expect(a.answer).toEqual(['x.wild.example.com HTTPS 1 . alpn="h2"']);
    expect(a.additional).toEqual([]);
  });
});

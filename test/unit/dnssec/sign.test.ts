// verifyRRsig against signRRset: what one signs verifies, whatever the order, case or served TTL;
// any change of the signed data, another key or a time outside the window does not.
import { describe, expect, it } from 'vitest';
import { TYPE } from '../../../nameserver/types.js';
import { encodeName } from '../../../nameserver/wire/name.js';
import { encodeRdata, rdataToData } from '../../../nameserver/wire/rdata.js';
import { dnskeyRdata, generateZoneKey, type DnssecAlgorithm } from '../../../nameserver/dnssec/keys.js';
import { signRRset, verifyRRsig } from '../../../nameserver/dnssec/sign.js';

const zone = 'example.test';
const window = { inception: 1_800_000_000, expiration: 1_800_000_000 + 14 * 86400 };
const during = window.inception + 86400;
const a = (address: string) => encodeRdata('A', { address });

describe.each([13, 15] as DnssecAlgorithm[])('RRSIGs of algorithm %i', (algorithm) => {
  const key = generateZoneKey('zsk', algorithm);
  const dnskey = dnskeyRdata(key);
  const rrset = { name: `www.${zone}`, type: TYPE.A, ttl: 300, rdatas: [a('192.0.2.2'), a('192.0.2.1')] };
  const rrsig = signRRset(rrset, key, zone, window);

  it('carry the fields of RFC 4034 §3.1 and verify for the signed RRset', () => {
    expect(rdataToData('RRSIG', rrsig)).toMatchObject({
      type_covered: 'A',
      algorithm,
      labels: 3,
      original_ttl: 300,
      expiration: window.expiration,
      inception: window.inception,
      key_tag: key.keyTag,
      signer_name: zone,
    });
    expect(verifyRRsig(rrset, rrsig, dnskey, during)).toBe(true);
  });

  it('verify whatever the order of the RDATA, the case of the owner and the TTL it is served with', () => {
    expect(verifyRRsig({ ...rrset, rdatas: [...rrset.rdatas].reverse() }, rrsig, dnskey, during)).toBe(true);
    expect(verifyRRsig({ ...rrset, name: `WWW.Example.TEST` }, rrsig, dnskey, during)).toBe(true);
    expect(verifyRRsig({ ...rrset, ttl: 17 }, rrsig, dnskey, during)).toBe(true);
    expect(verifyRRsig({ ...rrset, rdatas: [...rrset.rdatas, rrset.rdatas[0]!] }, rrsig, dnskey, during)).toBe(true);
  });

  it('do not verify for changed data: another owner, type, RDATA added, removed or changed', () => {
    expect(verifyRRsig({ ...rrset, name: `ww.${zone}` }, rrsig, dnskey, during)).toBe(false);
    expect(verifyRRsig({ ...rrset, type: TYPE.AAAA }, rrsig, dnskey, during)).toBe(false);
    expect(verifyRRsig({ ...rrset, rdatas: [...rrset.rdatas, a('192.0.2.3')] }, rrsig, dnskey, during)).toBe(false);
    expect(verifyRRsig({ ...rrset, rdatas: rrset.rdatas.slice(1) }, rrsig, dnskey, during)).toBe(false);
    expect(verifyRRsig({ ...rrset, rdatas: [a('192.0.2.2'), a('192.0.2.9')] }, rrsig, dnskey, during)).toBe(false);
  });

  it('do not verify with another key, a changed signature or RRSIG field, or outside the window', () => {
    expect(verifyRRsig(rrset, rrsig, dnskeyRdata(generateZoneKey('zsk', algorithm)), during)).toBe(false);
    for (const at of [rrsig.length - 1, rrsig.length - 40, 4 /* original TTL */, 8 /* expiration */]) {
      const changed = Buffer.from(rrsig);
      changed[at]! ^= 0x01;
      expect(verifyRRsig(rrset, changed, dnskey, during), `octet ${at}`).toBe(false);
    }
    expect(verifyRRsig(rrset, rrsig, dnskey, window.expiration + 1)).toBe(false);
    expect(verifyRRsig(rrset, rrsig, dnskey, window.inception - 1)).toBe(false);
    expect(verifyRRsig(rrset, rrsig, dnskey, window.expiration)).toBe(true);
  });

  it('of a wildcard count the labels without "*" and verify for names the wildcard stands for', () => {
    const wildcard = { name: `*.w.${zone}`, type: TYPE.TXT, ttl: 60, rdatas: [encodeRdata('TXT', { text: 'any' })] };
    const sig = signRRset(wildcard, key, zone, window);
    expect(rdataToData('RRSIG', sig)!.labels).toBe(3);
    expect(verifyRRsig(wildcard, sig, dnskey, during)).toBe(true);
    expect(verifyRRsig({ ...wildcard, name: `x.w.${zone}` }, sig, dnskey, during)).toBe(true);
    expect(verifyRRsig({ ...wildcard, name: `x.y.w.${zone}` }, sig, dnskey, during)).toBe(true);
    expect(verifyRRsig({ ...wildcard, name: `x.v.${zone}` }, sig, dnskey, during)).toBe(false);
  });

  it('sign names in RDATA lower case for the types of RFC 6840 §5.1, and TXT as it is', () => {
    const upperMx = Buffer.concat([Buffer.of(0, 10), encodeName('MAIL.Example.TEST')]);
    const lowerMx = encodeRdata('MX', { preference: 10, exchange: `mail.${zone}` });
    expect(upperMx.equals(lowerMx)).toBe(false);
    const mx = { name: zone, type: TYPE.MX, ttl: 300, rdatas: [upperMx] };
    expect(verifyRRsig({ ...mx, rdatas: [lowerMx] }, signRRset(mx, key, zone, window), dnskey, during)).toBe(true);
    const txt = { name: zone, type: TYPE.TXT, ttl: 300, rdatas: [encodeRdata('TXT', { text: 'MAIL.Example' })] };
    expect(verifyRRsig({ ...txt, rdatas: [encodeRdata('TXT', { text: 'mail.example' })] }, signRRset(txt, key, zone, window), dnskey, during)).toBe(false);
  });

  it('are not accepted from a key that is not a zone key (flags without bit 7)', () => {
    expect(verifyRRsig(rrset, rrsig, dnskeyRdata({ ...key, flags: 0 as 256 }), during)).toBe(false);
  });
});

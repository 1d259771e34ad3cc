// Key tags and DS digests of the keys we generate, compared with what ldns and BIND compute from
// the same DNSKEY lines.
import { describe, expect, it } from 'vitest';
import { TYPE } from '../../../nameserver/types.js';
import { encodeRdata } from '../../../nameserver/wire/rdata.js';
import { decodeRdata } from '../../../nameserver/wire/rdataPresentation.js';
import { dnskeyRdata, dsRdata, generateZoneKey, keyTag, type DnssecAlgorithm } from '../../../nameserver/dnssec/keys.js';
import { requireTool, runTool, tempFile } from '../../helpers/dnsTools.js';
import { zoneFileText } from '../../helpers/zoneText.js';

const zone = 'keys.example';
const algorithms: DnssecAlgorithm[] = [13, 15];

/** "owner. TTL IN DS 1234 13 2 ABCD…" → "1234 13 2 abcd…", whatever the tool's spacing and case. */
const dsText = (line: string) => {
  const m = /\bDS\s+(\d+)\s+(\d+)\s+(\d+)\s+([0-9A-Fa-f\s]+)$/.exec(line.trim());
  return m ? `${m[1]} ${m[2]} ${m[3]} ${m[4]!.replace(/\s/g, '').toLowerCase()}` : null;
};

describe.each(algorithms)('keys of algorithm %i', (algorithm) => {
  const keys = [generateZoneKey('ksk', algorithm), generateZoneKey('zsk', algorithm), generateZoneKey('ksk', algorithm)];
  const dnskeys = keys.map((k) => ({ name: zone, type: TYPE.DNSKEY, ttl: 3600, rdata: dnskeyRdata(k) }));
  const ours = keys.map((k) => decodeRdata(TYPE.DS, dsRdata(zone, dnskeyRdata(k))).toLowerCase()).sort();

  it('have the public key field of RFC 6605 / RFC 8080 and the flags of their role', () => {
    expect(keys.map((k) => [k.flags, k.publicKey.length])).toEqual([
      [257, algorithm === 13 ? 64 : 32],
      [256, algorithm === 13 ? 64 : 32],
      [257, algorithm === 13 ? 64 : 32],
    ]);
    for (const k of keys) expect(k.keyTag).toBe(keyTag(dnskeyRdata(k)));
  });

  it('have the key tags and SHA-256 DS records ldns-key2ds -n -2 computes', (ctx) => {
    const tool = requireTool('ldns-key2ds', ctx);
    for (const [i, dnskey] of dnskeys.entries()) {
      const file = tempFile('key', zoneFileText([dnskey]));
      try {
        // -f: a DS for the ZSK too, to compare its key tag.
        const run = runTool(tool, ['-f', '-n', '-2', file.file]);
        expect(run.status, run.output).toBe(0);
        const theirs = run.stdout
          .split('\n')
          .map(dsText)
          .filter((t) => t !== null);
        expect(theirs).toEqual([decodeRdata(TYPE.DS, dsRdata(zone, dnskey.rdata)).toLowerCase()]);
        expect(Number(theirs[0]!.split(' ')[0])).toBe(keys[i]!.keyTag);
      } finally {
        file.remove();
      }
    }
  });

  it('have the DS records dnssec-dsfromkey -2 computes', (ctx) => {
    const tool = requireTool('dnssec-dsfromkey', ctx);
    const file = tempFile('keys.zone', zoneFileText(dnskeys));
    try {
      const run = runTool(tool, ['-2', '-A', '-f', file.file, zone]);
      expect(run.status, run.output).toBe(0);
      const theirs = run.stdout
        .split('\n')
        .map(dsText)
        .filter((t) => t !== null)
        .sort();
      expect(theirs).toEqual(ours);
    } finally {
      file.remove();
    }
  });
});

describe('key tags', () => {
  it('match RFC 4034 §5.4: the RSA/SHA-1 key of dskey.example.com has tag 60485', () => {
    const rdata = encodeRdata('DNSKEY', {
      flags: 256,
      protocol: 3,
      algorithm: 5,
      public_key:
        'AQOeiiR0GOMYkDshWoSKz9XzfwJr1AYtsmx3TGkJaNXVbfi/2pHm822aJ5iI9BMzNXxeYCmZDRD99WYwYqUSdjMmmAphXdvxegXd/M5+X7OrzKBaMbCVdFLUUh6DhweJBjEVv5f2wwjM9XzcnOf+EPbtG9DMBmADjFDc2w/rljwvFw==',
    });
    expect(keyTag(rdata)).toBe(60485);
  });
});

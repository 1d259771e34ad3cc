// signZone on a zone of 10,000 names (SOA, two NS, an A at every name, AAAA and TXT at every
// tenth, a secure delegation with glue every hundredth), algorithm 13 and NSEC3 (RFC 9276), side
// by side with ldns-signzone -n on the same records: a full signing, then — ours only, since the
// point of `previous` — a one-record change signed again with the previous output.
//
//   node --import tsx bench/signZone.ts [--names 10000] [--rounds 3]
//
// Medians over the rounds. ldns-signzone runs in its own process (reading and writing zone files,
// included in its time); it is skipped when not installed.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TYPE, type ZoneRecord } from '../nameserver/types.js';
import { encodeRdata } from '../nameserver/wire/rdata.js';
import { decodeRdata } from '../nameserver/wire/rdataPresentation.js';
import { typeName } from '../nameserver/wire/rrTypes.js';
import { generateZoneKey } from '../src/dnssec/keys.js';
import { signZone, type SignPolicy } from '../src/dnssec/signZone.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 && args[at + 1] !== undefined ? args[at + 1]! : fallback;
};
const NAMES = Number(option('names', '10000'));
const ROUNDS = Number(option('rounds', '3'));
const zone = 'bench.example';

const rr = (name: string, type: keyof typeof TYPE, data: Record<string, unknown>): ZoneRecord => ({ name, type: TYPE[type], ttl: 3600, rdata: encodeRdata(type, data) });

function zoneRecords(serial: number, changedAddress = '10.0.0.1'): ZoneRecord[] {
  const records = [
    rr(zone, 'SOA', { mname: `ns1.${zone}`, rname: `hostmaster.${zone}`, serial, refresh: 7200, retry: 3600, expire: 1209600, minimum: 300 }),
    rr(zone, 'NS', { nameserver: `ns1.${zone}` }),
    rr(zone, 'NS', { nameserver: `ns2.${zone}` }),
  ];
  for (let i = 0; i < NAMES; i++) {
    const name = `h${i}.${zone}`;
    if (i % 100 === 99) {
      records.push(rr(name, 'NS', { nameserver: `ns.${name}` }), rr(`ns.${name}`, 'A', { address: '10.9.9.9' }));
      records.push(rr(name, 'DS', { key_tag: i, algorithm: 13, digest_type: 2, digest: (i % 256).toString(16).padStart(2, '0').repeat(32) }));
      continue;
    }
    records.push(rr(name, 'A', { address: i === 0 ? changedAddress : `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` }));
    if (i % 10 === 0) records.push(rr(name, 'AAAA', { address: `2001:db8::${i.toString(16)}` }), rr(name, 'TXT', { text: `name ${i}` }));
  }
  return records;
}

const zoneText = (records: readonly ZoneRecord[]) => records.map((r) => `${r.name}. ${r.ttl} IN ${typeName(r.type)} ${decodeRdata(r.type, r.rdata)}\n`).join('');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const time = (f: () => unknown) => {
  const start = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - start) / 1e6;
};

const now = Math.floor(Date.now() / 1000);
const policy: SignPolicy = { denial: 'nsec3', window: { inception: now - 3600, expiration: now + 14 * 86400 }, refreshBefore: now + 7 * 86400, dnskeyTtl: 3600, cds: 'keys' };
const keys = { ksks: [generateZoneKey('ksk', 13)], zsks: [generateZoneKey('zsk', 13)] };
const v1Records = zoneRecords(1);
const v2Records = zoneRecords(2, '10.0.0.2');

const full: number[] = [];
const incremental: number[] = [];
let signedCount = 0;
for (let round = 0; round < ROUNDS; round++) {
  let v1: ZoneRecord[] = [];
  full.push(time(() => (v1 = signZone(zone, v1Records, keys, policy))));
  signedCount = v1.length;
  incremental.push(time(() => signZone(zone, v2Records, keys, policy, v1)));
}
console.log(`records in: ${v1Records.length}, signed zone: ${signedCount} records (${NAMES} names, NSEC3, algorithm 13)`);
console.log(`signZone, full:                      median ${median(full).toFixed(0)} ms  (${full.map((t) => t.toFixed(0)).join(', ')})`);
console.log(`signZone, one A changed + previous:  median ${median(incremental).toFixed(0)} ms  (${incremental.map((t) => t.toFixed(0)).join(', ')})`);

const ldns = spawnSync('sh', ['-c', 'command -v ldns-signzone'], { encoding: 'utf8' }).stdout.trim();
if (!ldns) {
  console.log('ldns-signzone not installed: skipped');
} else {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-signzone-'));
  try {
    const keygen = (ksk: boolean) => spawnSync('ldns-keygen', ['-a', 'ECDSAP256SHA256', ...(ksk ? ['-k'] : []), zone], { cwd: dir, encoding: 'utf8' }).stdout.trim();
    const ldnsKeys = [keygen(true), keygen(false)];
    fs.writeFileSync(path.join(dir, 'zone'), zoneText(v1Records));
    const ldnsTimes: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      ldnsTimes.push(
        time(() => {
          const run = spawnSync(ldns, ['-n', '-t', '0', '-o', zone, '-f', 'zone.signed', 'zone', ...ldnsKeys], { cwd: dir, encoding: 'utf8' });
          if (run.status !== 0) throw new Error(`ldns-signzone failed: ${run.stderr}`);
        }),
      );
    }
    const lines = fs.readFileSync(path.join(dir, 'zone.signed'), 'utf8').split('\n').filter((l) => l && !l.startsWith(';')).length;
    console.log(`ldns-signzone -n -t 0 (no salt), full: median ${median(ldnsTimes).toFixed(0)} ms  (${ldnsTimes.map((t) => t.toFixed(0)).join(', ')}), ${lines} records`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

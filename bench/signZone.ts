// signZone on a zone of 10,000 names (SOA, two NS, an A at every name, AAAA and TXT at every
// tenth, a secure delegation with glue every hundredth), algorithm 13 and NSEC3 (RFC 9276), side
// by side with ldns-signzone and dnssec-signzone on the same records: a full signing, then — ours
// only, since the point of `previous` — a one-record change signed again with the previous output.
// --names 82000 gives 100,043 records (the 100,000-record zone).
//
//   node --import tsx bench/signZone.ts [--names 10000] [--rounds 3]
//
// Rounds alternate ours and the peers; medians over the rounds.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TYPE, type ZoneRecord } from '../nameserver/types.js';
import { encodeRdata } from '../nameserver/wire/rdata.js';
import { decodeRdata } from '../nameserver/wire/rdataPresentation.js';
import { typeName } from '../nameserver/wire/rrTypes.js';
import { generateZoneKey } from '../nameserver/dnssec/keys.js';
import { signZone, type SignPolicy } from '../nameserver/dnssec/signZone.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 && args[at + 1] !== undefined ? args[at + 1]! : fallback;
};
const NAMES = Number(option('names', '10000'));
const ROUNDS = Number(option('rounds', '3'));
const zone = 'bench.example';

const rr = (name: string, type: keyof typeof TYPE, data: Record<string, unknown>): ZoneRecord => ({
  name,
  type: TYPE[type],
  ttl: 3600,
  rdata: encodeRdata(type, data),
});

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
      records.push(rr(name, 'DS', { key_tag: i & 0xffff, algorithm: 13, digest_type: 2, digest: (i % 256).toString(16).padStart(2, '0').repeat(32) }));
      continue;
    }
    records.push(rr(name, 'A', { address: i === 0 ? changedAddress : `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` }));
    if (i % 10 === 0)
      records.push(rr(name, 'AAAA', { address: `2001:db8::${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}` }), rr(name, 'TXT', { text: `name ${i}` }));
  }
  return records;
}

const zoneText = (records: readonly ZoneRecord[]) =>
  records.map((r) => `${r.name}. ${r.ttl} IN ${typeName(r.type)} ${decodeRdata(r.type, r.rdata)}\n`).join('');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const time = (f: () => unknown) => {
  const start = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - start) / 1e6;
};

const now = Math.floor(Date.now() / 1000);
const policy: SignPolicy = {
  denial: 'nsec3',
  window: { inception: now - 3600, expiration: now + 14 * 86400 },
  refreshBefore: now + 7 * 86400,
  dnskeyTtl: 3600,
  cds: 'keys',
};
const keys = { ksks: [generateZoneKey('ksk', 13)], zsks: [generateZoneKey('zsk', 13)] };
const v1Records = zoneRecords(1);
const v2Records = zoneRecords(2, '10.0.0.2');

// The peers, each in a process of its own (reading and writing zone files, included in its time):
// ldns-signzone -n -t 0 -s '' and BIND's dnssec-signzone -3 - -H 0 -n 1 (one signing thread),
// with ECDSA P-256 keys of their own. Skipped when not installed.
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim() !== '';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-signzone-'));
fs.writeFileSync(path.join(dir, 'zone'), zoneText(v1Records));
const peers: { label: string; run: () => void; times: number[] }[] = [];
const runIn = (tool: string, toolArgs: string[]) => () => {
  const run = spawnSync(tool, toolArgs, { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (run.status !== 0) throw new Error(`${tool} failed: ${run.stderr}`);
};
if (has('ldns-signzone')) {
  const keygen = (ksk: boolean) =>
    spawnSync('ldns-keygen', ['-a', 'ECDSAP256SHA256', ...(ksk ? ['-k'] : []), zone], { cwd: dir, encoding: 'utf8' }).stdout.trim();
  const ldnsKeys = [keygen(true), keygen(false)];
  peers.push({
    label: "ldns-signzone -n -t 0 -s ''",
    run: runIn('ldns-signzone', ['-n', '-t', '0', '-s', '', '-o', zone, '-f', 'zone.ldns', 'zone', ...ldnsKeys]),
    times: [],
  });
} else console.log('ldns-signzone not installed: skipped');
if (has('dnssec-signzone')) {
  const bindDir = path.join(dir, 'bind');
  fs.mkdirSync(bindDir);
  spawnSync('dnssec-keygen', ['-q', '-K', bindDir, '-a', 'ECDSAP256SHA256', '-f', 'KSK', zone], { encoding: 'utf8' });
  spawnSync('dnssec-keygen', ['-q', '-K', bindDir, '-a', 'ECDSAP256SHA256', zone], { encoding: 'utf8' });
  peers.push({
    label: 'dnssec-signzone -3 - -H 0 -n 1',
    run: runIn('dnssec-signzone', ['-q', '-3', '-', '-H', '0', '-n', '1', '-O', 'full', '-S', '-K', bindDir, '-o', zone, '-f', 'zone.bind', 'zone']),
    times: [],
  });
} else console.log('dnssec-signzone not installed: skipped');

// Rounds alternate: ours (full, then the one-record re-signing), then each peer.
const full: number[] = [];
const incremental: number[] = [];
let signedCount = 0;
try {
  for (let round = 0; round < ROUNDS; round++) {
    let v1: ZoneRecord[] = [];
    full.push(time(() => (v1 = signZone(zone, v1Records, keys, policy))));
    signedCount = v1.length;
    incremental.push(time(() => signZone(zone, v2Records, keys, policy, v1)));
    v1 = [];
    for (const peer of peers) peer.times.push(time(peer.run));
  }
  const count = (file: string) =>
    fs
      .readFileSync(path.join(dir, file), 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith(';')).length;
  console.log(`${new Date().toISOString()}, nproc ${os.cpus().length}, ${os.cpus()[0]?.model}, Node ${process.version}`);
  console.log(`records in: ${v1Records.length}, signed zone: ${signedCount} records (${NAMES} names, NSEC3, algorithm 13)`);
  console.log(`signZone, full:                      median ${median(full).toFixed(0)} ms  (${full.map((t) => t.toFixed(0)).join(', ')})`);
  console.log(`signZone, one A changed + previous:  median ${median(incremental).toFixed(0)} ms  (${incremental.map((t) => t.toFixed(0)).join(', ')})`);
  for (const peer of peers) {
    const out = peer.label.startsWith('ldns') ? 'zone.ldns' : 'zone.bind';
    console.log(
      `${peer.label}, full: median ${median(peer.times).toFixed(0)} ms  (${peer.times.map((t) => t.toFixed(0)).join(', ')}), ${count(out)} lines; signZone ÷ it: ${(median(full) / median(peer.times)).toFixed(2)}`,
    );
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}

// RFC 2136 dynamic update, acknowledged → answered (issue 24's figure): --clients (default 10)
// clients, each on its own TCP connection, each sending --updates (default 50) UPDATEs signed with
// its own TSIG key (hmac-sha256), every one adding a TXT record at a new name
// (`c<k>-r<round><phase><n>-<i>.bench.<zone>`: an UPDATE that changes nothing would be
// acknowledged without a new version), client k in zone k mod --zones (default 10: one zone
// per client, as customers each with their own zone; --zones 1: one zone for all).
//   flat    each client sends its next UPDATE as soon as the last is acknowledged: accepted
//           updates per second, and send → acknowledgement (the signed NOERROR, its TSIG checked).
//   follow  after each acknowledgement, unsigned UDP TXT queries for the name (at once, then every
//           millisecond) until the nameserver answers the record: acknowledged → answered, and
//           how often the first query already had it (ours answers an UPDATE once the version is
//           live, so it should; Knot answers once the update is applied to its zone).
// Targets (--targets, default knot,ours), side by side in one run, rounds alternating:
//   knot  knotd (Debian's knot 3.2) as the zones' primary, its update ACL naming the clients' keys
//   ours  the service as `npm start` runs it (bench/lib/benchService.ts: embedded PostgreSQL under
//         a fresh DATA_DIR, or DATABASE_URL naming a scratch database), zones and keys made
//         through the API (`POST /zones`, `POST /tsig-keys` limited to TXT at `*.bench.<zone>`);
//         in the same run, /nic/update with as many DynDNS clients (bench/lib/dyndnsLoad.ts, as
//         bench/dyndns.ts), flat and followed to the nameserver, in zones of their own:
//         the issue asks UPDATE's accepted updates/s to be ≥ that figure.
//   ours-nowait  the same with DNS_UPDATE_WAIT_MS=0: answered at the commit, as /nic/update is,
//         not once live (issue 24's default); what the wait costs a closed-loop client.
//
//   node --import tsx bench/dnsUpdateLatency.ts [--updates 50] [--clients 10] [--zones 10] [--targets knot,ours[,ours-nowait]] [--rounds 1] [--phases flat,follow] [--skip-nic-update]
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { TYPE } from '../nameserver/types.js';
import { startKnotPrimary } from '../test/helpers/knot.js';
import { portOutsideEphemeralRange } from '../test/helpers/reservedPort.js';
import { knotZoneText } from './lib/acmeTargets.js';
import { benchApi, createLiveZone, liftRateLimits, startBenchService } from './lib/benchService.js';
import { answerRdata, TcpExchanger, tsigKey, txtAddUpdate, txtRdata, type UpdateKey, udpQuery, udpSocket, updateOutcome } from './lib/dnsUpdate.js';
import { createDyndnsHosts, type DyndnsHost, nicUpdatePhase, percentile } from './lib/dyndnsLoad.js';

const { values: opts } = parseArgs({
  options: {
    updates: { type: 'string', default: '50' },
    clients: { type: 'string', default: '10' },
    zones: { type: 'string', default: '10' },
    targets: { type: 'string', default: 'knot,ours' },
    rounds: { type: 'string', default: '1' },
    phases: { type: 'string', default: 'flat,follow' },
    'skip-nic-update': { type: 'boolean', default: false },
  },
});
const perClient = Number(opts.updates);
const clients = Number(opts.clients);
const zoneCount = Math.min(Number(opts.zones), clients);
const rounds = Number(opts.rounds);
const targetNames = opts.targets.split(',');
const phases = opts.phases.split(',').map((p) => {
  if (p !== 'flat' && p !== 'follow') throw new Error(`unknown phase ${p} (flat, follow)`);
  return p === 'follow';
});

interface UpdateTarget {
  name: string;
  dnsPort: number;
  zones: string[];
  /** Client k's key, for zones[k % zones.length]. */
  keys: UpdateKey[];
  /** Ours: the /nic/update clients of the same service. */
  nic?: { base: string; hosts: DyndnsHost[] };
  close(): Promise<void>;
}

const zoneOf = (t: { zones: string[] }, k: number) => t.zones[k % t.zones.length]!;

async function knotTarget(): Promise<UpdateTarget> {
  const zones = Array.from({ length: zoneCount }, (_, i) => `upd-knot-${i}.test`);
  const keys = Array.from({ length: clients }, (_, k) => ({
    name: `c${k}.${zones[k % zoneCount]}.`,
    algorithm: 'hmac-sha256' as const,
    secret: randomBytes(32),
  }));
  const knot = await startKnotPrimary({
    port: portOutsideEphemeralRange,
    zones: zones.map((origin, z) => ({ origin, text: knotZoneText(origin), updateKeys: keys.filter((_, k) => k % zoneCount === z) })),
  });
  return { name: 'knot', dnsPort: knot.port, zones, keys: keys.map((k) => ({ ...k, secret: k.secret.toString('base64') })), close: knot.close };
}

/** `ours`; `ours-nowait` with DNS_UPDATE_WAIT_MS=0 (answers at the commit, not once live) and no /nic/update of its own. */
async function ourTarget(name: 'ours' | 'ours-nowait'): Promise<UpdateTarget> {
  const noWait = name === 'ours-nowait';
  // The per-host limit of /nic/update lifted, as bench/dyndns.ts does: its path, not the `abuse` answer.
  const service = await startBenchService({ env: { DYNDNS_HOST_UPDATES_PER_MINUTE: '1000000', ...(noWait ? { DNS_UPDATE_WAIT_MS: '0' } : {}) } });
  try {
    await liftRateLimits(service);
    const api = benchApi(service.base, service.tokens.customers[0]);
    const stamp = Date.now().toString(36);
    const zones = Array.from({ length: zoneCount }, (_, i) => `upd-${stamp}-${i}.test`);
    for (const zone of zones) await createLiveZone(api, zone);
    const keys: UpdateKey[] = [];
    for (let k = 0; k < clients; k++) {
      const zone = zones[k % zoneCount]!;
      const policy = { zones: [zone], names: [`*.bench.${zone}`], types: ['TXT'] };
      const key = await api('POST', '/tsig-keys', { name: `c${k}.${zone}`, algorithm: 'hmac-sha256', policy });
      keys.push({ name: key.name, algorithm: key.algorithm, secret: key.secret });
    }
    let nic: UpdateTarget['nic'];
    if (!opts['skip-nic-update'] && !noWait) {
      const nicZones = Array.from({ length: zoneCount }, (_, i) => `nic-${stamp}-${i}.test`);
      for (const zone of nicZones) await createLiveZone(api, zone);
      nic = { base: service.base, hosts: await createDyndnsHosts(api, nicZones, clients) };
    }
    return { name, dnsPort: service.dnsPort, zones, keys, nic, close: service.stop };
  } catch (err) {
    await service.stop();
    throw err;
  }
}

interface PhaseResult {
  /** Updates sent. */
  offered: number;
  accepted: number;
  seconds: number;
  /** Send → acknowledged (NOERROR), ms. */
  acks: number[];
  /** Acknowledged → the nameserver answers the record, ms (follow). */
  answered: number[];
  /** Of `answered`, how many were there at the first query. */
  atFirstQuery: number;
  /** Anything but an acknowledgement: rcode name or error message → count. */
  failures: Map<string, number>;
}

/** Every owner name the run added, per target's zones (names are zone-qualified). */
const usedNames = new Set<string>();

async function updatePhase(target: UpdateTarget, label: string, follow: boolean, count: number): Promise<PhaseResult> {
  const out: PhaseResult = { offered: target.keys.length * count, accepted: 0, seconds: 0, acks: [], answered: [], atFirstQuery: 0, failures: new Map() };
  const fail = (why: string) => out.failures.set(why, (out.failures.get(why) ?? 0) + 1);
  const started = performance.now();
  await Promise.all(
    target.keys.map(async (k, c) => {
      const zone = zoneOf(target, c);
      const key = tsigKey(k);
      const tcp = new TcpExchanger(target.dnsPort);
      const socket = await udpSocket();
      let id = c << 12;
      const nextId = () => (id = (id + 1) & 0xffff);
      try {
        for (let i = 0; i < count; i++) {
          const owner = `c${c}-${label}${i}.bench.${zone}`;
          if (usedNames.has(owner)) throw new Error(`${owner} again: every UPDATE must add a new record`);
          usedNames.add(owner);
          const text = `v${i} ${label}`;
          const { message, mac } = txtAddUpdate(nextId(), zone, owner, text, key);
          const sent = performance.now();
          let outcome: string;
          try {
            outcome = updateOutcome(await tcp.exchange(message), key, mac);
          } catch (err) {
            fail((err as Error).message);
            tcp.close();
            continue;
          }
          const acked = performance.now();
          if (outcome !== 'NOERROR') {
            fail(outcome);
            continue;
          }
          out.accepted++;
          out.acks.push(acked - sent);
          if (!follow) continue;
          const wanted = txtRdata(text);
          for (let q = 1; ; q++) {
            const answer = await udpQuery(socket, target.dnsPort, owner, TYPE.TXT, nextId());
            if (answerRdata(answer, TYPE.TXT).some((r) => r.equals(wanted))) {
              if (q === 1) out.atFirstQuery++;
              break;
            }
            if (performance.now() - acked > 30_000) throw new Error(`${target.name}: ${owner} not answered 30 s after its acknowledgement`);
            await new Promise((r) => setTimeout(r, 1));
          }
          out.answered.push(performance.now() - acked);
        }
      } finally {
        tcp.close();
        socket.close();
      }
    }),
  );
  out.seconds = (performance.now() - started) / 1000;
  return out;
}

const spread = (xs: number[]) => (xs.length ? `${percentile(xs, 50).toFixed(1)} / ${percentile(xs, 99).toFixed(1)} / ${Math.max(...xs).toFixed(1)}` : '—');
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const cpu = /model name\s*:\s*(.*)/.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown CPU';
const knotVersion = (() => {
  try {
    return execFileSync('knotd', ['--version'], { encoding: 'utf8' }).trim().split('\n')[0];
  } catch {
    return 'knotd not found';
  }
})();
console.log(`${new Date().toISOString()}; ${os.cpus().length} × ${cpu}, Node ${process.version}, ${knotVersion}; load average ${load()}`);
console.log(
  `${clients} clients over ${zoneCount} zone(s), TCP, TSIG hmac-sha256; ${perClient} updates per client per phase; targets ${targetNames.join(', ')}; ${rounds} round(s)`,
);

const targets: UpdateTarget[] = [];
/** Each measurement's phases added up over the rounds, by `target\twhat`. */
const pooled = new Map<string, PhaseResult>();
const rows: string[] = [];
/** A table row of one phase's (or the pooled phases') result. */
function rowOf(round: string | number, target: string, what: string, r: PhaseResult): string {
  const failures = [...r.failures].map(([why, n]) => `${n} ${why}`).join(', ') || '–';
  const isUpdate = what.startsWith('UPDATE');
  const follow = what.endsWith('follow');
  const cells = [
    round,
    target,
    what,
    `${r.accepted}/${r.offered}`,
    (r.accepted / r.seconds).toFixed(0),
    isUpdate ? spread(r.acks) : '–',
    follow ? spread(r.answered) : '–',
    isUpdate && follow ? `${r.atFirstQuery}/${r.answered.length}` : '–',
    failures,
  ];
  return `| ${cells.join(' | ')} |`;
}
/** Records one phase's result as a row (and into the pool, except in the warm-up round 0). */
function record(round: number, target: string, what: string, r: PhaseResult): void {
  rows.push(rowOf(round || 'warm-up', target, what, r));
  console.log(rows.at(-1));
  if (round === 0) return;
  const key = `${target}\t${what}`;
  const p = pooled.get(key) ?? { offered: 0, accepted: 0, seconds: 0, acks: [], answered: [], atFirstQuery: 0, failures: new Map<string, number>() };
  p.offered += r.offered;
  p.accepted += r.accepted;
  p.seconds += r.seconds;
  p.acks.push(...r.acks);
  p.answered.push(...r.answered);
  p.atFirstQuery += r.atFirstQuery;
  for (const [why, n] of r.failures) p.failures.set(why, (p.failures.get(why) ?? 0) + n);
  pooled.set(key, p);
}

try {
  for (const name of targetNames) {
    if (name === 'knot') targets.push(await knotTarget());
    else if (name === 'ours' || name === 'ours-nowait') targets.push(await ourTarget(name));
    else throw new Error(`unknown target ${name} (knot, ours, ours-nowait)`);
  }
  // Round 0 warms up (a tenth of the updates, not pooled): the first phase after a start is slow.
  for (let round = 0; round <= rounds; round++) {
    const count = round === 0 ? Math.max(1, Math.round(perClient / 10)) : perClient;
    for (const target of targets) {
      const updates = async () => {
        for (const [n, follow] of phases.entries()) {
          const phase = follow ? 'follow' : 'flat';
          record(round, target.name, `UPDATE ${phase}`, await updatePhase(target, `r${round}${phase}${n}-`, follow, count));
        }
      };
      const nic = async () => {
        if (!target.nic) return;
        for (const follow of phases) {
          const started = performance.now();
          const r = await nicUpdatePhase({ base: target.nic.base, dnsPort: target.dnsPort, hosts: target.nic.hosts, perClient: count, follow });
          const seconds = (performance.now() - started) / 1000;
          record(round, target.name, `/nic/update ${follow ? 'follow' : 'flat'}`, {
            offered: target.nic.hosts.length * count,
            accepted: r.accepted.length,
            seconds,
            acks: [],
            answered: r.latencies,
            atFirstQuery: 0,
            failures: r.other,
          });
        }
      };
      // UPDATE and /nic/update take turns going first, so what one leaves behind weighs on both alike.
      for (const run of round % 2 ? [updates, nic] : [nic, updates]) await run();
    }
  }
} finally {
  for (const t of targets) await t.close();
}
console.log(`\nload average after: ${load()}\n`);
const header =
  '| round | target | what | accepted | accepted /s | send → ack p50 / p99 / max ms | ack (or good) → answered p50 / p99 / max ms | answered at the first query | not accepted |';
console.log(`${header}\n|---|---|---|---|---|---|---|---|---|`);
for (const r of rows) console.log(r);
console.log(`\nAll ${rounds} round(s) together (accepted /s: all accepted over the phases' summed time):\n`);
console.log(`${header}\n|---|---|---|---|---|---|---|---|---|`);
for (const [key, p] of pooled) {
  const [target, what] = key.split('\t') as [string, string];
  console.log(rowOf('all', target, what, p));
}

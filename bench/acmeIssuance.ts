// ACME DNS-01 issuance wall time (issue 24's figure): lego 4.9 (`--dns rfc2136`) and certbot 2.1
// (`--authenticator dns-rfc2136`) each obtain a certificate for `www.<zone>` from pebble
// (PEBBLE_VA_NOSLEEP=1), publishing the challenge by RFC 2136 UPDATE with TSIG to a DNS target,
// which pebble then asks for the TXT. Each client signs with its default algorithm (lego
// HMAC-SHA1, certbot HMAC-MD5: nothing in its config names one). A run is the client's process
// from start to exit: account registration, order, UPDATE, validation, certificate, cleanup.
// One untimed warm-up round, then --rounds rounds (default 5), each running every client against
// every target in turn; p50, min and max per client per target, and how many rounds found the
// authorization still pending at the client's first poll (pebble's log): lego then waits 5 s
// ±50 % (pebble 2.4 sends no Retry-After), certbot 3 s — such rounds time the client's wait more
// than the DNS server.
//
// Targets (--targets, comma-separated, default knot):
//   knot      knotd (Debian's knot 3.2) as the zone's primary: the anchor
//   ours      our service as `npm start` runs it (embedded PostgreSQL, or DATABASE_URL naming a
//             scratch database), zone and keys made through the API (bench/lib/acmeTargets.ts)
//   supplied  a server started and set up elsewhere: --dns-port N --zone Z
//             --lego-key ALG:NAME:SECRET --certbot-key ALG:NAME:SECRET
// --show-queries: before timing, one issuance per client per target through recording relays
// (test/helpers/dnsTap.ts), printing every message the client and pebble sent and got.
//
//   node --import tsx bench/acmeIssuance.ts [--rounds 5] [--targets knot,ours] [--clients lego,certbot] [--show-queries]
import fs from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import {
  CLIENT_DEFAULT_ALGORITHM,
  type Issuance,
  missingAcmeTools,
  obtainWithCertbot,
  obtainWithLego,
  type Pebble,
  startPebble,
  type TsigAlgorithm,
} from '../test/helpers/acme.js';
import { describeMessage, startDnsTap } from '../test/helpers/dnsTap.js';
import { ACME_CLIENTS, type AcmeClient, type AcmeDnsTarget, type AcmeTargetKey, knotTarget, serviceTarget, suppliedTarget } from './lib/acmeTargets.js';

const { values: opts } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    targets: { type: 'string', default: 'knot' },
    clients: { type: 'string', default: ACME_CLIENTS.join(',') },
    'show-queries': { type: 'boolean', default: false },
    'dns-port': { type: 'string' },
    zone: { type: 'string' },
    'lego-key': { type: 'string' },
    'certbot-key': { type: 'string' },
  },
});
const rounds = Number(opts.rounds);
const targetNames = opts.targets.split(',');
const clients = opts.clients.split(',') as AcmeClient[];
for (const c of clients) if (!ACME_CLIENTS.includes(c)) throw new Error(`unknown client ${c} (${ACME_CLIENTS.join(', ')})`);
const missing = missingAcmeTools();
if (missing.length) throw new Error(`not installed: ${missing.join(', ')}`);

/** `ALG:NAME:SECRET`, as nsupdate's -y takes it. */
function parseKey(text: string | undefined, flag: string): AcmeTargetKey {
  const m = /^([^:]+):([^:]+):(.+)$/.exec(text ?? '');
  if (!m) throw new Error(`--${flag} ALG:NAME:SECRET is required for the supplied target`);
  return { keyAlgorithm: m[1] as TsigAlgorithm, keyName: m[2]!, secret: m[3]! };
}

async function startTarget(name: string): Promise<AcmeDnsTarget> {
  const stamp = Date.now().toString(36);
  if (name === 'knot') return knotTarget('acme-knot.test');
  if (name === 'ours') return serviceTarget(`acme-${stamp}.test`);
  if (name === 'supplied') {
    if (!opts['dns-port'] || !opts.zone) throw new Error('--dns-port and --zone are required for the supplied target');
    return suppliedTarget({
      name,
      dnsPort: Number(opts['dns-port']),
      zone: opts.zone,
      keys: { lego: parseKey(opts['lego-key'], 'lego-key'), certbot: parseKey(opts['certbot-key'], 'certbot-key') },
    });
  }
  throw new Error(`unknown target ${name} (knot, ours, supplied)`);
}

/** One issuance of `client` against `target` through `pebble`, asking the DNS server at `dnsPort`. */
function issue(client: AcmeClient, target: AcmeDnsTarget, pebble: Pebble, dnsPort = target.dnsPort): Promise<Issuance> {
  const key = target.keys[client];
  const options = {
    directory: pebble.directory,
    caCert: pebble.caCert,
    domain: `www.${target.zone}`,
    nameserver: `127.0.0.1:${dnsPort}`,
    // Named only when it is not the client's default: the clients run as users configure them.
    tsig: { name: key.keyName, secret: key.secret, algorithm: key.keyAlgorithm === CLIENT_DEFAULT_ALGORITHM[client] ? undefined : key.keyAlgorithm },
  };
  return client === 'lego' ? obtainWithLego(options) : obtainWithCertbot(options);
}

async function showQueries(target: AcmeDnsTarget): Promise<void> {
  const clientTap = await startDnsTap(target.dnsPort);
  const validatorTap = await startDnsTap(target.dnsPort);
  const pebble = await startPebble({ dnsServer: `127.0.0.1:${validatorTap.port}` });
  try {
    for (const client of clients) {
      const r = await issue(client, target, pebble, clientTap.port);
      console.log(`\n${client} → ${target.name}: ${r.ok ? 'certificate' : 'FAILED'} in ${(r.ms / 1000).toFixed(2)} s`);
      if (!r.ok) console.log(r.stdout, r.stderr);
      console.log(`  ${client} sent:`);
      for (const m of clientTap.take()) console.log(`    ${describeMessage(m)}`);
      console.log('  pebble sent:');
      for (const m of validatorTap.take()) console.log(`    ${describeMessage(m)}`);
    }
  } finally {
    await pebble.close();
    await clientTap.close();
    await validatorTap.close();
  }
}

interface Sample {
  ms: number;
  ok: boolean;
  /** The authorization was still pending at the client's first poll after the challenge. */
  pendingAtFirstPoll: boolean;
}

const cpu = /model name\s*:\s*(.*)/.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown CPU';
console.log(
  `${os.cpus().length} × ${cpu}, Node ${process.version}, load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
console.log(`targets ${targetNames.join(', ')}; clients ${clients.join(', ')}; ${rounds} rounds after one warm-up`);

const targets: AcmeDnsTarget[] = [];
const pebbles = new Map<AcmeDnsTarget, Pebble>();
const samples = new Map<string, Sample[]>();
try {
  for (const name of targetNames) {
    const target = await startTarget(name);
    targets.push(target);
    // One pebble per target: pebble asks one DNS server for every validation.
    pebbles.set(target, await startPebble({ dnsServer: `127.0.0.1:${target.dnsPort}` }));
    if (opts['show-queries']) await showQueries(target);
  }
  for (let round = 0; round <= rounds; round++) {
    for (const target of targets) {
      for (const client of clients) {
        const pebble = pebbles.get(target)!;
        const logAt = pebble.log().length;
        const r = await issue(client, target, pebble);
        // Each client fetches the authorization once before answering the challenge, then polls
        // it: a third fetch means the first poll found it pending.
        const authzFetches = pebble
          .log()
          .slice(logAt)
          .split('\n')
          .filter((l) => l.includes('POST /authZ/')).length;
        const sample = { ms: r.ms, ok: r.ok, pendingAtFirstPoll: authzFetches > 2 };
        if (!r.ok) console.log(`${client} → ${target.name} failed:\n${r.stdout}\n${r.stderr}`);
        console.log(
          `${round === 0 ? 'warm-up' : `round ${round}`}: ${client} → ${target.name} ${r.ok ? '' : 'FAILED '}${(r.ms / 1000).toFixed(2)} s${sample.pendingAtFirstPoll ? ' (pending at first poll)' : ''}`,
        );
        if (round === 0) continue;
        const key = `${target.name}\t${client}`;
        samples.set(key, [...(samples.get(key) ?? []), sample]);
      }
    }
  }
} finally {
  for (const p of pebbles.values()) await p.close();
  for (const t of targets) await t.close();
}

const seconds = (ms: number) => (ms / 1000).toFixed(2);
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
console.log(
  `\nload average after: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}\n`,
);
// The last column leaves out the rounds that waited on a pending authorization: what remains
// is the client's own work and the DNS server's, the part a faster server can shorten.
console.log('| target | client | ok | p50 s | min s | max s | pending at first poll | p50 s of the others |');
console.log('|---|---|---|---|---|---|---|---|');
const p50s = new Map<string, { all: number; prompt?: number }>();
const sortedMs = (list: Sample[]) => list.map((s) => s.ms).sort((a, b) => a - b);
for (const [key, list] of samples) {
  const [target, client] = key.split('\t');
  const ok = sortedMs(list.filter((s) => s.ok));
  const prompt = sortedMs(list.filter((s) => s.ok && !s.pendingAtFirstPoll));
  const row = ok.length ? [seconds(percentile(ok, 50)), seconds(ok[0]!), seconds(ok.at(-1)!)] : ['—', '—', '—'];
  if (ok.length) p50s.set(key, { all: percentile(ok, 50), prompt: prompt.length ? percentile(prompt, 50) : undefined });
  const pending = list.filter((s) => s.pendingAtFirstPoll).length;
  console.log(
    `| ${target} | ${client} | ${ok.length}/${list.length} | ${row.join(' | ')} | ${pending} | ${prompt.length ? seconds(percentile(prompt, 50)) : '—'} |`,
  );
}
const anchor = targetNames[0]!;
for (const name of targetNames.slice(1)) {
  for (const client of clients) {
    const a = p50s.get(`${anchor}\t${client}`);
    const b = p50s.get(`${name}\t${client}`);
    if (!a || !b) continue;
    const others = a.prompt && b.prompt ? `; of the rounds not pending at first poll ${(b.prompt / a.prompt).toFixed(2)}` : '';
    console.log(`${client}: ${name} p50 / ${anchor} p50 = ${(b.all / a.all).toFixed(2)}${others}`);
  }
}

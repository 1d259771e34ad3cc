// ACME DNS-01 end to end against OUR service, as acmeKnot.test.ts does against Knot: the real
// service (every role, PostgreSQL), a zone and one TSIG key per client made through the API as a
// customer makes them (each key limited to TXT at `_acme-challenge.*` of the zone), pebble
// validating by TXT queries to our nameserver, and lego and certbot — each told no TSIG algorithm,
// so signing with its default (lego HMAC-SHA1, certbot HMAC-MD5) — obtaining a certificate. Each
// finds the zone its own way (issue 24 item 6): lego by unsigned SOA queries up the labels with
// RD set, certbot by signed SOA queries over TCP with RD clear, wanting the apex SOA in the ANSWER
// with AA. Afterwards no `_acme-challenge` record is left, and the two change sets of each run
// (publish, clean up) name the client's key. Recording taps show who sent what.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AcmeClientOptions,
  CLIENT_DEFAULT_ALGORITHM,
  type TsigAlgorithm,
  type Issuance,
  missingAcmeTools,
  obtainWithCertbot,
  obtainWithLego,
  type Pebble,
  startPebble,
} from '../helpers/acme.js';
import { createRecord, createZone, type DnsLab, listAll, startDnsLab } from '../helpers/dnsLab.js';
import { eventually } from '../helpers/dnsQuery.js';
import { expectCleanIssuance } from '../helpers/acmeChecks.js';
import { describeMessage, type DnsTap, startDnsTap } from '../helpers/dnsTap.js';
import { requireTool, runToolAsync } from '../helpers/dnsTools.js';

const kdig = requireTool('kdig');
const missing = missingAcmeTools();
const ZONE = 'acme-service.example';
const DOMAIN = `www.${ZONE}`;
const CHALLENGE = `_acme-challenge.${DOMAIN}.`;

interface Key {
  id: string;
  name: string;
  algorithm: TsigAlgorithm;
  secret: string;
}
/** A key per client with its default algorithm, and one of the service's default (HMAC-SHA256) named in each client's configuration as docs/dynamic-update.md writes it. */
const KEYS = [
  { label: 'lego', algorithm: CLIENT_DEFAULT_ALGORITHM.lego },
  { label: 'certbot', algorithm: CLIENT_DEFAULT_ALGORITHM.certbot },
  { label: 'sha256', algorithm: 'hmac-sha256' },
] as const;
type KeyLabel = (typeof KEYS)[number]['label'];

describe.skipIf((!kdig || missing.length > 0) && process.env.REQUIRE_DNS_TOOLS !== '1')('ACME DNS-01 against the service (lego, certbot, pebble)', () => {
  let lab: DnsLab;
  let port: number;
  let clientTap: DnsTap;
  let validatorTap: DnsTap;
  let pebble: Pebble;
  const keys = {} as Record<KeyLabel, Key>;

  beforeAll(async () => {
    lab = await startDnsLab({ env: { ROLES: 'api,nameserver,worker' } });
    port = lab.service.nameserver!.server.port;
    await createZone(lab.customerA, ZONE);
    await createRecord(lab.customerA, ZONE, { name: 'www', type: 'A', data: { address: '127.0.0.1' } });
    for (const { label, algorithm } of KEYS) {
      const policy = { zones: [ZONE], names: ['_acme-challenge.*'], types: ['TXT'] };
      const res = await lab.customerA.post('/tsig-keys', { name: `${label}.${ZONE}`, algorithm, policy });
      expect(res.status, res.text).toBe(201);
      keys[label] = { id: res.body.id, name: res.body.name, algorithm: res.body.algorithm, secret: res.body.secret };
    }
    // Served, and both keys known to the nameserver (it reloads them on commit).
    // (The service runs in this process: its clients run without blocking it.)
    await eventually(
      async () => {
        for (const k of Object.values(keys)) {
          const r = await runToolAsync(kdig!, ['@127.0.0.1', '-p', String(port), ZONE, 'SOA', '-y', `${k.algorithm}:${k.name}:${k.secret}`]);
          if (!r.stdout.includes('status: NOERROR') || !/\sSOA\s/.test(r.stdout)) return undefined;
        }
        return true;
      },
      20_000,
      'the zone served and the keys known',
    );
    clientTap = await startDnsTap(port);
    validatorTap = await startDnsTap(port);
    pebble = await startPebble({ dnsServer: `127.0.0.1:${validatorTap.port}` });
  }, 60_000);
  afterAll(async () => {
    await pebble?.close();
    await clientTap?.close();
    await validatorTap?.close();
    await lab?.close();
  });

  /** The zone as our nameserver serves it now (AXFR), one record a line. */
  const zoneNow = async () => {
    const r = await runToolAsync(kdig!, ['@127.0.0.1', '-p', String(port), 'AXFR', `${ZONE}.`, '+nocomments', '+nostats']);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout.split('\n').filter((l) => l && !l.startsWith(';'));
  };

  /** One client's issuance, then what it sent, what pebble asked, and what the zone kept. */
  const issue = async (label: KeyLabel, obtain: (o: AcmeClientOptions) => Promise<Issuance>, withAlgorithm = false) => {
    const changeSetsBefore = (await listAll(lab.customerA, `/zones/${ZONE}/changesets`)).length;
    clientTap.take();
    validatorTap.take();
    const key = keys[label];
    const tsig = { name: key.name, secret: key.secret, ...(withAlgorithm ? { algorithm: key.algorithm } : {}) };
    const result = await obtain({ directory: pebble.directory, caCert: pebble.caCert, domain: DOMAIN, nameserver: `127.0.0.1:${clientTap.port}`, tsig });
    const sent = clientTap.take();
    const asked = validatorTap.take();
    const transcript = `${result.stdout}\n${result.stderr}\nclient:\n${sent.map(describeMessage).join('\n')}\npebble:\n${asked.map(describeMessage).join('\n')}`;
    expect(result.ok, transcript).toBe(true);
    expect(result.dnsNames).toEqual([DOMAIN]);
    const changeSets = (await listAll(lab.customerA, `/zones/${ZONE}/changesets`)).slice(0, -changeSetsBefore || undefined);
    return { sent, asked, after: await zoneNow(), changeSets, transcript };
  };

  /** Each UPDATE signed with `algorithm` and accepted; pebble saw the TXT; none left; two live change sets by the key. */
  const expectServiceIssuance = (o: Awaited<ReturnType<typeof issue>>, label: KeyLabel, algorithm: string) => {
    expectCleanIssuance(o, CHALLENGE, algorithm);
    expect(o.changeSets.map((c) => [c.source, c.source_id, c.state])).toEqual([
      ['rfc2136', keys[label].id, 'live'],
      ['rfc2136', keys[label].id, 'live'],
    ]);
  };

  it('lego --dns rfc2136 with its default algorithm (HMAC-SHA1) obtains a certificate and leaves no challenge behind', async () => {
    const o = await issue('lego', obtainWithLego);
    expectServiceIssuance(o, 'lego', 'hmac-sha1.');
    // lego finds the zone by unsigned SOA queries up the labels (RD set); below the apex it gets
    // NXDOMAIN or NODATA, at the apex the SOA in the answer — never REFUSED, which stops it.
    const soa = o.sent.filter((m) => m.opcode === 'QUERY' && m.question?.type === 'SOA');
    const asked = soa.filter((m) => m.from === 'client');
    expect(asked.length, o.transcript).toBeGreaterThan(0);
    for (const q of asked) {
      expect(q.tsig).toBeNull();
      expect(q.flags.rd).toBe(true);
    }
    const answers = soa.filter((m) => m.from === 'server');
    expect(answers.map((m) => m.rcode)).not.toContain('REFUSED');
    expect(
      answers.some((m) => m.flags.aa && m.answer.some((r) => r.type === 'SOA' && r.name === `${ZONE}.`)),
      o.transcript,
    ).toBe(true);
  }, 90_000);

  it('certbot --authenticator dns-rfc2136 with no algorithm in its INI (HMAC-MD5) obtains a certificate and leaves no challenge behind', async () => {
    const o = await issue('certbot', obtainWithCertbot);
    expectServiceIssuance(o, 'certbot', 'hmac-md5.sig-alg.reg.int.');
    // certbot signs its SOA queries (RD clear, over TCP) and accepts only the apex's SOA in the
    // answer with AA; our answers are signed with its key (it checks them).
    const soa = o.sent.filter((m) => m.from === 'client' && m.opcode === 'QUERY' && m.question?.type === 'SOA');
    expect(soa.length, o.transcript).toBeGreaterThan(0);
    for (const q of soa) {
      expect(q.transport).toBe('tcp');
      expect(q.flags.rd).toBe(false);
      expect(q.tsig?.algorithm.toLowerCase()).toBe('hmac-md5.sig-alg.reg.int.');
      const answer = o.sent.find((m) => m.from === 'server' && m.client === q.client && m.id === q.id);
      expect(answer?.tsig?.error, o.transcript).toBe('NOERROR');
      if (q.question!.name.toLowerCase() === `${ZONE}.`) expect(answer!.flags.aa && answer!.answer.some((r) => r.type === 'SOA')).toBe(true);
    }
  }, 90_000);

  it('each with an HMAC-SHA256 key named in its configuration (certbot: HMAC-SHA256 in upper case, lego: hmac-sha256.) obtains a certificate', async () => {
    expectServiceIssuance(await issue('sha256', obtainWithCertbot, true), 'sha256', 'hmac-sha256.');
    expectServiceIssuance(await issue('sha256', obtainWithLego, true), 'sha256', 'hmac-sha256.');
  }, 120_000);
});

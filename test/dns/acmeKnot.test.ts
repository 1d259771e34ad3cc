// ACME DNS-01 end to end against Knot DNS: the anchor the issue-24 harness is proven on before it
// points at our nameserver. pebble (the ACME test CA) validates by TXT queries to Knot; lego and
// certbot, each told no TSIG algorithm, publish the challenge by RFC 2136 UPDATE signed with
// their default (lego HMAC-SHA1, certbot HMAC-MD5) and each obtains a certificate; afterwards
// the zone holds no `_acme-challenge` record. Two recording taps sit in front of Knot: one for
// the client, one for pebble, so the test sees who sent what.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AcmeClientOptions,
  CLIENT_DEFAULT_ALGORITHM,
  type Issuance,
  missingAcmeTools,
  obtainWithCertbot,
  obtainWithLego,
  type Pebble,
  startPebble,
} from '../helpers/acme.js';
import { expectCleanIssuance } from '../helpers/acmeChecks.js';
import { describeMessage, type DnsTap, startDnsTap } from '../helpers/dnsTap.js';
import { requireTool, runTool } from '../helpers/dnsTools.js';
import { type KnotPrimary, type KnotTsigKey, startKnotPrimary } from '../helpers/knot.js';
import { portOutsideEphemeralRange } from '../helpers/reservedPort.js';

const knotd = requireTool('knotd');
const kdig = requireTool('kdig');
const missing = missingAcmeTools();
const ZONE = 'acme.test';
const DOMAIN = `www.${ZONE}`;
const CHALLENGE = `_acme-challenge.${DOMAIN}.`;
const keys = {
  lego: { name: 'lego.acme.test.', algorithm: CLIENT_DEFAULT_ALGORITHM.lego, secret: randomBytes(32) },
  certbot: { name: 'certbot.acme.test.', algorithm: CLIENT_DEFAULT_ALGORITHM.certbot, secret: randomBytes(32) },
} satisfies Record<string, KnotTsigKey>;
const zoneText = `$ORIGIN ${ZONE}.
$TTL 300
@    SOA ns1 hostmaster 1 3600 600 86400 60
@    NS  ns1
ns1  A   127.0.0.1
www  A   127.0.0.1
`;

describe.skipIf((!knotd || !kdig || missing.length > 0) && process.env.REQUIRE_DNS_TOOLS !== '1')('ACME DNS-01 against Knot (lego, certbot, pebble)', () => {
  let knot: KnotPrimary;
  let clientTap: DnsTap;
  let validatorTap: DnsTap;
  let pebble: Pebble;

  beforeAll(async () => {
    knot = await startKnotPrimary({ port: portOutsideEphemeralRange, zones: [{ origin: ZONE, text: zoneText, updateKeys: [keys.lego, keys.certbot] }] });
    clientTap = await startDnsTap(knot.port);
    validatorTap = await startDnsTap(knot.port);
    pebble = await startPebble({ dnsServer: `127.0.0.1:${validatorTap.port}` });
  });
  afterAll(async () => {
    await pebble?.close();
    await clientTap?.close();
    await validatorTap?.close();
    await knot?.close();
  });

  /** The zone as Knot holds it now (AXFR), one record a line. */
  const zoneNow = () => {
    const r = runTool(kdig!, ['@127.0.0.1', '-p', String(knot.port), 'AXFR', `${ZONE}.`, '+nocomments', '+nostats']);
    expect(r.status, r.output).toBe(0);
    return r.stdout.split('\n').filter((l) => l && !l.startsWith(';'));
  };
  const serialOf = (lines: string[]) =>
    Number(
      lines
        .find((l) => /\sSOA\s/.test(l))!
        .trim()
        .split(/\s+/)[6],
    );

  /** One client's issuance, then what it sent, what pebble asked, and what the zone kept. */
  const issue = async (obtain: (o: AcmeClientOptions) => Promise<Issuance>, key: KnotTsigKey) => {
    const before = serialOf(zoneNow());
    clientTap.take();
    validatorTap.take();
    const result = await obtain({
      directory: pebble.directory,
      caCert: pebble.caCert,
      domain: DOMAIN,
      nameserver: `127.0.0.1:${clientTap.port}`,
      tsig: { name: key.name, secret: key.secret.toString('base64') },
    });
    const sent = clientTap.take();
    const asked = validatorTap.take();
    const transcript = `${result.stdout}\n${result.stderr}\nclient:\n${sent.map(describeMessage).join('\n')}\npebble:\n${asked.map(describeMessage).join('\n')}\nknot:\n${knot.log()}`;
    expect(result.ok, transcript).toBe(true);
    expect(result.dnsNames).toEqual([DOMAIN]);
    return { sent, asked, before, after: zoneNow(), transcript };
  };

  /** Each UPDATE signed with the client's default algorithm and accepted; pebble saw the TXT; none left; the serial rose by two. */
  const expectKnotIssuance = (o: Awaited<ReturnType<typeof issue>>, algorithm: string) => {
    expectCleanIssuance(o, CHALLENGE, algorithm);
    expect(serialOf(o.after)).toBe(o.before + 2);
  };

  it('lego --dns rfc2136 with its default algorithm (HMAC-SHA1) obtains a certificate and leaves no challenge behind', async () => {
    const o = await issue(obtainWithLego, keys.lego);
    expectKnotIssuance(o, 'hmac-sha1.');
    // lego finds the zone by unsigned SOA queries up the labels; the apex answers with the SOA.
    const soa = o.sent.filter((m) => m.from === 'client' && m.opcode === 'QUERY' && m.question?.type === 'SOA');
    expect(soa.length, o.transcript).toBeGreaterThan(0);
    for (const q of soa) expect(q.tsig).toBeNull();
  }, 60_000);

  it('certbot --authenticator dns-rfc2136 with no algorithm in its INI (HMAC-MD5) obtains a certificate and leaves no challenge behind', async () => {
    const o = await issue(obtainWithCertbot, keys.certbot);
    expectKnotIssuance(o, 'hmac-md5.sig-alg.reg.int.');
    // certbot signs its SOA queries, over TCP, and Knot answers them signed.
    const soa = o.sent.filter((m) => m.from === 'client' && m.opcode === 'QUERY' && m.question?.type === 'SOA');
    expect(soa.length, o.transcript).toBeGreaterThan(0);
    for (const q of soa) {
      expect(q.transport).toBe('tcp');
      expect(q.tsig?.algorithm.toLowerCase()).toBe('hmac-md5.sig-alg.reg.int.');
      const answer = o.sent.find((m) => m.from === 'server' && m.client === q.client && m.id === q.id);
      expect(answer?.tsig?.error, o.transcript).toBe('NOERROR');
    }
  }, 60_000);
});

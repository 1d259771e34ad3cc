// A standard secondary nobody here wrote: Knot DNS (knotd from Debian's packages) is configured
// as a secondary of the embedded nameserver, with TSIG (HMAC-SHA256) on NOTIFY and transfers, and
// as one of the zone's authoritative servers. `live` must wait until Knot serves the new serial.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecord, createZone, type DnsLab, startDnsLab } from '../helpers/dnsLab.js';
import { eventually, queryDns } from '../helpers/dnsQuery.js';
import { requireTool } from '../helpers/dnsTools.js';
import { type KnotSecondary, startKnotSecondary } from '../helpers/knot.js';
import { portOutsideEphemeralRange } from '../helpers/reservedPort.js';

const knotd = requireTool('knotd');
const ZONE = 'knot-secondary.example';
const secret = randomBytes(32);

describe.skipIf(!knotd && process.env.REQUIRE_DNS_TOOLS !== '1')('Knot as a secondary of the embedded nameserver', () => {
  let lab: DnsLab;
  let knot: KnotSecondary;
  let knotPort: number;

  beforeAll(async () => {
    // Our service must know the secondary's address before it starts (DNS_SECONDARIES), so the
    // port is chosen before knotd binds it: outside the range outgoing connections take theirs.
    knotPort = await portOutsideEphemeralRange();
    lab = await startDnsLab({
      env: {
        ROLES: 'api,nameserver,worker',
        DNS_SECONDARIES: `127.0.0.1:${knotPort}`,
        DNS_TSIG_KEYS: `xfr.lab:${secret.toString('base64')}`,
      },
    });
    knot = await startKnotSecondary({
      port: async () => knotPort,
      primaryPort: lab.service.nameserver!.server.port,
      zones: [ZONE],
      key: { name: 'xfr.lab', secret },
    });
  });
  afterAll(async () => {
    await knot?.close();
    await lab?.close();
  });

  it('transfers the zone on NOTIFY (TSIG) and only then is the zone live', async () => {
    const zone = await createZone(lab.customerA, ZONE, { records: [{ name: 'www', type: 'A', data: { address: '192.0.2.80' } }] });
    const live = await eventually(
      async () => {
        const z = (await lab.customerA.get(`/zones/${ZONE}`)).body;
        return z.publication.state === 'live' ? z : undefined;
      },
      20_000,
      'zone to be live',
    );
    expect(live.status).toBe('active');
    const fromKnot = await queryDns(knotPort, ZONE, 'SOA');
    expect(fromKnot.aa).toBe(true);
    expect(fromKnot.answers[0]!.serial).toBe(live.serial);
    expect((await queryDns(knotPort, `www.${ZONE}`, 'A')).answers.map((a) => a.address)).toEqual(['192.0.2.80']);
    expect(zone.publication.changeset_id).toBeTruthy();
  });

  it('waits in `pushed` while the secondary is down, and becomes live after it catches up by IXFR', async () => {
    await knot.stop();
    const record = await createRecord(lab.customerA, ZONE, { name: 'mail', type: 'A', data: { address: '192.0.2.81' } });
    const setPath = `/zones/${ZONE}/changesets/${record.publication.changeset_id}`;
    await eventually(async () => ((await lab.customerA.get(setPath)).body.state === 'pushed' ? true : undefined));
    await new Promise((r) => setTimeout(r, 1500));
    expect((await lab.customerA.get(setPath)).body.state).toBe('pushed');

    await knot.restart();
    await eventually(async () => ((await lab.customerA.get(setPath)).body.state === 'live' ? true : undefined), 30_000, 'change set to be live');
    expect((await queryDns(knotPort, `mail.${ZONE}`, 'A')).answers.map((a) => a.address)).toEqual(['192.0.2.81']);
    expect(knot.log()).toMatch(/IXFR, incoming/);
  });
});

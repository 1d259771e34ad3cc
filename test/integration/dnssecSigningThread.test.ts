// The signing thread as an operator meets it (docs/dnssec.md "The signing thread"): a zone of
// DNSSEC_SIGNING_THREAD_FROM records or more is signed whole in a thread of its own. When that
// thread dies (here: its heap bound, DNSSEC_SIGNING_THREAD_HEAP_MB, is far too small) the build
// fails cleanly — nothing signed is committed, the zone stays served unsigned, the API answers
// on — and is tried again: with the bound raised the same zone is signed and validates, its
// version written in parts that the database puts together.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DnsLab, startDnsLab } from '../helpers/dnsLab.js';
import { eventually, queryDns } from '../helpers/dnsQuery.js';
import { ALL_ROLES, axfr, delv, dnsPort, dnssecOf, expectLdnsVerifies, passLabTime, untilDnssecState, untilTldValidates } from '../helpers/dnssecLab.js';

describe('the signing thread', { timeout: 120_000 }, () => {
  let lab: DnsLab;
  beforeAll(async () => {
    // 400 records read (stored and served) or more: a zone of 250 records is signed in the thread;
    // the lab's own parent zones, far smaller, are signed in the build's thread.
    lab = await startDnsLab({ env: { ...ALL_ROLES, DNSSEC_SIGNING_THREAD_FROM: '400', DNSSEC_SIGNING_THREAD_HEAP_MB: '1' } });
    lab.service.labReset?.stop();
  });
  afterAll(async () => lab?.close());

  it('fails the build when the thread dies, serves the zone unsigned meanwhile, and signs it once the thread can', async (ctx) => {
    const zone = 'thread.example';
    const records = Array.from({ length: 250 }, (_, i) => ({
      op: 'create',
      record: { name: `h${i}`, type: 'A', data: { address: `10.1.${i >> 8}.${i & 255}` } },
    }));
    expect((await lab.customerA.post('/zones', { name: zone })).status).toBe(201);
    expect((await lab.customerA.post(`/zones/${zone}/changesets`, { changes: records })).status).toBe(201);
    await untilTldValidates(ctx, lab, 'example');
    const unsigned = await eventually(() => servedSerial(zone), 15_000, `${zone} served`);
    expect((await lab.customerA.post(`/zones/${zone}/dnssec/enable`, {})).status).toBe(202);

    // Every signing of it dies with its thread (out of memory): retried, never half-written.
    for (let i = 0; i < 12; i++) await passLabTime(lab);
    expect((await dnssecOf(lab, zone)).state).toBe('signing');
    const versions = await lab.sql.query(
      `SELECT count(*)::int AS n FROM zone_versions v JOIN zones z ON z.id = v.zone_id WHERE z.name = $1 AND v.signing IS NOT NULL`,
      [zone],
    );
    expect(versions.rows[0].n).toBe(0);
    expect(await servedSerial(zone)).toBe(unsigned);
    const dnskey = await queryDns(dnsPort(lab), zone, 'DNSKEY');
    expect(dnskey.answers).toEqual([]);
    // The API is not held up by it: a write is accepted (and served once the zone is signed).
    expect((await lab.customerA.post(`/zones/${zone}/records`, { type: 'TXT', name: 'during', data: { text: 'still accepted' } })).status).toBe(201);

    // The operator raises the bound (as a restart with DNSSEC_SIGNING_THREAD_HEAP_MB unset would).
    // The version's diff is written in parts of 100 records (a zone of 100,000 records is written
    // in parts of 20,000), put together in the database: the nameserver applies it from there.
    const whole = lab.service.publication!.builds.whole;
    lab.service.config.dnssec.signingThread.rowsPerStatement = 100;
    lab.service.config.dnssec.signingThread.heapMb = null;
    await untilDnssecState(lab, zone, 'active');
    const first = await lab.sql.query(
      `SELECT jsonb_array_length(v.added) AS added, (SELECT count(*)::int FROM jsonb_array_elements(v.added) e WHERE (e->>'type')::int = 46) AS rrsigs
       FROM zone_versions v JOIN zones z ON z.id = v.zone_id WHERE z.name = $1 AND v.signing IS NOT NULL ORDER BY v.serial LIMIT 1`,
      [zone],
    );
    expect(first.rows[0].added).toBeGreaterThan(500);
    expect(first.rows[0].rrsigs).toBeGreaterThan(250);
    expect(lab.service.publication!.builds.whole).toBeGreaterThan(whole);
    expect(await delv(ctx, lab, `h7.${zone}`, 'A')).toMatch(/; fully validated/);
    expect(await delv(ctx, lab, `during.${zone}`, 'TXT')).toMatch(/; fully validated/);
    expectLdnsVerifies(ctx, await axfr(ctx, lab, zone));
  });

  async function servedSerial(zone: string): Promise<number | undefined> {
    const soa = await queryDns(dnsPort(lab), zone, 'SOA');
    return soa.answers[0]?.serial;
  }
});

// DNSSEC for the provider's own reverse zones (docs/rdns.md "DNSSEC of the provider's reverse
// zones"): staff sign an address space (at creation or by PATCH), every reverse zone of it walks
// the DNSSEC state machine to `active` with the lab registry placing its DS in the lab's
// in-addr.arpa / ip6.arpa, and delv validates a default PTR and a set PTR of IPv4 and IPv6 from
// the lab root. Disabling takes the DS out and the zones back to unsigned.
import type { TestContext } from 'vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAddress, reverseName } from '../../src/domain/ip/address.js';
import { type DnsLab, listAll, startDnsLab } from '../helpers/dnsLab.js';
import { eventually } from '../helpers/dnsQuery.js';
import { ALL_ROLES, delv, passLabTime, untilLabTrustAnchor } from '../helpers/dnssecLab.js';
import { requireTool } from '../helpers/dnsTools.js';

describe('DNSSEC of the provider’s reverse zones', { timeout: 180_000 }, () => {
  let lab: DnsLab;
  let customerA: string;
  const spaces: Record<string, string> = {};

  beforeAll(async () => {
    lab = await startDnsLab({ env: ALL_ROLES });
    lab.service.labReset?.stop();
    customerA = lab.tokens.tenants.customers[0]!;
  });
  afterAll(async () => lab?.close());

  const zonesOf = async (space: string | undefined) => listAll(lab.platform, `/ip-spaces/${space}/zones`);
  /** Lets the lab's time pass until every zone of the space is in `state`. */
  const untilSpaceState = (space: string | undefined, state: string) =>
    eventually(
      async () => {
        const zones = await zonesOf(space);
        if (zones.every((z) => z.dnssec.state === state)) return zones;
        await passLabTime(lab);
        return undefined;
      },
      120_000,
      `every zone of ${space} to be ${state}`,
    );
  const ptrName = (ip: string) => reverseName(parseAddress(ip));
  /** delv from the lab root, once it says "fully validated" (the parent's next version may lag). */
  const validated = (ctx: TestContext, ip: string) =>
    eventually(
      async () => {
        const out = await delv(ctx, lab, ptrName(ip), 'PTR');
        if (/; fully validated/.test(out)) return out;
        await passLabTime(lab);
        return undefined;
      },
      60_000,
      `the PTR of ${ip} to validate from the lab root`,
    );

  it('is for provider staff only', async () => {
    const created = await lab.platform.post('/ip-spaces', { cidr: '192.0.2.0/24', ptr_pattern: 'static.{dashed}.hosting.example.' });
    expect(created.status, created.text).toBe(201);
    expect(created.body.dnssec).toBe(false);
    spaces.v4 = created.body.id;
    for (const api of [lab.reseller, lab.customerA]) {
      const patched = await api.patch(`/ip-spaces/${spaces.v4}`, { dnssec: true });
      expect(patched.status, patched.text).toBe(403);
      expect(patched.body.code).toBe('forbidden');
      expect((await api.get(`/ip-spaces/${spaces.v4}/zones`)).status).toBe(403);
      expect((await api.get(`/ip-spaces/${spaces.v4}`)).status).toBe(403);
    }
    expect((await lab.platform.patch('/ip-spaces/spc_aaaaaaaaaaaaaaaaaaaaaaaaaa', { dnssec: true })).status).toBe(404);
    expect((await lab.platform.patch(`/ip-spaces/${spaces.v4}`, { dnssec: 'yes' })).status).toBe(422);
    const zones = await zonesOf(spaces.v4);
    expect(zones).toEqual([
      expect.objectContaining({ name: '2.0.192.in-addr.arpa', block: '192.0.2.0/24', dnssec: expect.objectContaining({ state: 'off', ds: [] }) }),
    ]);
  });

  it('signs every reverse zone of a space (PATCH, and at creation); the lab registry places their DS', async () => {
    await untilLabTrustAnchor(lab);
    const patched = await lab.platform.patch(`/ip-spaces/${spaces.v4}`, { dnssec: true });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ id: spaces.v4, dnssec: true });
    const [zone] = await zonesOf(spaces.v4);
    expect(zone.dnssec).toMatchObject({ state: 'signing', mode: 'automatic', next_action: 'wait' });
    expect(zone.dnssec.ds).toHaveLength(1);

    const v6 = await lab.platform.post('/ip-spaces', { cidr: '2001:db8:100::/48', ptr_pattern: 'static.{dashed}.hosting.example.', dnssec: true });
    expect(v6.status, v6.text).toBe(201);
    expect(v6.body.dnssec).toBe(true);
    spaces.v6 = v6.body.id;
    expect((await zonesOf(spaces.v6)).map((z) => [z.name, z.dnssec.state])).toEqual([['0.0.1.0.8.b.d.0.1.0.0.2.ip6.arpa', 'signing']]);
    expect((await lab.platform.get(`/ip-spaces/${spaces.v6}`)).body).toMatchObject({ cidr: '2001:db8:100::/48', dnssec: true });

    // A customer's server address and /128 (an IPv6 default exists only for a /128) and a /64.
    for (const cidr of ['192.0.2.10/32', '192.0.2.11/32', '2001:db8:100::10/128', '2001:db8:100:a::/64']) {
      const a = await lab.platform.post('/ips', { cidr, tenant_id: customerA, server_name: 'web1.customer-a.example' });
      expect(a.status, a.text).toBe(201);
    }
    expect((await lab.customerA.put('/ptr/192.0.2.11', { target: 'mail.customer-a.example.' })).status).toBe(200);
    expect((await lab.customerA.put('/ptr/2001:db8:100:a::25', { target: 'mail6.customer-a.example.' })).status).toBe(200);

    for (const space of [spaces.v4!, spaces.v6!]) {
      const [active] = await untilSpaceState(space, 'active');
      expect(active.dnssec).toMatchObject({ ds_at_parent: { state: 'matching' }, validation: { result: 'valid' }, next_action: 'none' });
    }
  });

  it('validates default and set PTRs, IPv4 and IPv6, with delv from the lab root', async (ctx) => {
    requireTool('delv', ctx);
    const cases = [
      ['192.0.2.10', 'static.192-0-2-10.hosting.example.'],
      ['192.0.2.11', 'mail.customer-a.example.'],
      ['2001:db8:100::10', 'static.2001-db8-100--10.hosting.example.'],
      ['2001:db8:100:a::25', 'mail6.customer-a.example.'],
    ] as const;
    for (const [ip, target] of cases) {
      const out = await validated(ctx, ip);
      expect(out, ip).toMatch(new RegExp(`${ptrName(ip).replaceAll('.', '\\.')}\\.\\s+\\d+\\s+IN\\s+PTR\\s+${target.replaceAll('.', '\\.')}`));
    }
    // A name with no PTR is proven absent, and the proof validates too.
    const denial = await delv(ctx, lab, ptrName('2001:db8:100:a::26'), 'PTR');
    expect(denial).toMatch(/; negative response, fully validated/);
    expect(denial).toMatch(/NSEC3 1 0 0 -/);
  });

  it('disables: the DS leaves the parent, the zones go unsigned, their answers are insecure', async (ctx) => {
    requireTool('delv', ctx);
    const patched = await lab.platform.patch(`/ip-spaces/${spaces.v4}`, { dnssec: false });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.dnssec).toBe(false);
    expect((await zonesOf(spaces.v4!))[0].dnssec.state).toBe('ds_removing');
    // Disabling again while disabling is not an error: the zone is on its way already.
    expect((await lab.platform.patch(`/ip-spaces/${spaces.v4}`, { dnssec: false })).status).toBe(200);
    const enableTooSoon = await lab.platform.patch(`/ip-spaces/${spaces.v4}`, { dnssec: true });
    expect(enableTooSoon.status, enableTooSoon.text).toBe(409);
    expect(enableTooSoon.body.code).toBe('dnssec_transition_in_progress');
    await untilSpaceState(spaces.v4!, 'off');
    const out = await eventually(
      async () => {
        const o = await delv(ctx, lab, ptrName('192.0.2.10'), 'PTR');
        if (/; unsigned answer/.test(o)) return o;
        await passLabTime(lab);
        return undefined;
      },
      60_000,
      'the PTR to be an unsigned (insecure) answer',
    );
    expect(out).toMatch(/PTR\s+static\.192-0-2-10\.hosting\.example\./);
  });

  it('deletes a signed space: its zones wait for the DS to leave the parent', async () => {
    const a = (await listAll(lab.platform, '/ips')).filter((x) => x.cidr.startsWith('2001:db8:100:'));
    for (const x of a) expect((await lab.platform.delete(`/ips/${x.id}`)).status).toBe(204);
    expect((await lab.platform.delete(`/ip-spaces/${spaces.v6}`)).status).toBe(204);
    const rows = await lab.sql.query(`SELECT status, dnssec_state FROM zones WHERE name = '0.0.1.0.8.b.d.0.1.0.0.2.ip6.arpa'`);
    expect(rows.rows).toEqual([{ status: 'deleting', dnssec_state: 'ds_removing' }]);
  });
});

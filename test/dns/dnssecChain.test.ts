// The lab's DNSSEC as resolvers and secondaries nobody here wrote see it (docs/dnssec.md
// "Cross-checks"): unbound, validating from the lab root's trust anchor and forwarding to the lab's
// nameserver, sets AD for a signed zone's answers and proofs, fails a zone whose DS at the parent
// matches no key, and passes an unsigned zone through as insecure; Knot, a secondary of the signed
// zone (and of the lab root and TLD, since every authoritative server must serve their keys too),
// serves answers that delv validates from the zone's DS, before and after a change, and its copy
// passes ldns-verify-zone.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { freePort } from '../../bench/lib/benchService.js';
import { type DnsLab, startDnsLab } from '../helpers/dnsLab.js';
import { eventually } from '../helpers/dnsQuery.js';
import {
  ALL_ROLES,
  axfr,
  createActiveZone,
  delv,
  dnsPort,
  dnssecOf,
  labRootKey,
  passLabTime,
  untilDnssecState,
  untilLabTrustAnchor,
} from '../helpers/dnssecLab.js';
import { requireTool, runTool, runToolAsync, tempFile } from '../helpers/dnsTools.js';
import { type KnotSecondary, startKnotSecondary } from '../helpers/knot.js';
import { startUnbound, type Unbound } from '../helpers/unbound.js';
import { portOutsideEphemeralRange } from '../helpers/reservedPort.js';

const required = process.env.REQUIRE_DNS_TOOLS === '1';
const unboundTool = requireTool('unbound');
const knotd = requireTool('knotd');

const SIGNED = 'xc-signed.example';
const WRONG_DS = 'xc-wrong-ds.example';
const UNSIGNED = 'xc-plain.example';
const secret = randomBytes(32);

interface DigAnswer {
  status: string;
  flags: string[];
  answer: string;
}

/** `dig +dnssec` through a resolver (recursion desired) or at an authoritative server: the answer's status, header flags and answer section. */
async function digVia(ctx: TestContext, port: number, name: string, type: string, recurse = true): Promise<DigAnswer> {
  const run = await runToolAsync(requireTool('dig', ctx), [
    '@127.0.0.1',
    '-p',
    String(port),
    '+dnssec',
    recurse ? '+rec' : '+norec',
    '+time=10',
    '+tries=1',
    '+nocmd',
    '+nostats',
    name,
    type,
  ]);
  expect(run.code, run.stdout + run.stderr).toBe(0);
  const status = /status: ([A-Z]+)/.exec(run.stdout)?.[1];
  const flags = /;; flags: ([a-z ]+);/.exec(run.stdout)?.[1];
  expect(status && flags, run.stdout).toBeTruthy();
  return { status: status!, flags: flags!.trim().split(/\s+/), answer: /;; ANSWER SECTION:\n([\s\S]*?)(?:\n\n|$)/.exec(run.stdout)?.[1] ?? '' };
}

describe.skipIf(!required && (!unboundTool || !knotd))('the lab’s chain of trust, checked by unbound and through Knot', { timeout: 90_000 }, () => {
  let lab: DnsLab;
  let knot: KnotSecondary;
  let unbound: Unbound;
  let signedDs: string[];

  beforeAll(async () => {
    // Knot is one of every zone's authoritative servers (DNS_SECONDARIES): it must carry the lab
    // root and TLD as well, or their keys would never count as published everywhere.
    // Named before knotd binds it: outside the range outgoing connections take their ports from.
    const knotPort = await portOutsideEphemeralRange();
    lab = await startDnsLab({ env: { ...ALL_ROLES, DNS_SECONDARIES: `127.0.0.1:${knotPort}`, DNS_TSIG_KEYS: `xfr.lab:${secret.toString('base64')}` } });
    knot = await startKnotSecondary({
      port: async () => knotPort,
      primaryPort: lab.service.nameserver!.server.port,
      zones: ['.', 'example', SIGNED, WRONG_DS, UNSIGNED],
      key: { name: 'xfr.lab', secret },
    });
    await untilLabTrustAnchor(lab);
    unbound = await startUnbound({ port: freePort, upstreamPort: lab.service.nameserver!.server.port, trustAnchorFile: labRootKey(lab) });
  }, 90_000);
  afterAll(async () => {
    await unbound?.close();
    await knot?.close();
    await lab?.close();
  });

  it('unbound sets AD on a signed zone’s answer, NXDOMAIN and NODATA', async (ctx) => {
    await createActiveZone(lab, SIGNED, [
      { type: 'A', name: 'www', data: { address: '192.0.2.10' } },
      { type: 'TXT', name: '*.wild', data: { text: 'wildcard' } },
    ]);
    const started = await lab.customerA.post(`/zones/${SIGNED}/dnssec/enable`, {});
    expect(started.status, started.text).toBe(202);
    signedDs = started.body.ds;
    await untilDnssecState(lab, SIGNED, 'active');

    const answer = await digVia(ctx, unbound.port, `www.${SIGNED}`, 'A');
    expect(answer, unbound.log()).toMatchObject({ status: 'NOERROR' });
    expect(answer.flags, unbound.log()).toContain('ad');
    expect(answer.answer).toMatch(/\tA\t192\.0\.2\.10$/m);
    expect(answer.answer).toMatch(/\tRRSIG\tA 13 /);
    const wildcard = await digVia(ctx, unbound.port, `x.wild.${SIGNED}`, 'TXT');
    expect([wildcard.status, wildcard.flags.includes('ad')], unbound.log()).toEqual(['NOERROR', true]);
    expect(wildcard.answer).toContain('"wildcard"');

    const nxdomain = await digVia(ctx, unbound.port, `nothing.${SIGNED}`, 'A');
    expect([nxdomain.status, nxdomain.flags.includes('ad')], unbound.log()).toEqual(['NXDOMAIN', true]);
    const nodata = await digVia(ctx, unbound.port, `www.${SIGNED}`, 'TXT');
    expect([nodata.status, nodata.flags.includes('ad'), nodata.answer], unbound.log()).toEqual(['NOERROR', true, '']);
  });

  it('unbound answers SERVFAIL for a zone whose DS at the parent matches no key', async (ctx) => {
    await createActiveZone(lab, WRONG_DS, [{ type: 'A', name: 'www', data: { address: '192.0.2.40' } }]);
    expect((await lab.platform.patch(`/lab/registrations/${WRONG_DS}`, { registered_here: false })).status).toBe(200);
    const started = await lab.customerA.post(`/zones/${WRONG_DS}/dnssec/enable`, {});
    expect(started.status, started.text).toBe(202);
    expect(started.body.mode).toBe('assisted');
    await untilDnssecState(lab, WRONG_DS, 'awaiting_ds');
    const wrong = [started.body.ds[0].replace(/[0-9a-f]{64}$/, 'cd'.repeat(32))];
    expect((await lab.platform.put(`/lab/registrations/${WRONG_DS}/ds`, { ds: wrong })).status).toBe(200);
    // The service sees the wrong DS at the parent the way unbound will.
    await eventually(
      async () => {
        await passLabTime(lab);
        return (await dnssecOf(lab, WRONG_DS)).ds_at_parent?.state === 'mismatch' ? true : undefined;
      },
      30_000,
      'the wrong DS to be at the parent',
    );

    const bogus = await digVia(ctx, unbound.port, `www.${WRONG_DS}`, 'A');
    expect(bogus.status, unbound.log()).toBe('SERVFAIL');
    expect(bogus.answer).toBe('');
    // SERVFAIL because validation failed, not because unbound could not reach the lab.
    expect(unbound.log()).toMatch(new RegExp(`validation failure <www\\.${WRONG_DS.replace(/\./g, '\\.')}\\. A IN>`));
  });

  it('unbound answers an unsigned zone below the signed TLD with data but without AD (an insecure delegation)', async (ctx) => {
    await createActiveZone(lab, UNSIGNED, [{ type: 'A', name: 'www', data: { address: '192.0.2.50' } }]);
    // The TLD delegates a zone once its creation is live, with the parent's next version: until
    // then the TLD proves the name does not exist, which no resolver takes as insecure.
    await eventually(
      async () => ((await digVia(ctx, dnsPort(lab), UNSIGNED, 'DS', false)).status === 'NOERROR' ? true : undefined),
      15_000,
      `the TLD to delegate ${UNSIGNED}`,
    );
    const plain = await digVia(ctx, unbound.port, `www.${UNSIGNED}`, 'A');
    expect(plain.status, unbound.log()).toBe('NOERROR');
    expect(plain.flags).not.toContain('ad');
    expect(plain.answer).toMatch(/\tA\t192\.0\.2\.50$/m);
    // The TLD above it is signed and validates: AD there, so the missing AD below is the proven absence of a DS.
    const tld = await digVia(ctx, unbound.port, 'example', 'SOA');
    expect([tld.status, tld.flags.includes('ad')], unbound.log()).toEqual(['NOERROR', true]);
  });

  it('answers from Knot, a secondary of the signed zone, validate from the zone’s DS: positive and negative', async (ctx) => {
    const throughKnot = (name: string, type: string) => delv(ctx, lab, name, type, { zone: SIGNED, ds: signedDs }, knot.port);
    expect(await throughKnot(`www.${SIGNED}`, 'A')).toMatch(/; fully validated/);
    expect(await throughKnot(`x.wild.${SIGNED}`, 'TXT')).toMatch(/; fully validated/);
    expect(await throughKnot(`nothing.${SIGNED}`, 'A')).toMatch(/; negative response, fully validated/);
    expect(await throughKnot(`www.${SIGNED}`, 'TXT')).toMatch(/; negative response, fully validated/);
    // Knot carries the lab root and TLD too: the whole chain from the lab's trust anchor validates through it.
    expect(await delv(ctx, lab, `www.${SIGNED}`, 'A', null, knot.port)).toMatch(/; fully validated/);
    // From a DS that matches no key, nothing through Knot validates either.
    const wrong = [signedDs[0]!.replace(/[0-9a-f]{64}$/, 'ab'.repeat(32))];
    expect(await delv(ctx, lab, `www.${SIGNED}`, 'A', { zone: SIGNED, ds: wrong }, knot.port)).not.toMatch(/; fully validated/);
  });

  it('a changed record reaches Knot by IXFR, signed, and validates there; Knot’s copy passes ldns-verify-zone', async (ctx) => {
    const res = await lab.customerA.post(`/zones/${SIGNED}/records`, { type: 'A', name: 'new', data: { address: '192.0.2.99' } });
    expect(res.status, res.text).toBe(201);
    await eventually(
      async () => {
        const out = await delv(ctx, lab, `new.${SIGNED}`, 'A', { zone: SIGNED, ds: signedDs }, knot.port);
        return /; fully validated/.test(out) && /192\.0\.2\.99/.test(out) ? true : undefined;
      },
      15_000,
      'the new record to validate through Knot',
    );
    expect(knot.log()).toMatch(new RegExp(`\\[${SIGNED.replace(/\./g, '\\.')}\\.\\] IXFR, incoming`));

    const copy = await axfr(ctx, lab, SIGNED, knot.port);
    expect(copy).toMatch(/^new\.xc-signed\.example\.\s+\d+\s+IN\s+RRSIG\s+A 13 /m);
    expect(copy).toMatch(/\sNSEC3PARAM\s+1 0 0 -/);
    const file = tempFile('zone.db', copy);
    try {
      const ldns = runTool(requireTool('ldns-verify-zone', ctx), [file.file]);
      expect(ldns.status, ldns.output).toBe(0);
    } finally {
      file.remove();
    }
  });
});

// Production has no zone of its own to ask for its parents: the worker asks a recursive resolver
// (DNSSEC_RESOLVER), with RD and CD set, and validates what it gets itself. Here unbound plays that
// resolver over the lab, so the whole state machine runs on observations made through it.
describe.skipIf(!required && !unboundTool)('the DNSSEC worker observing through a recursive resolver (DNSSEC_RESOLVER)', { timeout: 90_000 }, () => {
  let lab: DnsLab;
  let unbound: Unbound;
  const ZONE = 'xc-resolver.example';

  beforeAll(async () => {
    const dnsPort_ = await freePort();
    const resolverPort = await freePort();
    // unbound also serves as the outside validating resolver whose AD the chain check needs.
    lab = await startDnsLab({
      env: { ...ALL_ROLES, DNS_PORT: String(dnsPort_), DNSSEC_RESOLVER: `127.0.0.1:${resolverPort}`, DNSSEC_VALIDATOR: `127.0.0.1:${resolverPort}` },
    });
    // The root reaches ds_submitted (its anchor written) without the resolver; unbound needs the anchor.
    await untilLabTrustAnchor(lab);
    unbound = await startUnbound({ port: async () => resolverPort, upstreamPort: dnsPort_, trustAnchorFile: labRootKey(lab) });
  }, 90_000);
  afterAll(async () => {
    await unbound?.close();
    await lab?.close();
  });

  it('takes a zone to active, its DS and chain seen through the resolver', async () => {
    await createActiveZone(lab, ZONE, [{ type: 'A', name: 'www', data: { address: '192.0.2.77' } }]);
    expect((await lab.customerA.post(`/zones/${ZONE}/dnssec/enable`, {})).status).toBe(202);
    const active = await untilDnssecState(lab, ZONE, 'active', 60_000);
    expect(active).toMatchObject({ ds_at_parent: { state: 'matching' }, validation: { result: 'valid' } });
    // The worker's questions reached unbound (it logs each query at this verbosity).
    expect(unbound.log()).toMatch(new RegExp(`${ZONE.replace(/\./g, '\\.')}\\.? DS IN`));
  });
});

// The outside validator's verdict counts: with one that never answers, the chain check fails with
// its reason and the zone stays short of `validated` although our own validation passes.
describe('the chain check with an outside validating resolver that does not answer (DNSSEC_VALIDATOR)', { timeout: 90_000 }, () => {
  let lab: DnsLab;
  const ZONE = 'xc-validator.example';

  beforeAll(async () => {
    lab = await startDnsLab({ env: { ...ALL_ROLES, DNSSEC_VALIDATOR: `127.0.0.1:${await freePort()}` } });
  }, 90_000);
  afterAll(async () => lab?.close());

  it('keeps the zone at ds_published, the validator named in the reason', async () => {
    await createActiveZone(lab, ZONE);
    expect((await lab.customerA.post(`/zones/${ZONE}/dnssec/enable`, {})).status).toBe(202);
    const waiting = await untilDnssecState(lab, ZONE, 'ds_published', 60_000);
    const seen = await eventually(
      async () => {
        await passLabTime(lab);
        const body = await dnssecOf(lab, ZONE);
        // Until the lab's TLD has its DS in the root, our own check fails first (its reason then).
        return /validating resolver 127\.0\.0\.1:\d+ did not answer/.test(body.validation.reason ?? '') ? body : undefined;
      },
      45_000,
      'the validator to be named in the reason',
    );
    expect(seen).toMatchObject({ state: 'ds_published', validation: { result: 'invalid' } });
    expect(waiting.ds_at_parent.state).toBe('matching');
  });
});

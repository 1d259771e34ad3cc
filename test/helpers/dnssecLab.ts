// What the DNSSEC tests share: the lab with every role and a quick worker, letting the lab's time
// pass until a zone reaches a state, and the outside tools (delv, dig) pointed at the lab's
// nameserver. The nameserver lives in the test process, so every tool runs asynchronously.
import fs from 'node:fs';
import path from 'node:path';
import { expect, type TestContext } from 'vitest';
import { createZone, type DnsLab } from './dnsLab.js';
import { eventually } from './dnsQuery.js';
import { requireTool, runTool, runToolAsync, tempFile } from './dnsTools.js';

// The worker looks every 300 ms (the lab's default is a second) so that the waits pass quickly.
export const ALL_ROLES = { ROLES: 'api,nameserver,worker', DNSSEC_CHECK_INTERVAL_MS: '300' };

export const dnsPort = (lab: DnsLab) => lab.service.nameserver!.server.port;

/** The lab's trust anchor as a `trust-anchors` clause (delv -a). */
export const labTrustAnchorsConf = (lab: DnsLab) => path.join(lab.service.config.dataDir, 'lab-trust-anchors.conf');
/** The lab's trust anchor as DS lines (unbound's trust-anchor-file). */
export const labRootKey = (lab: DnsLab) => path.join(lab.service.config.dataDir, 'lab-root.key');

/** One step of the lab's time: the service's clock two seconds on, a quarter second of real time for the worker. */
export async function passLabTime(lab: DnsLab): Promise<void> {
  lab.clock.advance(2_000);
  await new Promise((r) => setTimeout(r, 250));
}

/** A `trust-anchors` clause naming `zone`'s DS records ("tag alg digest-type digest") as its anchor. */
export function staticDsAnchors(zone: string, ds: string[]): string {
  return `trust-anchors {\n${ds
    .map((d) => {
      const [tag, alg, digestType, digest] = d.split(/\s+/);
      return `  "${zone}." static-ds ${tag} ${alg} ${digestType} "${digest}";`;
    })
    .join('\n')}\n};\n`;
}

/**
 * `delv` against `server` (the lab's nameserver by default): from the lab's root trust anchor, or
 * from `zone`'s own DS with `+root`. Answers what delv printed, stdout and stderr.
 */
export async function delv(
  ctx: TestContext,
  lab: DnsLab,
  name: string,
  type: string,
  from: { zone: string; ds: string[] } | null = null,
  server = dnsPort(lab),
): Promise<string> {
  const tool = requireTool('delv', ctx);
  const anchorsFile = from ? tempFile('anchors.conf', staticDsAnchors(from.zone, from.ds)) : null;
  try {
    const anchors = anchorsFile?.file ?? labTrustAnchorsConf(lab);
    const run = await runToolAsync(tool, ['@127.0.0.1', '-p', String(server), '-a', anchors, ...(from ? [`+root=${from.zone}`] : []), name, type]);
    return run.stdout + run.stderr;
  } finally {
    anchorsFile?.remove();
  }
}

/** `zone` by AXFR (dig) from `server` (the lab's nameserver by default), as a zone file. */
export async function axfr(ctx: TestContext, lab: DnsLab, zone: string, server = dnsPort(lab)): Promise<string> {
  const dig = requireTool('dig', ctx);
  const run = await runToolAsync(dig, ['@127.0.0.1', '-p', String(server), zone, 'AXFR', '+nocmd', '+nostats', '+nocomments', '+noquestion']);
  expect(run.code, run.stderr).toBe(0);
  return run.stdout;
}

/** A zone file (an AXFR's text) passes ldns-verify-zone: every signature, the chain and its proofs. */
export function expectLdnsVerifies(ctx: TestContext, zoneText: string): void {
  const file = tempFile('zone.db', zoneText);
  try {
    const ldns = runTool(requireTool('ldns-verify-zone', ctx), [file.file]);
    expect(ldns.status, ldns.output).toBe(0);
  } finally {
    file.remove();
  }
}

export async function dnssecOf(lab: DnsLab, zone: string, api = lab.customerA): Promise<any> {
  const res = await api.get(`/zones/${zone}/dnssec`);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/**
 * Lets the lab's time pass (passLabTime: the DNSKEY and DS TTLs the state machine waits out are
 * the lab's 10 s) until `zone` is in `state`. Slow steps keep the service's clock within minutes
 * of real time, which validators check signature validity against.
 */
export async function untilDnssecState(lab: DnsLab, zone: string, state: string, timeoutMs = 60_000, api = lab.customerA): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const body = await dnssecOf(lab, zone, api);
    if (body.state === state) return body;
    if (Date.now() > deadline) throw new Error(`${zone} did not reach DNSSEC state ${state} (it is ${body.state}: ${JSON.stringify(body.validation)})`);
    await passLabTime(lab);
  }
}

/** Lets the lab's time pass until the signed lab root's trust anchor is written. */
export async function untilLabTrustAnchor(lab: DnsLab, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!fs.existsSync(labTrustAnchorsConf(lab)) || !fs.existsSync(labRootKey(lab))) {
    if (Date.now() > deadline) throw new Error('the lab trust anchor was not written');
    await passLabTime(lab);
  }
}

/** Lets the lab's time pass until delv validates `tld`'s SOA from the lab root (its DS is in the root). */
export async function untilTldValidates(ctx: TestContext, lab: DnsLab, tld: string, timeoutMs = 60_000): Promise<void> {
  await eventually(
    async () => {
      await passLabTime(lab);
      return /; fully validated/.test(await delv(ctx, lab, tld, 'SOA')) ? true : undefined;
    },
    timeoutMs,
    `the TLD ${tld}. to validate from the lab root`,
  );
}

/** Creates `zone` with `records` and waits until it is active (delegated and served). */
export async function createActiveZone(lab: DnsLab, zone: string, records: Record<string, unknown>[] = []): Promise<void> {
  await createZone(lab.customerA, zone, { records });
  await eventually(async () => ((await lab.customerA.get(`/zones/${zone}`)).body.status === 'active' ? true : undefined), 15_000, `${zone} to be active`);
}

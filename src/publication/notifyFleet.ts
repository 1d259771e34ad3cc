// NOTIFY (RFC 1996) of a zone's new serial to everyone who transfers it: DNS_SECONDARIES (signed
// with the deployment's first key, as before) and the secondaries of every secondary set carrying
// the zone (a catalog zone: its own set's), signed with the set's TSIG key when it has one. Each
// target once per key; the nameserver tells targets in parallel with bounded retries, and a newer
// serial supersedes an older one still retried (nameserver/server.ts notifySecondaries). A set
// secondary still behind a minute after it was first seen so (a consumer down past the retries:
// PowerDNS then waits for the SOA refresh, hours) is told again every minute until it catches up.
import type { DnsServer } from '../../nameserver/server.js';
import type { TsigKey } from '../../nameserver/wire/tsig.js';
import type { HostPort } from '../config/index.js';
import type { Pool } from '../db/context.js';
import { setsCarryingZone } from '../db/repositories/secondaryFleet.js';
import { laggingTargets } from '../db/repositories/secondaryLagRows.js';
import type { Logger } from '../observability/logger.js';

export interface NotifyFleetDeps {
  db: Pool;
  server: Pick<DnsServer, 'notifySecondaries' | 'handler'>;
  logger: Logger;
  /** DNS_SECONDARIES. */
  secondaries: HostPort[];
}

/** Never rejects: a failure to read the sets is logged (the secondaries catch up by their refresh timer). */
export async function notifyFleet(deps: NotifyFleetDeps, zoneId: string, origin: string, serial: number): Promise<void> {
  const told = new Set(deps.secondaries.map((s) => `${s.host} ${s.port}`));
  const runs: Promise<unknown>[] = [deps.server.notifySecondaries(origin, serial, deps.secondaries)];
  try {
    for (const set of await setsCarryingZone(deps.db, zoneId)) {
      const key = set.tsigKeyId === null ? null : keyOf(deps.server, set.tsigKeyId);
      if (key === undefined) deps.logger.warn({ zone: origin, set: set.id }, 'the set’s TSIG key is not loaded yet; NOTIFY goes unsigned');
      const targets = set.secondaries.map((s) => ({ host: s.address, port: s.port })).filter((t) => !told.has(`${t.host} ${t.port}`));
      for (const t of targets) told.add(`${t.host} ${t.port}`);
      if (targets.length) runs.push(deps.server.notifySecondaries(origin, serial, targets, { key: key ?? null }));
    }
  } catch (err) {
    deps.logger.warn({ err, zone: origin, serial }, 'reading the secondary sets of a zone failed; their secondaries catch up at their refresh');
  }
  await Promise.all(runs);
}

/** A set secondary is told again once it has been behind for this long, and then at every run. */
export const RENOTIFY_AFTER_MS = 60_000;

/**
 * NOTIFY again the set secondaries behind on a zone for RENOTIFY_AFTER_MS (as the verifier last
 * saw them, table secondary_lag), each with its set's key. Returns how many were told.
 */
export async function renotifyLagging(deps: NotifyFleetDeps, now: Date): Promise<number> {
  const targets = await laggingTargets(deps.db, new Date(now.getTime() - RENOTIFY_AFTER_MS));
  const runs: Promise<unknown>[] = [];
  for (const t of targets) {
    const key = t.tsigKeyId === null ? null : (keyOf(deps.server, t.tsigKeyId) ?? null);
    runs.push(deps.server.notifySecondaries(t.origin, t.serial, [{ host: t.host, port: t.port }], { key }));
  }
  await Promise.all(runs);
  return runs.length;
}

/** The tenant key with credential id `id`, as the nameserver's key ring holds it. */
const keyOf = (server: NotifyFleetDeps['server'], id: string): TsigKey | undefined => server.handler.keyRing.tenantKeys.find((k) => k.owner === id);

// The lab's reverse DNS (docs/lab.md "Reverse DNS seed"): the provider's address spaces with
// their default-PTR pattern, signed, with the forward records of their default names in the
// platform's zone lab-hosting.example (made and signed here: the lab seeds no other zone of the
// platform's where the pattern's names could live), for each seeded customer a single IPv4 address, an IPv4 /29 and an
// IPv6 /64, and for the first customer an IPv4 /24 and an IPv6 /48 of its own, all from the
// documentation ranges (RFC 5737, RFC 3849). Made through the same services the API uses, as the
// lab registry (the platform tenant without a token), at the first start and after every nightly
// reset.
import type { Config } from '../config/index.js';
import type { Transaction } from '../db/context.js';
import { anyIpSpace } from '../db/repositories/ipSpaceRows.js';
import { deleteIpBlocks } from '../db/repositories/labSeed.js';
import { zoneIdNamed } from '../db/repositories/zoneStore.js';
import type { Clock } from '../domain/clock.js';
import { type DnssecDeps, enableDnssec } from '../services/dnssec.js';
import { createAssignment } from '../services/rdns/assignments.js';
import { createIpSpace } from '../services/rdns/ipSpaces.js';
import { attachPrefix } from '../services/rdns/prefixes.js';
import { createZone, lockNameFamilies } from '../services/zones.js';
import type { LabResetStep } from '../services/index.js';
import { registrarContext } from './labParents.js';
import { readSeedIds } from './seed.js';
import { advisoryLock } from '../db/lockOrder.js';
import { BLOCKS_LOCK } from '../services/rdns/blocks.js';
import { parseBlock, reverseZonesOf } from '../domain/ip/address.js';

const LAB_PTR_PATTERN = 'static.{dashed}.lab-hosting.example.';
/** The platform's zone holding the default names' A/AAAA records. */
const LAB_FORWARD_ZONE = 'lab-hosting.example';
const LAB_ADDRESS_SPACES = ['192.0.2.0/24', '198.51.100.0/24', '2001:db8:100::/48'] as const;
/** Per seeded customer (A, B): a server address, a /29 and a /64. */
const LAB_ASSIGNMENTS = [
  [
    { cidr: '192.0.2.10/32', server_name: 'web1.customer-a.lab' },
    { cidr: '192.0.2.16/29', server_name: 'rack-a.customer-a.lab' },
    { cidr: '2001:db8:100:a::/64', server_name: 'web1.customer-a.lab' },
  ],
  [
    { cidr: '192.0.2.11/32', server_name: 'web1.customer-b.lab' },
    { cidr: '192.0.2.24/29', server_name: 'rack-b.customer-b.lab' },
    { cidr: '2001:db8:100:b::/64', server_name: 'web1.customer-b.lab' },
  ],
] as const;
/** The first customer's own blocks. */
const LAB_PREFIXES = ['203.0.113.0/24', '2001:db8:a::/48'] as const;

/**
 * The seed's advisory locks, taken before any row: the address blocks' and the name families of
 * the zones it makes (the forward zone, the prefixes' reverse zones). The seed makes a zone before
 * the spaces and prefixes, and the lock order (src/db/lockOrder.ts) puts these before any zone's
 * row; the nightly reset, whose earlier steps touch zones, takes them at its start.
 */
async function lockLabReverseDnsSeed(trx: Transaction): Promise<void> {
  await advisoryLock(trx, 'rdns_blocks', BLOCKS_LOCK);
  await lockNameFamilies(trx, [LAB_FORWARD_ZONE, ...LAB_PREFIXES.flatMap((cidr) => reverseZonesOf(parseBlock(cidr)).map((z) => z.name))]);
}

/** Seeds the lab's reverse DNS unless there is some already (a restart keeps what the lab holds). */
export async function seedLabReverseDns(trx: Transaction, config: Config, clock: Clock, dnssec: DnssecDeps): Promise<void> {
  if (!config.labReverseDnsSeed || (await anyIpSpace(trx))) return;
  const ctx = await registrarContext(trx, clock);
  const seed = await readSeedIds(trx);
  if (!ctx || !seed) return;
  await lockLabReverseDnsSeed(trx);
  // Signed where the service signs at all (DNSSEC_SIGNING=off: unsigned, as the API would refuse).
  const signed = config.dnssec.available;
  if (!(await zoneIdNamed(trx, LAB_FORWARD_ZONE))) {
    await createZone(ctx, config, { name: LAB_FORWARD_ZONE });
    if (signed) await enableDnssec(ctx, dnssec, LAB_FORWARD_ZONE, {});
  }
  for (const cidr of LAB_ADDRESS_SPACES) {
    await createIpSpace(ctx, config, { cidr, ptr_pattern: LAB_PTR_PATTERN, dnssec: signed, forward_zone: LAB_FORWARD_ZONE }, dnssec);
  }
  for (const [i, blocks] of LAB_ASSIGNMENTS.entries()) {
    for (const block of blocks) await createAssignment(ctx, config, { ...block, tenant_id: seed.customers[i]! });
  }
  for (const cidr of LAB_PREFIXES) await attachPrefix(ctx, config, { cidr, tenant_id: seed.customers[0] });
}

/** The nightly reset: the lab's zones are gone (deleteLabZones), so are its blocks; the seed comes back. */
export const resetLabReverseDns =
  (config: Config, clock: Clock, dnssec: DnssecDeps): LabResetStep =>
  async (trx) => {
    await deleteIpBlocks(trx);
    await seedLabReverseDns(trx, config, clock, dnssec);
  };

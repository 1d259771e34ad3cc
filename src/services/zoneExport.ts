// A zone in RFC 1035 master-file format, as stored: absolute names, $TTL for the zone default.
import type { DbContext } from '../db/context.js';
import { zoneRecordRowsInOrder } from '../db/repositories/zoneQueries.js';
import type { DnsRecord } from '../domain/model/record.js';
import type { Zone } from '../domain/model/zone.js';
import { absoluteName } from '../../nameserver/wire/name.js';
import { renderSystemRecords } from './systemRecords.js';

export interface ExportOptions {
  /** The SOA and apex NS set, rendered from NAMESERVERS as the publication build renders them. */
  includeSystem: boolean;
  nameservers: readonly string[];
}

export async function exportZoneFile(ctx: DbContext, zone: Zone, options: ExportOptions): Promise<string> {
  const rows = await zoneRecordRowsInOrder(ctx.scoped, zone.id);
  // The SOA first (RFC 1035 §5.2), then the apex NS set (in list order: by content), then every
  // stored record in list order.
  const system = options.includeSystem ? renderSystemRecords(zone, options.nameservers) : [];
  const ns = system.filter((r) => r.type === 'NS').sort((a, b) => (a.content < b.content ? -1 : a.content > b.content ? 1 : 0));
  const ordered: Pick<DnsRecord, 'name' | 'ttl' | 'type' | 'content'>[] = [...system.filter((r) => r.type === 'SOA'), ...ns, ...rows];
  // Records that follow the zone default carry no TTL and take $TTL (RFC 2308 §4), so an
  // import of this file keeps them following the default.
  const lines = ordered.map((r) => `${absoluteName(r.name, zone.name)}.\t${r.ttl === null ? '' : r.ttl}\tIN\t${r.type}\t${r.content}`);
  return `; ${zone.name} exported by the managed DNS service\n$TTL ${zone.defaultTtl}\n${lines.join('\n')}\n`;
}

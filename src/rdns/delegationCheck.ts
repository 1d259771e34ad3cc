// Where the parent of a reverse zone delegates it (docs/rdns.md "Delegation checks"), asked the way
// a resolver walks down: the parent zone's apex is found through the configured resolver
// (DNSSEC_RESOLVER), then one of the parent's own nameservers is asked, non-recursively, for the
// zone's NS — its referral (or its answer, where it serves the zone too) is what the parent says.
import { TYPE } from '../../nameserver/types.js';
import { splitLabels } from '../../nameserver/wire/name.js';
import type { MessageRecord } from '../../nameserver/wire/parseMessage.js';
import { rdataToData } from '../../nameserver/wire/rdata.js';
import type { ObservedDelegation } from '../domain/ip/delegation.js';
import { canonicalName } from '../domain/names.js';
import { type DnsServer, queryDns } from '../../nameserver/client/dnsQuery.js';

const same = (a: string, b: string) => canonicalName(a) === canonicalName(b);

function namesOf(records: MessageRecord[], owner: string, type: number, field: string): string[] {
  return records
    .filter((r) => r.type === type && same(r.name, owner))
    .map((r) => canonicalName(String(rdataToData(type === TYPE.NS ? 'NS' : 'A', r.rdata)?.[field] ?? '')));
}

/** The observer of production: `resolver` recursive (RD), the parent's servers on `port`. */
export function resolverDelegationObserver(resolver: DnsServer | null, port = 53): (zone: string) => Promise<ObservedDelegation> {
  return async (zone) => {
    if (!resolver) return { unreachable: 'no resolver is configured (DNSSEC_RESOLVER)' };
    const ask = (name: string, type: number) => queryDns(resolver, name, type, { recursive: true });
    // The parent's apex: the nearest name above the zone that answers its own SOA.
    let labels = splitLabels(zone).slice(1);
    let parentNs: string[] = [];
    for (; labels.length > 0; labels = labels.slice(1)) {
      const name = labels.join('.');
      const soa = await ask(name, TYPE.SOA);
      if (soa.kind !== 'reply') return { unreachable: soa.message };
      if (!soa.answer.some((r) => r.type === TYPE.SOA && same(r.name, name))) continue;
      const ns = await ask(name, TYPE.NS);
      if (ns.kind !== 'reply') return { unreachable: ns.message };
      parentNs = namesOf(ns.answer, name, TYPE.NS, 'nameserver');
      break;
    }
    for (const host of parentNs) {
      const a = await ask(host, TYPE.A);
      if (a.kind !== 'reply') continue;
      for (const address of namesOf(a.answer, host, TYPE.A, 'address')) {
        const reply = await queryDns({ host: address, port }, zone, TYPE.NS);
        if (reply.kind !== 'reply') continue;
        const seen = [...namesOf(reply.answer, zone, TYPE.NS, 'nameserver'), ...namesOf(reply.authority, zone, TYPE.NS, 'nameserver')];
        return { delegatedTo: seen.length ? [...new Set(seen)].sort() : null };
      }
    }
    return { unreachable: `no nameserver of the parent of ${zone} answered` };
  };
}

// Asks one authoritative server for a zone's SOA over DNS, the way a resolver or a monitoring
// check would, through the service's DNS client (nameserver/client/dnsQuery.ts).
import { queryDns } from '../../nameserver/client/dnsQuery.js';
import { TYPE } from '../../nameserver/types.js';
import { rdataToData } from '../../nameserver/wire/rdata.js';
import type { HostPort } from '../config/index.js';

export type SoaProbeResult =
  | { kind: 'serial'; serial: number }
  /** The server does not serve the zone (REFUSED, NOTAUTH, or an answer without AA). */
  | { kind: 'not_served'; rcode: number }
  | { kind: 'unreachable'; message: string };

export type SoaProbe = (server: HostPort, zone: string) => Promise<SoaProbeResult>;

export function dnsSoaProbe(timeoutMs = 1000): SoaProbe {
  return async (server, zone) => {
    const reply = await queryDns(server, zone, TYPE.SOA, { timeoutMs });
    if (reply.kind === 'unreachable') return reply;
    const soa = reply.answer.find((r) => r.type === TYPE.SOA);
    const serial = soa && rdataToData('SOA', soa.rdata)?.serial;
    if (reply.rcode === 0 && reply.aa && typeof serial === 'number') return { kind: 'serial', serial };
    return { kind: 'not_served', rcode: reply.rcode };
  };
}

/**
 * The own nameserver may be several processes answering on one port (DNS_UDP_PROCESSES): a
 * DNS query reaches one of them. For the own address, the answer counts only as far as every
 * process serves it: the lowest serial the helper processes acknowledged, or "not served" when
 * one of them lacks the zone.
 */
export function withHelperProcesses(
  probe: SoaProbe,
  isOwn: (server: HostPort) => boolean,
  helpersServe: (zone: string) => number | null | undefined,
): SoaProbe {
  return async (server, zone) => {
    const seen = await probe(server, zone);
    const helpers = isOwn(server) ? helpersServe(zone) : undefined;
    if (helpers === undefined) return seen;
    if (helpers === null) return seen.kind === 'serial' ? { kind: 'not_served', rcode: 5 } : seen;
    if (seen.kind === 'unreachable') return seen;
    return { kind: 'serial', serial: helpers };
  };
}

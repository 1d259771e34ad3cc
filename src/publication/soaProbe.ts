// Asks one authoritative server for a zone's SOA over DNS, the way a resolver or a monitoring
// check would. dns2 is the client here (see docs/nameserver.md for where dns2 is and is not used).
import net from 'node:net';
import dns2 from 'dns2';
import type { HostPort } from '../config/index.js';

export type SoaProbeResult =
  | { kind: 'serial'; serial: number }
  /** The server does not serve the zone (REFUSED, NOTAUTH, or an answer without AA). */
  | { kind: 'not_served'; rcode: number }
  | { kind: 'unreachable'; message: string };

export type SoaProbe = (server: HostPort, zone: string) => Promise<SoaProbeResult>;

interface Dns2Response {
  header: { rcode: number; aa: number };
  answers: { type: number; serial?: number }[];
}

export function dns2SoaProbe(timeoutMs = 1000): SoaProbe {
  return async (server, zone) => {
    const query = dns2.UDPClient({ dns: server.host, port: server.port, timeout: timeoutMs, socketType: net.isIPv6(server.host) ? 'udp6' : 'udp4', retryOverTCP: true } as never) as unknown as (
      name: string,
      type: string,
      cls?: number,
      options?: { recursive?: boolean },
    ) => Promise<Dns2Response>;
    try {
      const response = await query(zone, 'SOA', 1, { recursive: false });
      const soa = response.answers.find((a) => a.type === 6 && typeof a.serial === 'number');
      if (response.header.rcode === 0 && response.header.aa && soa) return { kind: 'serial', serial: soa.serial! };
      return { kind: 'not_served', rcode: response.header.rcode };
    } catch (err) {
      return { kind: 'unreachable', message: (err as Error).message };
    }
  };
}

/**
 * The own nameserver may be several processes answering on one socket (DNS_UDP_PROCESSES): a
 * DNS query reaches one of them. For the own address, the answer counts only as far as every
 * process serves it: the lowest serial the helper processes acknowledged, or "not served" when
 * one of them lacks the zone.
 */
export function withHelperProcesses(probe: SoaProbe, isOwn: (server: HostPort) => boolean, helpersServe: (zone: string) => number | null | undefined): SoaProbe {
  return async (server, zone) => {
    const seen = await probe(server, zone);
    const helpers = isOwn(server) ? helpersServe(zone) : undefined;
    if (helpers === undefined) return seen;
    if (helpers === null) return seen.kind === 'serial' ? { kind: 'not_served', rcode: 5 } : seen;
    if (seen.kind === 'unreachable') return seen;
    return { kind: 'serial', serial: helpers };
  };
}

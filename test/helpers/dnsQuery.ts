// DNS queries from tests through a client nobody here wrote (dns2's UDP and TCP clients), the way
// a resolver asks: no recursion desired, the answer as parsed by that library.
import net from 'node:net';
import dns2 from 'dns2';

export interface DnsReply {
  rcode: number;
  aa: boolean;
  tc: boolean;
  answers: { name: string; type: number; ttl: number; address?: string; data?: string | string[]; serial?: number; [k: string]: unknown }[];
  authorities: { name: string; type: number; ttl: number; [k: string]: unknown }[];
  additionals: { name: string; type: number; [k: string]: unknown }[];
}

export const RCODE_NAME: Record<number, string> = { 0: 'NOERROR', 1: 'FORMERR', 2: 'SERVFAIL', 3: 'NXDOMAIN', 4: 'NOTIMP', 5: 'REFUSED' };

export async function queryDns(
  port: number,
  name: string,
  type: string,
  options: { host?: string; tcp?: boolean; timeoutMs?: number } = {},
): Promise<DnsReply> {
  const host = options.host ?? '127.0.0.1';
  const client = (options.tcp ? dns2.TCPClient : dns2.UDPClient)({
    dns: host,
    port,
    timeout: options.timeoutMs ?? 2000,
    socketType: net.isIPv6(host) ? 'udp6' : 'udp4',
    retryOverTCP: false,
  } as never) as unknown as (name: string, type: string, cls?: number, opts?: { recursive?: boolean }) => Promise<any>;
  const r = await client(name, type, 1, { recursive: false });
  return {
    rcode: r.header.rcode,
    aa: Boolean(r.header.aa),
    tc: Boolean(r.header.tc),
    answers: r.answers ?? [],
    authorities: r.authorities ?? [],
    additionals: r.additionals ?? [],
  };
}

/** Polls `probe` until it returns a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// DynDNS routers as load (bench/dyndns.ts, and /nic/update beside RFC 2136 UPDATE in
// bench/dnsUpdateLatency.ts): one host per client, each updated with a new IPv4 address every
// time through GET /nic/update (Basic auth, as ddclient sends it), optionally followed to the
// nameserver's answer.
import { TYPE } from '../../nameserver/types.js';
import { answerRdata, udpQuery, udpSocket } from './dnsUpdate.js';

export interface DyndnsHost {
  username: string;
  password: string;
  hostname: string;
}

type Api = (method: string, path: string, body?: unknown) => Promise<any>;

/** `clients` hosts `router<i>`, host i in zones[i % zones.length] (the zones exist). */
export function createDyndnsHosts(api: Api, zones: string[], clients: number): Promise<DyndnsHost[]> {
  return Promise.all(Array.from({ length: clients }, (_, i) => api('POST', '/dyndns/hosts', { zone: zones[i % zones.length], name: `router${i}` })));
}

export interface NicPhase {
  /** performance.now() of each `good`. */
  accepted: number[];
  /** good → the nameserver answers the new address, ms (with `follow`). */
  latencies: number[];
  /** Answers other than `good <ip>`, by text. */
  other: Map<string, number>;
}

// Every update of the process gets its own address, so none repeats the host's current one.
let sent = 0;

/**
 * Each client updates its own host until `until` (performance.now()) or `perClient` updates,
 * whichever comes first; `follow`: after each good, UDP queries every 2 ms until the nameserver
 * answers the new address, then `pauseMs` before the next update.
 */
export async function nicUpdatePhase(o: {
  base: string;
  dnsPort: number;
  hosts: DyndnsHost[];
  until?: number;
  perClient?: number;
  follow: boolean;
  pauseMs?: number;
}): Promise<NicPhase> {
  const out: NicPhase = { accepted: [], latencies: [], other: new Map() };
  const until = o.until ?? Infinity;
  const perClient = o.perClient ?? Infinity;
  await Promise.all(
    o.hosts.map(async (host, c) => {
      const auth = `Basic ${Buffer.from(`${host.username}:${host.password}`).toString('base64')}`;
      const socket = await udpSocket();
      try {
        for (let i = 0; i < perClient && performance.now() < until; i++) {
          const n = ++sent;
          // A new address every time: 198.18.0.0/15 (RFC 2544), never the host's current one.
          const ip = `198.${18 + ((n >> 16) & 1)}.${(n >> 8) & 255}.${n & 255}`;
          const r = await fetch(`${o.base}/nic/update?hostname=${host.hostname}&myip=${ip}`, {
            headers: { authorization: auth, 'user-agent': 'bench/dyndns' },
          });
          const text = (await r.text()).trim();
          if (text !== `good ${ip}`) {
            out.other.set(text, (out.other.get(text) ?? 0) + 1);
            continue;
          }
          const at = performance.now();
          out.accepted.push(at);
          if (!o.follow) continue;
          const wanted = Buffer.from(ip.split('.').map(Number));
          for (let q = 1; ; q++) {
            const answer = await udpQuery(socket, o.dnsPort, host.hostname, TYPE.A, (c << 12) | (q & 0xfff));
            if (answerRdata(answer, TYPE.A).some((rdata) => rdata.equals(wanted))) break;
            if (performance.now() - at > 30_000) throw new Error(`${host.hostname} never answered ${ip}`);
            await new Promise((res) => setTimeout(res, 2));
          }
          out.latencies.push(performance.now() - at);
          if (o.pauseMs) await new Promise((res) => setTimeout(res, o.pauseMs));
        }
      } finally {
        socket.close();
      }
    }),
  );
  return out;
}

/** The p-th percentile (nearest rank) of `xs`. */
export const percentile = (xs: number[], p: number): number =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.max(0, Math.ceil((p / 100) * xs.length) - 1))]!;

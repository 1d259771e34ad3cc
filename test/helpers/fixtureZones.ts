// Zones for the nameserver's network tests, built in-process (no database): records as the
// service holds them (type + data object), RDATA through the wire codec (encodeRdata), loaded into
// a ZoneStore, served by startDnsServer on a free port.
import dgram from 'node:dgram';
import net from 'node:net';
import { TYPE, type ZoneDiff, type ZoneRecord } from '../../nameserver/types.js';
import { startDnsServer, type DnsServer, type DnsServerOptions, type NameserverLogger } from '../../nameserver/server.js';
import { encodeRdata } from '../../nameserver/wire/rdata.js';
import { buildZoneSnapshot } from '../../nameserver/zone/snapshot.js';
import { ZoneStore } from '../../nameserver/zone/store.js';

export type RecordSpec = [name: string, type: keyof typeof TYPE, ttl: number, data: Record<string, unknown>];

export function zoneRecord([name, type, ttl, data]: RecordSpec): ZoneRecord {
  return { name, type: TYPE[type], ttl, rdata: encodeRdata(type, data) };
}

export const soaData = (origin: string, serial: number) => ({
  mname: `ns1.${origin}`,
  rname: `hostmaster.${origin}`,
  serial,
  refresh: 3600,
  retry: 600,
  expire: 604800,
  minimum: 300,
});

/** 1000 octets: four character-strings on the wire (255, 255, 255, 235). */
export const LONG_TEXT = Array.from({ length: 1000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
export const TLSA_HEX = '0c72ac70b745ac19998811b131d662c9ac69dbdbe7cb23e5b514b56664c5d3d6';

export const EXAMPLE_SERIAL = 2026010101;

/** example.com: one or more records of every type the service publishes, a delegation with glue. */
export function exampleRecords(serial = EXAMPLE_SERIAL): RecordSpec[] {
  const o = 'example.com';
  return [
    [o, 'SOA', 3600, soaData(o, serial)],
    [o, 'NS', 3600, { nameserver: `ns1.${o}` }],
    [o, 'NS', 3600, { nameserver: `ns2.${o}` }],
    [`ns1.${o}`, 'A', 3600, { address: '192.0.2.1' }],
    [`ns2.${o}`, 'A', 3600, { address: '192.0.2.2' }],
    [`www.${o}`, 'A', 300, { address: '192.0.2.10' }],
    [`www.${o}`, 'AAAA', 300, { address: '2001:db8::10' }],
    [`alias.${o}`, 'CNAME', 300, { target: `www.${o}` }],
    [`chain1.${o}`, 'CNAME', 300, { target: `chain2.${o}` }],
    [`chain2.${o}`, 'CNAME', 300, { target: `www.${o}` }],
    [`external.${o}`, 'CNAME', 300, { target: 'www.example.net' }],
    [o, 'MX', 3600, { preference: 10, exchange: `mail.${o}` }],
    [`mail.${o}`, 'A', 3600, { address: '192.0.2.25' }],
    [`txt.${o}`, 'TXT', 300, { text: 'hello world' }],
    [`long.${o}`, 'TXT', 300, { text: LONG_TEXT }],
    [`_sip._tcp.${o}`, 'SRV', 300, { priority: 10, weight: 60, port: 5060, target: `sip.${o}` }],
    [`sip.${o}`, 'A', 300, { address: '192.0.2.30' }],
    [o, 'CAA', 3600, { flags: 0, tag: 'issue', value: 'letsencrypt.org' }],
    [`_443._tcp.www.${o}`, 'TLSA', 300, { usage: 3, selector: 1, matching_type: 1, certificate_data: TLSA_HEX }],
    [`sub.${o}`, 'NS', 86400, { nameserver: `ns1.sub.${o}` }],
    [`ns1.sub.${o}`, 'A', 86400, { address: '192.0.2.53' }],
    // 40 addresses: 12 + 17 + 40·16 octets, past 512 without EDNS, within 1232 with it.
    ...Array.from({ length: 40 }, (_, i): RecordSpec => [`big.${o}`, 'A', 300, { address: `198.51.100.${i + 1}` }]),
  ];
}

export function reverseRecords(serial = EXAMPLE_SERIAL): RecordSpec[] {
  const o = '2.0.192.in-addr.arpa';
  return [
    [o, 'SOA', 3600, { ...soaData('example.com', serial) }],
    [o, 'NS', 3600, { nameserver: 'ns1.example.com' }],
    [`10.${o}`, 'PTR', 300, { target: 'www.example.com' }],
  ];
}

export function storeWith(zones: Record<string, RecordSpec[]>): ZoneStore {
  const store = new ZoneStore();
  for (const [origin, specs] of Object.entries(zones)) store.set(buildZoneSnapshot(origin, specs.map(zoneRecord)));
  return store;
}

/** The diff that takes example.com from `from` to `to`: www's address changes, one record is added. */
export function exampleDiff(from: number, to: number, change: { oldAddress: string; newAddress: string; added: string }): ZoneDiff {
  const o = 'example.com';
  return {
    fromSerial: from,
    toSerial: to,
    removed: [zoneRecord([o, 'SOA', 3600, soaData(o, from)]), zoneRecord([`www.${o}`, 'A', 300, { address: change.oldAddress }])],
    added: [
      zoneRecord([o, 'SOA', 3600, soaData(o, to)]),
      zoneRecord([`www.${o}`, 'A', 300, { address: change.newAddress }]),
      zoneRecord([change.added, 'TXT', 300, { text: `added in ${to}` }]),
    ],
  };
}

export interface LogLine {
  level: 'info' | 'warn' | 'error' | 'debug';
  obj: object;
  msg: string;
}

/** A logger that keeps what it is given, for assertions. */
export function memoryLogger(): NameserverLogger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: LogLine['level']) => (obj: object, msg: string) => void lines.push({ level, obj, msg });
  return { lines, info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') };
}

export async function startTestServer(
  store: ZoneStore,
  options: Partial<DnsServerOptions> = {},
): Promise<{ server: DnsServer; logger: ReturnType<typeof memoryLogger> }> {
  const logger = memoryLogger();
  const server = await startDnsServer({
    hosts: ['127.0.0.1'],
    port: 0,
    store,
    maxTcpConnections: 16,
    tcpIdleMs: 5000,
    transferAllow: ['127.0.0.1/32', '::1/128'],
    tsigKeys: [],
    logger,
    ...options,
  });
  return { server, logger };
}

/** True when this machine has an IPv6 loopback to bind. */
export async function hasIpv6Loopback(): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(0, '::1', () => s.close(() => resolve(true)));
  });
}

/** A port free for both TCP and UDP on 127.0.0.1 right now (for a child process to bind). */
export async function freeDualPort(): Promise<number> {
  for (;;) {
    const tcp = net.createServer();
    const port = await new Promise<number>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(0, '127.0.0.1', () => resolve((tcp.address() as net.AddressInfo).port));
    });
    const udp = dgram.createSocket('udp4');
    const free = await new Promise<boolean>((resolve) => {
      udp.once('error', () => resolve(false));
      udp.bind(port, '127.0.0.1', () => resolve(true));
    });
    await new Promise<void>((resolve) => tcp.close(() => resolve()));
    await new Promise<void>((resolve) => {
      try {
        udp.close(() => resolve());
      } catch {
        resolve();
      }
    });
    if (free) return port;
  }
}

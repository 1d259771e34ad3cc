// Knot DNS (knotd, Debian's knot package) as a standard secondary of our nameserver, for the
// tests that need software nobody here wrote on the other end of NOTIFY and zone transfers.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TsigAlgorithm } from '../../nameserver/wire/tsig.js';
import { type Daemon, startDaemon } from './daemon.js';
import { requireTool } from './dnsTools.js';

export interface KnotSecondaryOptions {
  /** Port to listen on (UDP and TCP). */
  port: () => Promise<number>;
  primaryPort: number;
  zones: string[];
  key: { name: string; secret: Buffer };
  /** The key NOTIFY must be signed with, when not `key` (a secondary set's key: NOTIFY is signed with it, transfers with the deployment's). */
  notifyKey?: { name: string; secret: Buffer };
}

/** knotd as a test runs it; a restart keeps its data (its journal keeps the zones). */
export type KnotSecondary = Daemon;

/**
 * TSIG on transfers and on NOTIFY from the primary; zones kept in Knot's journal only, and
 * loaded from it at a restart (`zonefile-load: none`), so that a restart catches up by IXFR.
 * Anyone on 127.0.0.1 may transfer a zone from Knot (without TSIG): tests check what Knot holds.
 */
function knotConfig(dir: string, port: number, o: KnotSecondaryOptions): string {
  const notifyKey = o.notifyKey ?? o.key;
  const extraKey = o.notifyKey
    ? `  - id: ${o.notifyKey.name}
    algorithm: hmac-sha256
    secret: ${o.notifyKey.secret.toString('base64')}
`
    : '';
  return `server:
    rundir: "${dir}"
    listen: 127.0.0.1@${port}
database:
    storage: "${dir}/db"
key:
  - id: ${o.key.name}
    algorithm: hmac-sha256
    secret: ${o.key.secret.toString('base64')}
${extraKey}remote:
  - id: primary
    address: 127.0.0.1@${o.primaryPort}
    key: ${o.key.name}
acl:
  - id: notify_from_primary
    address: 127.0.0.1
    key: ${notifyKey.name}
    action: notify
  - id: transfer_to_local
    address: 127.0.0.1
    action: transfer
template:
  - id: default
    storage: "${dir}/zones"
    zonefile-sync: -1
    zonefile-load: none
    journal-content: all
zone:
${o.zones.map((z) => `  - domain: ${z}\n    master: primary\n    acl: [notify_from_primary, transfer_to_local]`).join('\n')}
log:
  - target: stderr
    any: info
`;
}

export interface KnotCatalogConsumerOptions {
  port: () => Promise<number>;
  primaryPort: number;
  /** The catalog zone Knot follows (RFC 9432): its members are configured from it. */
  catalog: string;
  /** Templates for the members' `group` property; the first, `member`, serves members without one. */
  groups: string[];
  /** Transfers and NOTIFY signed with this key; none: unsigned. */
  key?: { name: string; secret: Buffer };
}

/**
 * Knot as a catalog consumer (`catalog-role: interpret`): no zone but the catalog in its
 * configuration; every member comes from the catalog, with the template its `group` names (each
 * template transfers from our nameserver like the catalog itself). Members are kept in the
 * journal, as with startKnotSecondary.
 */
function knotCatalogConfig(dir: string, port: number, o: KnotCatalogConsumerOptions): string {
  const key = o.key ? `\n    key: ${o.key.name}` : '';
  const template = (id: string) => `  - id: ${id}
    storage: "${dir}/zones"
    zonefile-sync: -1
    zonefile-load: none
    journal-content: all
    master: primary
    acl: [notify_from_primary, transfer_to_local]`;
  return `server:
    rundir: "${dir}"
    listen: 127.0.0.1@${port}
database:
    storage: "${dir}/db"
${o.key ? `key:\n  - id: ${o.key.name}\n    algorithm: hmac-sha256\n    secret: ${o.key.secret.toString('base64')}\n` : ''}remote:
  - id: primary
    address: 127.0.0.1@${o.primaryPort}${key}
acl:
  - id: notify_from_primary
    address: 127.0.0.1${key}
    action: notify
  - id: transfer_to_local
    address: 127.0.0.1
    action: transfer
template:
${['member', ...o.groups].map(template).join('\n')}
zone:
  - domain: ${o.catalog}
    template: member
    catalog-role: interpret
    catalog-template: [${['member', ...o.groups].join(', ')}]
log:
  - target: stderr
    any: info
`;
}

export async function startKnotCatalogConsumer(options: KnotCatalogConsumerOptions): Promise<KnotSecondary> {
  return startKnotd(options.port, (dir, port) => knotCatalogConfig(dir, port, options));
}

export async function startKnotSecondary(options: KnotSecondaryOptions): Promise<KnotSecondary> {
  return startKnotd(options.port, (dir, port) => knotConfig(dir, port, options));
}

/** The same handle: its restart reloads the zone files. */
export type KnotPrimary = KnotSecondary;

/** The TSIG algorithms, as the codec names them (Knot uses the same names). */
export type { TsigAlgorithm };

export interface KnotTsigKey {
  name: string;
  algorithm: TsigAlgorithm;
  secret: Buffer;
}

/** A zone Knot serves from a file of ours, as given (no signing, no journal). */
export interface KnotPrimaryZone {
  origin: string;
  /** The master file. */
  text: string;
  /**
   * Keys allowed to change the zone by RFC 2136 UPDATE from 127.0.0.1 (Knot applies it to the
   * zone in memory: the file stays as given). With them, anyone on 127.0.0.1 may also transfer
   * the zone, so a test can read all that the updates left.
   */
  updateKeys?: KnotTsigKey[];
}

/**
 * knotd as a plain primary of zones given as master files (signed zones are served as they are:
 * Knot does not sign unless told to), for comparing its answers with ours; with `updateKeys`, the
 * dynamic-update server ACME DNS-01 clients are checked against.
 */
export async function startKnotPrimary(options: { port: () => Promise<number>; zones: KnotPrimaryZone[] }): Promise<KnotPrimary> {
  const keys = [...new Map(options.zones.flatMap((z) => z.updateKeys ?? []).map((k) => [k.name, k])).values()];
  const zoneEntry = (z: KnotPrimaryZone) => {
    const acl = z.updateKeys?.length ? `\n    acl: [update_${z.origin}, transfer_to_local]` : '';
    return `  - domain: ${z.origin}\n    file: ${z.origin}.zone${acl}`;
  };
  return startKnotd(options.port, (dir, port) => {
    for (const zone of options.zones) fs.writeFileSync(path.join(dir, 'zones', `${zone.origin}.zone`), zone.text);
    const updatable = options.zones.filter((z) => z.updateKeys?.length);
    return `server:
    rundir: "${dir}"
    listen: 127.0.0.1@${port}
database:
    storage: "${dir}/db"
${
  keys.length
    ? `key:
${keys.map((k) => `  - id: ${k.name}\n    algorithm: ${k.algorithm}\n    secret: ${k.secret.toString('base64')}`).join('\n')}
acl:
${updatable.map((z) => `  - id: update_${z.origin}\n    address: 127.0.0.1\n    key: [${z.updateKeys!.map((k) => k.name).join(', ')}]\n    action: update`).join('\n')}
  - id: transfer_to_local
    address: 127.0.0.1
    action: transfer
`
    : ''
}template:
  - id: default
    storage: "${dir}/zones"
    zonefile-sync: -1
    journal-content: none
zone:
${options.zones.map(zoneEntry).join('\n')}
log:
  - target: stderr
    any: info
`;
  });
}

async function startKnotd(portFor: () => Promise<number>, configFor: (dir: string, port: number) => string): Promise<KnotSecondary> {
  const knotd = requireTool('knotd');
  if (!knotd) throw new Error('knotd is not installed');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdns-knot-'));
  fs.mkdirSync(path.join(dir, 'db'));
  fs.mkdirSync(path.join(dir, 'zones'));
  return startDaemon({
    name: 'knotd',
    port: portFor,
    configure: (port) => fs.writeFileSync(path.join(dir, 'knot.conf'), configFor(dir, port)),
    // knotd exits at once when its port is taken; still running after a second, it serves.
    launch: async (_port, log) => {
      const c = spawn(knotd, ['-c', path.join(dir, 'knot.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
      c.stderr!.on('data', (d) => log(d.toString()));
      const exited = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 1000);
        c.once('exit', () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      return exited ? null : c;
    },
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  });
}

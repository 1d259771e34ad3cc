// BIND 9 (named, Debian's bind9 package) as a catalog consumer (RFC 9432) of our nameserver, for
// the tests that need a third implementation nobody here wrote following a secondary set's catalog.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDaemon, stopProcess } from './daemon.js';
import { queryDns } from './dnsQuery.js';
import { requireTool } from './dnsTools.js';
import type { KnotSecondary } from './knot.js';

export interface BindCatalogConsumerOptions {
  /** Port to listen on (UDP and TCP). */
  port: () => Promise<number>;
  primaryPort: number;
  /** The catalog zone(s) named follows: their members are added from them (`catalog-zones`). */
  catalog: string | readonly string[];
  /** Transfers of the catalog and its members signed with this key (HMAC-SHA256); none: unsigned. */
  key?: { name: string; secret: Buffer };
}

/** The same handle as Knot's: log since the last start, restart on the same data, stop, close. */
export type BindSecondary = KnotSecondary;

/**
 * named.conf of a catalog consumer: the catalog is the only zone configured; its members are
 * added at run time (`allow-new-zones yes`, kept in the NZD database and zone files of the
 * temporary directory) and transferred from `default-primaries`. Everything named writes stays
 * in that directory: no rndc channel (port 953 may be another named's), its own session key.
 * `min-update-interval 1`: named applies a catalog's changes at most once per interval (5 s by
 * default), which a test that deletes and re-creates a zone would spend waiting.
 */
export function bindCatalogConfig(dir: string, port: number, o: BindCatalogConsumerOptions): string {
  const key = o.key ? ` key "${o.key.name}"` : '';
  const primaries = `{ 127.0.0.1 port ${o.primaryPort}${key}; }`;
  const keyClause = o.key ? `key "${o.key.name}" {\n  algorithm hmac-sha256;\n  secret "${o.key.secret.toString('base64')}";\n};\n` : '';
  const catalogs = typeof o.catalog === 'string' ? [o.catalog] : o.catalog;
  return `${keyClause}options {
  directory "${dir}";
  pid-file "${dir}/named.pid";
  session-keyfile "${dir}/session.key";
  managed-keys-directory "${dir}";
  new-zones-directory "${dir}";
  listen-on port ${port} { 127.0.0.1; };
  listen-on-v6 { none; };
  recursion no;
  dnssec-validation no;
  notify no;
  allow-new-zones yes;
  catalog-zones {
${catalogs.map((c) => `    zone "${c}" default-primaries ${primaries} min-update-interval 1;`).join('\n')}
  };
};
controls { };
${catalogs.map((c, i) => `zone "${c}" {\n  type secondary;\n  primaries ${primaries};\n  file "catalog${i}.db";\n};`).join('\n')}
`;
}

/**
 * named in the foreground (`-g`: everything logged to stderr, which the handle keeps), as the
 * user running the tests: without `-u` named does not switch users, so as root it stays root and
 * needs no directory owned by `bind`. Debug level 3 (`-d 3`): only there does named 9.18 say
 * whether a transfer came as an IXFR ("got incremental response"). Ready when its log says it
 * runs and listens on the port, and it answers a query there.
 */
export async function startBindCatalogConsumer(options: BindCatalogConsumerOptions): Promise<BindSecondary> {
  const named = requireTool('named');
  if (!named) throw new Error('named is not installed');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdns-bind-'));
  const conf = path.join(dir, 'named.conf');
  return startDaemon({
    name: 'named',
    port: options.port,
    configure: (port) => fs.writeFileSync(conf, bindCatalogConfig(dir, port, options)),
    // named exits, or says so, when its port is taken ("unable to listen on any configured interfaces").
    launch: async (port, log) => {
      let text = '';
      const c = spawn(named, ['-g', '-d', '3', '-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
      c.stderr!.on('data', (d) => {
        text += d.toString();
        log(d.toString());
      });
      const listening = new RegExp(`listening on IPv4 interface \\S+, 127\\.0\\.0\\.1#${port}$`, 'm');
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && c.exitCode === null && c.signalCode === null) {
        if (/unable to listen|address in use/.test(text)) break;
        if (listening.test(text) && / running$/m.test(text)) {
          const answered = await queryDns(port, '.', 'SOA', { timeoutMs: 500 }).then(
            () => true,
            () => false,
          );
          if (answered) return c;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      await stopProcess(c);
      return null;
    },
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  });
}

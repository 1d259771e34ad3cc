// Unbound (Debian's unbound package) as a validating resolver in front of the lab's nameserver, for
// the tests that check the lab's chain of trust the way a customer's resolver sees it.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { requireTool } from './dnsTools.js';

export interface UnboundOptions {
  /** Port to listen on (UDP and TCP). */
  port: () => Promise<number>;
  /** Where every question goes: the lab's nameserver, authoritative for the lab root and everything below. */
  upstreamPort: number;
  /** DS lines of the root's trust anchor (trust-anchor-file). */
  trustAnchorFile: string;
  /** Zones asked of another server on 127.0.0.1 instead (a secondary's copy), and of nothing else. */
  stubZones?: { name: string; port: number }[];
}

export interface Unbound {
  port: number;
  /** What unbound logged, validation failures included (val-log-level 2). */
  log(): string;
  close(): Promise<void>;
}

/**
 * Every question is forwarded to the lab's nameserver: it serves the root and every zone below it
 * itself, so forwarding reaches an authoritative answer for any name — including the DS of a zone,
 * which the same server answers from the parent. Caching is capped at 5 s so that a change shows soon.
 * A stub zone is more specific than the forward: its names go to its server only, while its DS
 * (the parent's side) still comes from the lab's nameserver.
 */
function unboundConfig(dir: string, port: number, o: UnboundOptions): string {
  return `server:
    interface: 127.0.0.1
    port: ${port}
    do-ip6: no
    do-not-query-localhost: no
    username: ""
    chroot: ""
    directory: "${dir}"
    pidfile: "${dir}/unbound.pid"
    use-syslog: no
    logfile: "${dir}/unbound.log"
    verbosity: 1
    log-queries: yes
    val-log-level: 2
    module-config: "validator iterator"
    trust-anchor-file: "${o.trustAnchorFile}"
    harden-dnssec-stripped: yes
    qname-minimisation: no
    cache-max-ttl: 5
    cache-max-negative-ttl: 5
forward-zone:
    name: "."
    forward-addr: 127.0.0.1@${o.upstreamPort}
    forward-first: no
${(o.stubZones ?? []).map((z) => `stub-zone:\n    name: "${z.name}"\n    stub-addr: 127.0.0.1@${z.port}\n`).join('')}`;
}

export async function startUnbound(options: UnboundOptions): Promise<Unbound> {
  const unbound = requireTool('unbound');
  if (!unbound) throw new Error('unbound (Debian package unbound) is not installed');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdns-unbound-'));
  const logFile = path.join(dir, 'unbound.log');
  const log = () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '') + stderr;
  let stderr = '';
  let child: ChildProcess | null = null;
  let port = 0;

  // unbound exits at once when its port is taken (another test may take it in between): try again.
  for (let attempt = 1; ; attempt++) {
    port = await options.port();
    fs.writeFileSync(path.join(dir, 'unbound.conf'), unboundConfig(dir, port, options));
    stderr = '';
    const c = spawn(unbound, ['-d', '-c', path.join(dir, 'unbound.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
    c.stderr!.on('data', (d) => (stderr += d.toString()));
    const exited = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 1000);
      c.once('exit', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    if (!exited) {
      child = c;
      break;
    }
    if (attempt >= 3) throw new Error(`unbound did not start:\n${log()}`);
  }
  return {
    port,
    log,
    close: async () => {
      const c = child;
      child = null;
      if (c && c.exitCode === null && c.signalCode === null) {
        const exited = new Promise((r) => c.once('exit', r));
        c.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ACME DNS-01 end to end with software nobody here wrote (Debian's packages): pebble, the ACME
// test CA, validating by TXT queries to the DNS server under test, and two clients that publish
// the challenge by RFC 2136 UPDATE with TSIG — lego 4.9 (`--dns rfc2136`) and certbot 2.1 with
// certbot-dns-rfc2136. Everything on 127.0.0.1, unprivileged ports, temporary directories.
//
// What the clients send (seen through test/helpers/dnsTap.ts against Knot 3.2):
// - lego: a CNAME query for `_acme-challenge.<domain>` (it follows CNAMEs), then SOA queries up
//   the labels from that name (UDP, RD set, unsigned) until one has the SOA in the ANSWER; one
//   UPDATE over UDP that deletes the TXT RRset (class ANY) and adds the TXT; after its polling
//   interval one TXT query (RD set) to `--dns.resolvers`; cleanup: a CNAME query and an UPDATE
//   deleting that one TXT (class NONE), with no SOA discovery (the zone is remembered).
// - certbot: SOA queries from `_acme-challenge.<domain>` up, each over TCP, RD clear, TSIG-signed
//   with the algorithm name in upper case (`HMAC-MD5.SIG-ALG.REG.INT.`); the apex is the first
//   NOERROR answer with that SOA in the ANSWER and AA; one UPDATE over TCP adding the TXT (TTL
//   120); cleanup repeats the discovery and deletes that one TXT (class NONE).
// - lego waits for the authorization by polling it at once after POSTing the challenge and, when
//   it is still pending (pebble 2.4 sends no Retry-After), 5 s ±50 % later: its wall time is
//   either ~1 s or ~6 s, depending on whether pebble's validation beat that first poll. certbot
//   sleeps 1 s before its first poll and 1 s before fetching the finalized order.
import { spawn, spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../bench/lib/benchService.js';
import { findTool, requireTool, runToolAsync } from './dnsTools.js';
import type { TsigAlgorithm } from './knot.js';

export type { TsigAlgorithm } from './knot.js';

export interface Pebble {
  /** The ACME directory URL. */
  directory: string;
  /** PEM file of the certificate pebble's HTTPS listener presents: what the clients must trust. */
  caCert: string;
  /** What pebble printed so far (one line per request: `POST /authZ/ -> calling handler()`). */
  log(): string;
  close(): Promise<void>;
}

export interface AcmeClientOptions {
  directory: string;
  /** Pebble.caCert. */
  caCert: string;
  domain: string;
  /** Absent: certbot registers without one, lego with `acme@<domain>`. */
  email?: string;
  /** `host:port` of the RFC 2136 server; the host an IP address (certbot refuses names). */
  nameserver: string;
  /** `secret` in base64, as the key's owner got it. `algorithm` absent: the client's default. */
  tsig: { name: string; algorithm?: TsigAlgorithm; secret: string };
  /** The whole client run (default 60 s). */
  timeoutMs?: number;
}

export interface Issuance {
  /** The client exited 0 and left a certificate naming the domain. */
  ok: boolean;
  /** Wall time of the client's run, start to exit. */
  ms: number;
  /** The certificate file the client wrote (leaf first), or null. */
  certificatePem: string | null;
  /** DNS names in the leaf's subjectAltName. */
  dnsNames: string[];
  stdout: string;
  stderr: string;
}

// lego takes miekg/dns's algorithm names; certbot its own table, looked up exactly as written
// (its check upper-cases, its lookup does not: `hmac-sha256` passes the check and then silently
// falls back to HMAC-MD5), so always upper case.
const LEGO_ALGORITHM: Record<TsigAlgorithm, string> = {
  'hmac-md5': 'hmac-md5.sig-alg.reg.int.',
  'hmac-sha1': 'hmac-sha1.',
  'hmac-sha224': 'hmac-sha224.',
  'hmac-sha256': 'hmac-sha256.',
  'hmac-sha384': 'hmac-sha384.',
  'hmac-sha512': 'hmac-sha512.',
};
const certbotAlgorithm = (a: TsigAlgorithm) => a.toUpperCase();

/** The algorithm each client signs with when told none (INTEROP.md; seen with the tap). */
export const CLIENT_DEFAULT_ALGORITHM = { lego: 'hmac-sha1', certbot: 'hmac-md5' } as const satisfies Record<string, TsigAlgorithm>;

/** The programs this module runs (Debian packages lego, pebble, certbot, openssl). */
const TOOLS = ['pebble', 'lego', 'certbot', 'openssl'];

/**
 * What of the above is missing, certbot's rfc2136 plugin (python3-certbot-dns-rfc2136) included;
 * as requireTool: throws instead when REQUIRE_DNS_TOOLS=1.
 */
export function missingAcmeTools(): string[] {
  const missing = TOOLS.filter((t) => !requireTool(t));
  if (findTool('certbot') && !certbotHasRfc2136()) {
    if (process.env.REQUIRE_DNS_TOOLS === '1')
      throw new Error("certbot's rfc2136 plugin (Debian package python3-certbot-dns-rfc2136) is required (REQUIRE_DNS_TOOLS=1)");
    missing.push('python3-certbot-dns-rfc2136');
  }
  return missing;
}

/** Whether certbot's own interpreter (its #! line) can import the plugin. */
function certbotHasRfc2136(): boolean {
  const shebang = /^#!\s*(\S+)/.exec(fs.readFileSync(findTool('certbot')!, 'utf8').split('\n', 1)[0]!)?.[1];
  if (!shebang) return false;
  return spawnSync(shebang, ['-c', 'import certbot_dns_rfc2136'], { stdio: 'ignore' }).status === 0;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a program without blocking the event loop (the DNS server under test may live in this process). */
async function run(tool: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): Promise<Run> {
  const started = performance.now();
  const result = await runToolAsync(tool, args, options.timeoutMs ?? 60_000, undefined, { env: options.env, cwd: options.cwd });
  return { ...result, ms: performance.now() - started };
}

/** GET `url` trusting `ca` only; true on a 200. */
const answers = (url: string, ca: string) =>
  new Promise<boolean>((resolve) => {
    https
      .get(url, { ca, timeout: 2000 }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      })
      .on('error', () => resolve(false));
  });

/**
 * Starts pebble validating DNS-01 against `dnsServer` (`host:port`), with no random validation
 * sleep (PEBBLE_VA_NOSLEEP) and no rejected nonces (PEBBLE_WFE_NONCEREJECT=0: clients retry
 * those, which would only add noise). Its HTTPS certificate is made here by openssl for
 * 127.0.0.1. Resolves once the directory answers.
 */
export async function startPebble(options: { dnsServer: string }): Promise<Pebble> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdns-pebble-'));
  const caCert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  const made = await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=pebble',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
    '-keyout',
    key,
    '-out',
    caCert,
  ]);
  if (made.code !== 0) throw new Error(`openssl req failed:\n${made.stderr}`);
  const ca = fs.readFileSync(caCert, 'utf8');
  const env = { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0' };

  for (let attempt = 1; ; attempt++) {
    const [listen, management, httpPort, tlsPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    // httpPort and tlsPort are where pebble would connect for http-01 and tls-alpn-01, which the
    // clients here never offer; nothing listens on them.
    const config = {
      pebble: {
        listenAddress: `127.0.0.1:${listen}`,
        managementListenAddress: `127.0.0.1:${management}`,
        certificate: caCert,
        privateKey: key,
        httpPort,
        tlsPort,
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
      },
    };
    fs.writeFileSync(path.join(dir, 'pebble.json'), JSON.stringify(config));
    const child = spawn('pebble', ['-config', path.join(dir, 'pebble.json'), '-dnsserver', options.dnsServer], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.on('data', (d) => (log += d));
    child.stderr.on('data', (d) => (log += d));
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const directory = `https://127.0.0.1:${listen}/dir`;
    const deadline = Date.now() + 30_000;
    // Pebble makes its root and intermediate keys first: about 2 s before it listens.
    while (child.exitCode === null && Date.now() < deadline && !(await answers(directory, ca))) await new Promise((r) => setTimeout(r, 100));
    if (child.exitCode === null && Date.now() < deadline) {
      return {
        directory,
        caCert,
        log: () => log,
        close: async () => {
          if (child.exitCode === null && child.signalCode === null) {
            child.kill('SIGTERM');
            await exited;
          }
          fs.rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    child.kill('SIGKILL');
    await exited;
    // A port taken between freePort and pebble's bind: try others.
    if (attempt >= 3) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw new Error(`pebble did not start:\n${log}`);
    }
  }
}

function splitHostPort(hostPort: string): { host: string; port: number } {
  const at = hostPort.lastIndexOf(':');
  return { host: hostPort.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(hostPort.slice(at + 1)) };
}

/** The client's environment without anything of ours or the caller's that would steer it. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(LEGO_|RFC2136_|REQUESTS_CA_BUNDLE$)/.test(k)) env[k] = v;
  return { ...env, ...extra };
}

function issuance(r: Run, certificateFile: string, domain: string): Issuance {
  const certificatePem = fs.existsSync(certificateFile) ? fs.readFileSync(certificateFile, 'utf8') : null;
  const dnsNames = certificatePem
    ? (new X509Certificate(certificatePem).subjectAltName ?? '')
        .split(', ')
        .filter((n) => n.startsWith('DNS:'))
        .map((n) => n.slice(4))
    : [];
  return { ok: r.code === 0 && dnsNames.includes(domain), ms: r.ms, certificatePem, dnsNames, stdout: r.stdout, stderr: r.stderr };
}

/**
 * `lego --dns rfc2136 run` in a temporary --path. `pollingIntervalSeconds` (default 1) is
 * RFC2136_POLLING_INTERVAL: lego sleeps it once before checking the TXT (and between checks).
 * `--dns.disable-cp`: the check is one TXT query to `--dns.resolvers` (the server under test),
 * not one to every NS of the zone on port 53.
 */
export async function obtainWithLego(options: AcmeClientOptions & { pollingIntervalSeconds?: number }): Promise<Issuance> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdns-lego-'));
  try {
    const env = cleanEnv({
      LEGO_CA_CERTIFICATES: options.caCert,
      RFC2136_NAMESERVER: options.nameserver,
      RFC2136_TSIG_KEY: options.tsig.name,
      RFC2136_TSIG_SECRET: options.tsig.secret,
      ...(options.tsig.algorithm ? { RFC2136_TSIG_ALGORITHM: LEGO_ALGORITHM[options.tsig.algorithm] } : {}),
      RFC2136_PROPAGATION_TIMEOUT: '10',
      RFC2136_POLLING_INTERVAL: String(options.pollingIntervalSeconds ?? 1),
      RFC2136_DNS_TIMEOUT: '10',
    });
    const args = [
      '--server',
      options.directory,
      '--accept-tos',
      '--email',
      options.email ?? `acme@${options.domain}`,
      '--path',
      dir,
      '--domains',
      options.domain,
      '--dns',
      'rfc2136',
      '--dns.resolvers',
      options.nameserver,
      '--dns.disable-cp',
      'run',
    ];
    const r = await run('lego', args, { env, timeoutMs: options.timeoutMs });
    return issuance(r, path.join(dir, 'certificates', `${options.domain}.crt`), options.domain);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `certbot certonly --authenticator dns-rfc2136` with its config, work and logs directories in a
 * temporary directory (no root needed). The credentials INI names an algorithm only when
 * `tsig.algorithm` is given: absent, certbot signs with HMAC-MD5. `propagationSeconds` (default
 * 0): certbot's fixed wait between the UPDATE and answering the challenge.
 */
export async function obtainWithCertbot(options: AcmeClientOptions & { propagationSeconds?: number }): Promise<Issuance> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdns-certbot-'));
  try {
    const { host, port } = splitHostPort(options.nameserver);
    const ini = path.join(dir, 'rfc2136.ini');
    const lines = [
      `dns_rfc2136_server = ${host}`,
      `dns_rfc2136_port = ${port}`,
      `dns_rfc2136_name = ${options.tsig.name}`,
      `dns_rfc2136_secret = ${options.tsig.secret}`,
    ];
    if (options.tsig.algorithm) lines.push(`dns_rfc2136_algorithm = ${certbotAlgorithm(options.tsig.algorithm)}`);
    // certbot warns about credentials others can read.
    fs.writeFileSync(ini, `${lines.join('\n')}\n`, { mode: 0o600 });
    const args = [
      'certonly',
      '--non-interactive',
      '--agree-tos',
      ...(options.email ? ['--email', options.email] : ['--register-unsafely-without-email']),
      '--server',
      options.directory,
      '--config-dir',
      path.join(dir, 'config'),
      '--work-dir',
      path.join(dir, 'work'),
      '--logs-dir',
      path.join(dir, 'logs'),
      '--authenticator',
      'dns-rfc2136',
      '--dns-rfc2136-credentials',
      ini,
      '--dns-rfc2136-propagation-seconds',
      String(options.propagationSeconds ?? 0),
      '-d',
      options.domain,
    ];
    const r = await run('certbot', args, { env: cleanEnv({ REQUESTS_CA_BUNDLE: options.caCert }), timeoutMs: options.timeoutMs });
    return issuance(r, path.join(dir, 'config', 'live', options.domain, 'cert.pem'), options.domain);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// dig and dnsperf, run as child processes and their output parsed, for the nameserver benchmarks.
import { execFile, spawn, type ChildProcess } from 'node:child_process';

export interface DigAnswer {
  status: string;
  flags: string[];
  /** Answer section lines, whitespace collapsed, sorted. */
  answer: string[];
  counts: { answer: number; authority: number; additional: number };
  size: number;
}

/** One query with dig (no recursion desired, one try); null when no reply came. */
export function dig(server: string, port: number, name: string, type: string, extra: string[] = []): Promise<DigAnswer | null> {
  return new Promise((resolve) => {
    execFile('dig', [`@${server}`, '-p', String(port), name, type, '+norec', '+tries=1', '+time=1', ...extra], { timeout: 5000 }, (err, stdout) => {
      if (err && !stdout) return resolve(null);
      const status = /status: (\w+)/.exec(stdout)?.[1];
      if (!status) return resolve(null);
      const flags = (/;; flags: ([^;]*);/.exec(stdout)?.[1] ?? '').trim().split(/\s+/);
      const counts = /ANSWER: (\d+), AUTHORITY: (\d+), ADDITIONAL: (\d+)/.exec(stdout);
      const section = /;; ANSWER SECTION:\n([\s\S]*?)\n\n/.exec(stdout)?.[1] ?? '';
      const answer = section
        .split('\n')
        .filter((l) => l && !l.startsWith(';'))
        .map((l) => l.trim().split(/\s+/).join(' '))
        .sort();
      resolve({
        status,
        flags,
        answer,
        counts: { answer: Number(counts?.[1] ?? 0), authority: Number(counts?.[2] ?? 0), additional: Number(counts?.[3] ?? 0) },
        size: Number(/MSG SIZE\s+rcvd: (\d+)/.exec(stdout)?.[1] ?? 0),
      });
    });
  });
}

export interface DnsperfResult {
  sent: number;
  completed: number;
  lost: number;
  qps: number;
  runTime: number;
  rcodes: Record<string, number>;
  responseSize: number;
  latency: { avg: number; max: number };
  output: string;
}

export function parseDnsperf(output: string): DnsperfResult {
  const num = (re: RegExp) => {
    const m = re.exec(output);
    if (!m) throw new Error(`dnsperf output lacks ${re.source}:\n${output}`);
    return Number(m[1]);
  };
  const rcodes: Record<string, number> = {};
  const codes = /Response codes:\s+(.*)/.exec(output)?.[1] ?? '';
  for (const m of codes.matchAll(/(\w+) (\d+) \(/g)) rcodes[m[1]!] = Number(m[2]);
  return {
    sent: num(/Queries sent:\s+(\d+)/),
    completed: num(/Queries completed:\s+(\d+)/),
    lost: num(/Queries lost:\s+(\d+)/),
    qps: num(/Queries per second:\s+([\d.]+)/),
    runTime: num(/Run time \(s\):\s+([\d.]+)/),
    rcodes,
    responseSize: Number(/response (\d+)/.exec(output)?.[1] ?? 0),
    latency: { avg: Number(/Average Latency \(s\):\s+([\d.]+)/.exec(output)?.[1] ?? 0), max: Number(/max ([\d.]+)\)/.exec(output)?.[1] ?? 0) },
    output,
  };
}

// dnsperf runs under bash, which reports its CPU time (`times`: the shell's, then its waited-for
// children's) after it exits; SIGTERM or SIGINT to bash ends dnsperf too.
const DNSPERF_WRAPPER = 'dnsperf "$@" & pid=$!; trap \'kill $pid 2>/dev/null\' TERM INT; wait $pid; rc=$?; wait $pid 2>/dev/null; times >&2; exit $rc';

/**
 * Runs dnsperf with `args` to completion. `onChild` gets the process (so a signal handler can end
 * it); `afterExit` runs synchronously in the exit handler, before anything else can, so a CPU
 * reading taken there ends as close to the last query as possible. The result's `clientCpuSeconds`
 * is dnsperf's own user + system time.
 */
export function runDnsperf(
  args: string[],
  onChild: (child: ChildProcess | null) => void,
  afterExit?: () => void,
): Promise<DnsperfResult & { clientCpuSeconds: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', DNSPERF_WRAPPER, 'dnsperf', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    onChild(child);
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', () => afterExit?.());
    child.on('error', reject);
    child.on('close', (code, signal) => {
      onChild(null);
      if (code !== 0) return reject(new Error(`dnsperf exited with ${code ?? signal}:\n${out}\n${err}`));
      const t = [...err.matchAll(/(\d+)m([\d.]+)s (\d+)m([\d.]+)s/g)].at(-1);
      const clientCpuSeconds = t ? Number(t[1]) * 60 + Number(t[2]) + Number(t[3]) * 60 + Number(t[4]) : NaN;
      try {
        resolve({ ...parseDnsperf(`${out}\n${err}`), clientCpuSeconds });
      } catch (e) {
        reject(e);
      }
    });
  });
}

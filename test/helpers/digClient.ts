// BIND's dig and Knot's kdig as clients of the server under test, run asynchronously (the server
// lives in the test process: a synchronous spawn would block it), their output parsed into what
// the tables compare: status, flags, the three sections as normalised presentation lines, EDNS.
import { runToolAsync as runAsync } from './dnsTools.js';

export { runAsync };

export type DigTool = 'dig' | 'kdig';

export interface DigResult {
  status: string | null;
  flags: string[];
  answer: string[];
  authority: string[];
  additional: string[];
  /** The UDP size of the response's OPT record, null without one. */
  ednsUdp: number | null;
  /** Which transport the shown answer came over, when the tool says. */
  transport: 'UDP' | 'TCP' | null;
  output: string;
  exitCode: number | null;
}

/** One record line with its whitespace collapsed: "www.example.com. 300 IN A 192.0.2.10". */
export const normalise = (line: string) => line.trim().split(/\s+/).join(' ');

/** Parses dig (`+comments` with sections) or kdig (default) output. */
export function parseDigOutput(output: string): Omit<DigResult, 'output' | 'exitCode'> {
  let section: 'answer' | 'authority' | 'additional' | null = null;
  const result: Omit<DigResult, 'output' | 'exitCode'> = { status: null, flags: [], answer: [], authority: [], additional: [], ednsUdp: null, transport: null };
  for (const line of output.split('\n')) {
    const status = /status: (\w+)/.exec(line);
    if (status) {
      // dig prints one header per answer received (after retries the last counts).
      result.status = status[1]!;
      result.answer = [];
      result.authority = [];
      result.additional = [];
      result.ednsUdp = null;
      continue;
    }
    const flags = /^;; [Ff]lags: ([^;]*);/.exec(line);
    if (flags) {
      result.flags = flags[1]!.trim().split(/\s+/).filter(Boolean);
      continue;
    }
    const udp = /(?:; EDNS: version: \d+, flags:[^;]*; udp: (\d+))|(?:UDP size: (\d+) B)/.exec(line);
    if (udp) {
      result.ednsUdp = Number(udp[1] ?? udp[2]);
      continue;
    }
    const server = /(?:SERVER: .*\((UDP|TCP)\))|(?:From .*\((UDP|TCP)\))/.exec(line);
    if (server) result.transport = (server[1] ?? server[2]) as 'UDP' | 'TCP';
    const heading = /^;; (ANSWER|AUTHORITY|ADDITIONAL|QUESTION|OPT PSEUDO|EDNS PSEUDO)/.exec(line);
    if (heading) {
      section = heading[1] === 'ANSWER' ? 'answer' : heading[1] === 'AUTHORITY' ? 'authority' : heading[1] === 'ADDITIONAL' ? 'additional' : null;
      continue;
    }
    if (line.trim() === '') continue;
    if (line.startsWith(';')) continue;
    if (section) result[section].push(normalise(line));
  }
  return result;
}

export async function digQuery(tool: string, port: number, name: string, type: string, extra: string[] = [], host = '127.0.0.1'): Promise<DigResult> {
  const kdig = tool.endsWith('kdig');
  const args = [
    `@${host}`,
    '-p',
    String(port),
    name,
    type,
    '+norec',
    '+time=2',
    '+tries=1',
    ...(kdig ? [] : ['+noall', '+answer', '+authority', '+additional', '+comments', '+stats']),
    ...extra,
  ];
  // kdig takes +retry, not +tries.
  if (kdig) args.splice(args.indexOf('+tries=1'), 1, '+retry=0');
  const run = await runAsync(tool, args);
  return { ...parseDigOutput(run.stdout), output: run.stdout + run.stderr, exitCode: run.code };
}

// CPU time of a process and all its descendants, from /proc (Linux): utime + stime of every
// process in the tree (each process's figure covers all its threads) plus cutime + cstime (its
// children that exited and were reaped). For servers that fork (NSD's server and xfrd children)
// or run threads (Knot, PowerDNS, Node's libuv pool); and the tree itself, for summing other
// per-process figures (bench/lib/procMemory.ts).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

let ticksPerSecond: number | undefined;

/** sysconf(_SC_CLK_TCK): the unit of the /proc/<pid>/stat times (100 on Linux). */
export function clockTicksPerSecond(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

interface ProcStat {
  ppid: number;
  ticks: number;
}

function readStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may contain spaces: split after the last ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state), so field k is rest[k - 3].
  const field = (k: number) => Number(rest[k - 3]);
  return { ppid: field(4), ticks: field(14) + field(15) + field(16) + field(17) };
}

/** The stat of `pids` and all their descendants, each once, read in one pass over /proc. */
function treeStats(pids: readonly number[]): Map<number, ProcStat> {
  const stats = new Map<number, ProcStat>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat) stats.set(Number(entry), stat);
  }
  const children = new Map<number, number[]>();
  for (const [pid, { ppid }] of stats) {
    let list = children.get(ppid);
    if (!list) children.set(ppid, (list = []));
    list.push(pid);
  }
  const tree = new Map<number, ProcStat>();
  const queue = [...pids];
  while (queue.length > 0) {
    const pid = queue.pop()!;
    if (tree.has(pid)) continue;
    const stat = stats.get(pid);
    if (stat) tree.set(pid, stat);
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** `pids` that still run and all their descendants (processes; threads are not listed). */
export function processTree(pids: readonly number[]): number[] {
  return [...treeStats(pids).keys()];
}

/** CPU seconds used so far by `pids` and all their descendants (each counted once). */
export function treeCpuSeconds(pids: readonly number[]): number {
  let ticks = 0;
  for (const { ticks: t } of treeStats(pids).values()) ticks += t;
  return ticks / clockTicksPerSecond();
}

/** CPU seconds used so far by one process (all its threads), 0 when it is gone. */
export function processCpuSeconds(pid: number): number {
  return (readStat(pid)?.ticks ?? 0) / clockTicksPerSecond();
}

/** The processes named `name` whose parent is not (a PostgreSQL server's postmaster, say). */
export function topProcessesNamed(name: string): number[] {
  const named = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let text: string;
    try {
      text = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    if (text.slice(text.indexOf('(') + 1, text.lastIndexOf(')')) !== name) continue;
    named.set(Number(entry), Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]));
  }
  return [...named].filter(([, ppid]) => !named.has(ppid)).map(([pid]) => pid);
}

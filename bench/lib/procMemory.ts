// Memory of a process, or of a process and its descendants, from /proc (Linux). RSS counts every
// resident page a process maps, so the RSS of processes that share pages (NSD's processes fork from
// one another, and a forked copy shares its parent's pages until either writes them) overlap and
// do not add up; PSS divides each shared page among the processes that map it, so PSS adds up.
import fs from 'node:fs';
import { dig } from './dnsTools.js';
import { processTree } from './procCpu.js';
import type { ServerProcess } from './referenceServers.js';

/** Bytes. */
export interface ProcessMemory {
  /** VmRSS: resident now. */
  rss: number;
  /** VmHWM: the most resident at any time so far. */
  peakRss: number;
  /** Pss from smaps_rollup: resident, shared pages divided among their sharers. */
  pss: number;
}

const kibField = (text: string, field: string): number => {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  if (!m) throw new Error(`no ${field} in /proc`);
  return Number(m[1]) * 1024;
};

/** One process's memory (`self` for the caller's own); null when it is gone. */
export function processMemory(pid: number | 'self'): ProcessMemory | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    return { rss: kibField(status, 'VmRSS'), peakRss: kibField(status, 'VmHWM'), pss: kibField(rollup, 'Pss') };
  } catch {
    return null;
  }
}

export interface TreeMemory {
  processes: number;
  /** The largest VmRSS of one process in the tree (RSS of sharing processes overlap). */
  largestRss: number;
  /** The largest VmHWM of one process in the tree. */
  largestPeakRss: number;
  /** Pss summed over the tree. */
  pss: number;
  /** Each process's figures, the root first. */
  members: (ProcessMemory & { pid: number })[];
}

/** The memory of `pid` and all its descendants. */
export function treeMemory(pid: number): TreeMemory {
  const total: TreeMemory = { processes: 0, largestRss: 0, largestPeakRss: 0, pss: 0, members: [] };
  for (const member of processTree([pid]).sort((a, b) => (a === pid ? -1 : b === pid ? 1 : a - b))) {
    const m = processMemory(member);
    if (!m) continue;
    total.processes++;
    total.members.push({ pid: member, ...m });
    total.largestRss = Math.max(total.largestRss, m.rss);
    total.largestPeakRss = Math.max(total.largestPeakRss, m.peakRss);
    total.pss += m.pss;
  }
  return total;
}

/** Waits until `server` gives `name` `type` an answer that `ok` accepts. */
async function answers(server: ServerProcess, name: string, type: string, ok: (answer: string[]) => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (server.child.exitCode !== null || server.child.signalCode !== null) throw new Error(`${server.label} exited`);
    const got = await dig('127.0.0.1', server.port, name, type);
    if (got?.status === 'NOERROR' && ok(got.answer)) return;
    if (Date.now() > deadline) throw new Error(`${server.label} gave no answer for ${name} ${type} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// The figures are taken a little after the first answer, so that what a server does right after
// loading (freeing what it parsed with, forking its server processes) is over; checked: Knot's and
// NSD's figures no longer change from the first answer to 12 s after.
export const SETTLE_MS = 2000;

/** A server's memory once it answers `name` `type` (as `ok` accepts) and SETTLE_MS more; load s counted from `started` (performance.now()). */
export async function memoryOnceLoaded(
  server: ServerProcess,
  started: number,
  name: string,
  type: string,
  ok: (answer: string[]) => boolean,
): Promise<{ memory: TreeMemory; loadSeconds: number }> {
  await answers(server, name, type, ok, 600_000);
  const loadSeconds = (performance.now() - started) / 1000;
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  return { memory: treeMemory(server.pid), loadSeconds };
}

/**
 * A full collection that hands emptied pages back to the system (needs --expose-gc). On Node 20,
 * V8 returns them at the second of two collections; V8 13 (Node 24) keeps them pooled unless the
 * collection is a last-resort one, which Node 20's gc() does not know and skips.
 */
export function collectAll(): void {
  const gc = globalThis.gc as ((options?: object) => void) | undefined;
  if (!gc) return;
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  gc();
  gc();
}

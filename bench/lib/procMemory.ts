// Memory of a process, or of a process and its descendants, from /proc (Linux). RSS counts every
// resident page a process maps, so the RSS of processes that share pages (NSD's processes fork from
// one another, and a forked copy shares its parent's pages until either writes them) overlap and
// do not add up; PSS divides each shared page among the processes that map it, so PSS adds up.
import fs from 'node:fs';
import { processTree } from './procCpu.js';

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

// What /proc says about a process id. A killed process stays a zombie until its parent (or init)
// reaps it: it still has a pid, kill(pid, 0) succeeds and PostgreSQL's lock-file check takes it
// for alive, but its cmdline is empty. Both facts matter, so both are read here.
import fs from 'node:fs/promises';

export type ProcessState = { kind: 'gone' } | { kind: 'zombie' } | { kind: 'running'; startTime: string };

/** `/proc/<pid>/stat`: the state letter and the start time (clock ticks since boot, field 22). */
export async function processState(pid: number): Promise<ProcessState> {
  let stat: string;
  try {
    stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    if (process.platform === 'linux') return { kind: 'gone' };
    // Without /proc: alive as far as the kernel lets us tell.
    try {
      process.kill(pid, 0);
      return { kind: 'running', startTime: '' };
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EPERM' ? { kind: 'running', startTime: '' } : { kind: 'gone' };
    }
  }
  // The command name (field 2) is in parentheses and may itself hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  if (state === 'Z' || state === 'X' || state === 'x') return { kind: 'zombie' };
  return { kind: 'running', startTime: fields[19] ?? '' };
}

export async function commandLine(pid: number): Promise<string> {
  return fs.readFile(`/proc/${pid}/cmdline`, 'utf8').then(
    (s) => s.replaceAll('\0', ' ').trim(),
    () => '',
  );
}

/** Waits until the process is gone (reaped, not merely dead); false if it is still there at the deadline. */
export async function waitUntilGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if ((await processState(pid)).kind === 'gone') return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

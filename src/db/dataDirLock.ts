// One service per DATA_DIR while it runs the embedded PostgreSQL: a second start would take the
// first one's postmaster for an orphan of a crashed run and stop it. The lock is a file holding
// the owner's pid and start time; a lock whose owner is gone (kill -9, a reboot, the pid reused
// by another program) is stale and taken over.
import fs from 'node:fs/promises';
import path from 'node:path';
import { processState } from './processState.js';

export const LOCK_FILE = 'managed-dns.lock';

export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `DATA_DIR ${dataDir} is in use by another managed-dns process (pid ${pid}), which runs its embedded PostgreSQL. ` +
        'Stop that process first, or give this one its own DATA_DIR (or a DATABASE_URL).',
    );
    this.name = 'DataDirInUseError';
  }
}

interface LockContent {
  pid: number;
  /** /proc start time of the owner: tells the owner from a later process given the same pid. */
  started: string;
}

export interface DataDirLock {
  release(): Promise<void>;
}

async function ownerAlive(owner: LockContent): Promise<boolean> {
  if (!Number.isInteger(owner.pid) || owner.pid <= 0) return false;
  const state = await processState(owner.pid);
  return state.kind === 'running' && (owner.started === '' || state.startTime === '' || state.startTime === owner.started);
}

export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  await fs.mkdir(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE);
  const self = await processState(process.pid);
  const mine: LockContent = { pid: process.pid, started: self.kind === 'running' ? self.startTime : '' };
  for (let attempt = 0; ; attempt++) {
    try {
      // O_EXCL: of two processes starting together, exactly one creates the file.
      await fs.writeFile(file, `${JSON.stringify(mine)}\n`, { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw err;
    }
    let owner: LockContent;
    try {
      owner = JSON.parse(await fs.readFile(file, 'utf8')) as LockContent;
    } catch {
      // Unreadable or half-written: a writer that died between create and write, or one that is
      // writing right now; give it a moment before calling the lock stale.
      await new Promise((r) => setTimeout(r, 200));
      owner = await fs.readFile(file, 'utf8').then(
        (t) => JSON.parse(t) as LockContent,
        () => ({ pid: 0, started: '' }),
      );
    }
    if (await ownerAlive(owner)) throw new DataDirInUseError(dataDir, owner.pid);
    await fs.rm(file, { force: true });
  }
  return {
    release: async () => {
      const current = await fs.readFile(file, 'utf8').catch(() => '');
      if (current.includes(`"pid":${process.pid},`)) await fs.rm(file, { force: true });
    },
  };
}

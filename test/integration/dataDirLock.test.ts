// DATA_DIR's lock, against real processes: a live owner refuses, a dead one (kill -9) or a pid
// now used by another program does not.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DataDirInUseError, LOCK_FILE, lockDataDir } from '../../src/db/dataDirLock.js';
import { processState } from '../../src/db/processState.js';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mdns-lock-'));
});
afterEach(() => fs.rm(dir, { recursive: true, force: true }));

/** A real other process, and the lock content it would have written. */
async function otherProcess() {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  await new Promise((r) => child.once('spawn', r));
  const state = await processState(child.pid!);
  if (state.kind !== 'running') throw new Error('sleep is not running');
  return { child, content: { pid: child.pid!, started: state.startTime } };
}

const writeLock = (content: object) => fs.writeFile(path.join(dir, LOCK_FILE), JSON.stringify(content));

it('refuses while the owner runs, and names it', async () => {
  const { child, content } = await otherProcess();
  try {
    await writeLock(content);
    const refused = await lockDataDir(dir).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DataDirInUseError);
    expect((refused as Error).message).toContain(`pid ${content.pid}`);
    // Touched nothing: the owner's lock is as it was.
    expect(JSON.parse(await fs.readFile(path.join(dir, LOCK_FILE), 'utf8'))).toEqual(content);
  } finally {
    child.kill('SIGKILL');
  }
});

it('takes over the lock of an owner killed with kill -9', async () => {
  const { child, content } = await otherProcess();
  await writeLock(content);
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  const lock = await lockDataDir(dir);
  expect(JSON.parse(await fs.readFile(path.join(dir, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
  await lock.release();
  await expect(fs.stat(path.join(dir, LOCK_FILE))).rejects.toThrow();
});

it('takes over a lock whose pid now belongs to another program (a different start time)', async () => {
  const { child, content } = await otherProcess();
  try {
    await writeLock({ ...content, started: String(Number(content.started) - 1000) });
    const lock = await lockDataDir(dir);
    await lock.release();
  } finally {
    child.kill('SIGKILL');
  }
});

it('lets exactly one of two lockers in', async () => {
  const results = await Promise.allSettled([lockDataDir(dir), lockDataDir(dir)]);
  expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
  expect(rejected.reason).toBeInstanceOf(DataDirInUseError);
  for (const r of results) if (r.status === 'fulfilled') await r.value.release();
});

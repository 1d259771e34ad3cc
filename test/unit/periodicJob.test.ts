// The one helper behind every background loop, driven by a ManualClock: time moves only when the
// test says so, so each rule (interval, jitter, no overlap, logged failures, stop) is exact.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { JobMonitor } from '../../src/jobs/jobMonitor.js';
import { PeriodicJob, type PeriodicJobOptions } from '../../src/jobs/periodicJob.js';

/** Lets the promise callbacks of a run (and the scheduling after it) happen. */
const settle = () => new Promise((r) => setImmediate(r));

function recordingLogger() {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const at = (level: string) => (fields: Record<string, unknown>, message: string) => lines.push({ level, fields, message });
  return { lines, logger: { warn: at('warn'), error: at('error') } as unknown as PeriodicJobOptions['logger'] };
}

function job(clock: ManualClock, options: Partial<PeriodicJobOptions> & Pick<PeriodicJobOptions, 'run'>) {
  return new PeriodicJob({ name: 'test job', intervalMs: 1000, logger: recordingLogger().logger, scheduler: clock, monitor: new JobMonitor(), ...options });
}

describe('PeriodicJob', () => {
  it('runs one interval after start, then every interval', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00Z');
    const runs: string[] = [];
    const j = job(clock, { run: async () => runs.push(clock.now().toISOString()) });
    j.start();
    clock.advance(999);
    await settle();
    expect(runs).toEqual([]);
    for (const step of [1, 1000, 1000]) {
      clock.advance(step);
      await settle();
    }
    expect(runs).toEqual(['2026-01-01T00:00:01.000Z', '2026-01-01T00:00:02.000Z', '2026-01-01T00:00:03.000Z']);
    await j.stop();
  });

  it('never runs twice at once: the next wait starts when a slow run ends', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00Z');
    let release!: () => void;
    let started = 0;
    const j = job(clock, {
      run: () => {
        started++;
        return new Promise<void>((r) => (release = r));
      },
    });
    j.start();
    clock.advance(1000);
    await settle();
    clock.advance(5000);
    await settle();
    expect(started).toBe(1);
    // Nothing scheduled but the run's bound.
    expect(clock.pending).toBe(1);
    release();
    await settle();
    clock.advance(999);
    await settle();
    expect(started).toBe(1);
    clock.advance(1);
    await settle();
    expect(started).toBe(2);
    release();
    await j.stop();
  });

  it('logs a failed run with its name and keeps the schedule', async () => {
    const clock = new ManualClock();
    const { lines, logger } = recordingLogger();
    let calls = 0;
    const j = job(clock, {
      logger,
      failureLevel: 'warn',
      run: async () => {
        calls++;
        if (calls === 1) throw new Error('database away');
      },
    });
    j.start();
    clock.advance(1000);
    await settle();
    clock.advance(1000);
    await settle();
    expect(calls).toBe(2);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'warn', message: 'test job failed', fields: { job: 'test job' } });
    expect((lines[0]!.fields.err as Error).message).toBe('database away');
    await j.stop();
  });

  it('spreads each wait by the jitter, both ways', async () => {
    for (const [random, expected] of [
      [0, 900],
      [0.5, 1000],
      [0.9999, 1100],
    ] as const) {
      const clock = new ManualClock();
      let runs = 0;
      const j = job(clock, { jitter: 0.1, random: () => random, run: async () => runs++ });
      j.start();
      clock.advance(expected - 1);
      await settle();
      expect(runs, `random ${random}`).toBe(0);
      clock.advance(1);
      await settle();
      expect(runs, `random ${random}`).toBe(1);
      await j.stop();
    }
  });

  it('stops: nothing runs afterwards, and stop waits for the run in flight', async () => {
    const clock = new ManualClock();
    let release!: () => void;
    let finished = false;
    let runs = 0;
    const j = job(clock, {
      run: async () => {
        runs++;
        await new Promise<void>((r) => (release = r));
        finished = true;
      },
    });
    j.start();
    clock.advance(1000);
    await settle();
    let stopped = false;
    const stopping = j.stop().then(() => (stopped = true));
    await settle();
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(finished).toBe(true);
    clock.advance(10_000);
    await settle();
    expect(runs).toBe(1);
    expect(clock.pending).toBe(0);
    expect(j.running).toBe(false);
  });

  it('refuses a non-positive interval or run bound and a jitter outside [0, 1)', () => {
    const clock = new ManualClock();
    expect(() => job(clock, { intervalMs: 0, run: async () => {} })).toThrow(RangeError);
    expect(() => job(clock, { jitter: 1, run: async () => {} })).toThrow(RangeError);
    expect(() => job(clock, { runBoundMs: 0, run: async () => {} })).toThrow(RangeError);
  });

  it('abandons a run that overruns its bound: aborted, logged, shown stalled, and the loop goes on until a run succeeds again', async () => {
    const clock = new ManualClock();
    const monitor = new JobMonitor();
    const { lines, logger } = recordingLogger();
    const signals: AbortSignal[] = [];
    let hang = true;
    const j = job(clock, {
      logger,
      monitor,
      runBoundMs: 3000,
      run: (signal) => {
        signals.push(signal);
        return hang ? new Promise(() => {}) : Promise.resolve();
      },
    });
    j.start();
    clock.advance(1000);
    await settle();
    expect(signals).toHaveLength(1);
    clock.advance(2999);
    await settle();
    expect(signals[0]!.aborted).toBe(false);
    expect(monitor.snapshot()['test job']!.state).toBe('ok');
    clock.advance(1);
    await settle();
    expect(signals[0]!.aborted).toBe(true);
    expect(lines).toEqual([expect.objectContaining({ level: 'error', message: 'test job overran its bound of 3 s; abandoned, the next run is scheduled' })]);
    expect(monitor.snapshot()['test job']).toMatchObject({ state: 'stalled', lastSuccess: null, runs: { success: 0, failure: 0, overrun: 1 } });

    // The next run comes one interval later, although the first never settled.
    hang = false;
    clock.advance(1000);
    await settle();
    expect(signals).toHaveLength(2);
    expect(monitor.snapshot()['test job']).toMatchObject({ state: 'ok', lastSuccess: expect.any(Number), runs: { success: 1, overrun: 1 } });
    await j.stop();
    expect(monitor.snapshot()).toEqual({});
  });

  it('logs the end of an abandoned run, and a stop waits for it', async () => {
    const clock = new ManualClock();
    const { lines, logger } = recordingLogger();
    let finish = () => {};
    const j = job(clock, { logger, monitor: new JobMonitor(), runBoundMs: 3000, run: () => new Promise<void>((resolve) => (finish = resolve)) });
    j.start();
    clock.advance(1000);
    await settle();
    clock.advance(3000);
    await settle();
    let stopped = false;
    const stopping = j.stop().then(() => (stopped = true));
    await settle();
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(lines.map((l) => l.message)).toEqual([
      'test job overran its bound of 3 s; abandoned, the next run is scheduled',
      'test job: the abandoned run ended',
    ]);
  });

  it('counts a job failing after three failed runs in a row, ok again after one success', async () => {
    const clock = new ManualClock();
    const monitor = new JobMonitor();
    let fail = true;
    const j = job(clock, {
      monitor,
      run: async () => {
        if (fail) throw new Error('database away');
      },
    });
    j.start();
    const states: string[] = [];
    for (let i = 0; i < 4; i++) {
      if (i === 3) fail = false;
      clock.advance(1000);
      await settle();
      states.push(monitor.snapshot()['test job']!.state);
    }
    expect(states).toEqual(['ok', 'ok', 'failing', 'ok']);
    await j.stop();
  });
});

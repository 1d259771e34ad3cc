/** Time source. Time-based rules take a Clock so tests can move time instead of waiting. */
export interface Clock {
  now(): Date;
}

/** Runs a callback after a delay; the returned function cancels it. Periodic jobs wait on one. */
export interface Scheduler {
  schedule(delayMs: number, callback: () => void): () => void;
}

export const systemClock: Clock = { now: () => new Date() };

/** Real timers that never keep the process alive by themselves. */
export const systemScheduler: Scheduler = {
  schedule(delayMs, callback) {
    const timer = setTimeout(callback, delayMs);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

/**
 * A clock tests set by hand; starts at the given instant. As a Scheduler, its callbacks run when
 * `advance` moves time past them, in order of their due time.
 */
export class ManualClock implements Clock, Scheduler {
  private current: number;
  private readonly due: { at: number; seq: number; callback: () => void }[] = [];
  private seq = 0;
  constructor(start: Date | string = new Date()) {
    this.current = new Date(start).getTime();
  }
  now() {
    return new Date(this.current);
  }
  set(at: Date | string) {
    this.current = new Date(at).getTime();
  }
  advance(ms: number) {
    const target = this.current + ms;
    for (;;) {
      this.due.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.due[0];
      if (!next || next.at > target) break;
      this.due.shift();
      this.current = Math.max(this.current, next.at);
      next.callback();
    }
    this.current = target;
  }
  schedule(delayMs: number, callback: () => void) {
    const entry = { at: this.current + Math.max(0, delayMs), seq: this.seq++, callback };
    this.due.push(entry);
    return () => {
      const i = this.due.indexOf(entry);
      if (i >= 0) this.due.splice(i, 1);
    };
  }
  /** Callbacks waiting for time to move. */
  get pending(): number {
    return this.due.length;
  }
}

/** Time source. Time-based rules take a Clock so tests can move time instead of waiting. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests set by hand; starts at the given instant. */
export class ManualClock implements Clock {
  private current: number;
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
    this.current += ms;
  }
}

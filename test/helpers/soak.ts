// What the concurrency soak (test/integration/concurrencySoak.test.ts) needs besides the service:
// a seeded PRNG, so that every client's sequence of choices follows from the printed seed, and a
// log of every request it made (route template, status, problem code, time), kept so that a
// failure names the requests and the table of the mix can be printed.
import { Writable } from 'node:stream';
import { mulberry32 } from './seededRandom.js';

export class Rng {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  float = () => this.next();
  int = (lo: number, hiExclusive: number) => lo + Math.floor(this.next() * (hiExclusive - lo));
  chance = (p: number) => this.next() < p;
  pick = <T>(items: readonly T[]): T => items[Math.floor(this.next() * items.length)]!;
  /** One key of `weights`, each as likely as its weight. */
  weighted = <K extends string>(weights: Partial<Record<K, number>>): K => {
    const entries = Object.entries(weights) as [K, number][];
    let r = this.next() * entries.reduce((s, [, w]) => s + w, 0);
    for (const [k, w] of entries) {
      r -= w;
      if (r < 0) return k;
    }
    return entries[entries.length - 1]![0];
  };
}

export interface LoggedRequest {
  client: string;
  /** "POST /zones/{zone}/records": the route as declared, so that the mix groups by endpoint. */
  route: string;
  method: string;
  path: string;
  /** The HTTP status, 0 when no answer came (timeout, connection reset). */
  status: number;
  /** The problem's catalogue code, the dyndns2 answer word for /nic/update, or null. */
  code: string | null;
  ms: number;
  body: string;
  requestId: string | null;
}

export class RequestLog {
  readonly entries: LoggedRequest[] = [];

  add(entry: LoggedRequest) {
    this.entries.push(entry);
  }

  /** One row per route: requests, each status/code seen with its count, slowest answer. */
  mixTable(): { route: string; n: number; outcomes: string; max_ms: number }[] {
    const rows = new Map<string, { n: number; outcomes: Map<string, number>; max: number }>();
    for (const e of this.entries) {
      const row = rows.get(e.route) ?? { n: 0, outcomes: new Map(), max: 0 };
      row.n += 1;
      const key = e.code ? `${e.status} ${e.code}` : String(e.status);
      row.outcomes.set(key, (row.outcomes.get(key) ?? 0) + 1);
      row.max = Math.max(row.max, e.ms);
      rows.set(e.route, row);
    }
    return [...rows.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([route, r]) => ({
        route,
        n: r.n,
        outcomes: [...r.outcomes.entries()]
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([k, c]) => `${k}×${c}`)
          .join(' '),
        max_ms: Math.round(r.max),
      }));
  }
}

/** A pino destination that keeps each JSON line (the service's log) for the test to read. */
export class LogCapture extends Writable {
  readonly lines: any[] = [];
  private partial = '';

  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: (err?: Error | null) => void) {
    const text = this.partial + chunk.toString();
    const parts = text.split('\n');
    this.partial = parts.pop() ?? '';
    for (const line of parts) {
      if (!line.trim()) continue;
      try {
        this.lines.push(JSON.parse(line));
      } catch {
        this.lines.push({ msg: line });
      }
    }
    done();
  }

  /** The logged error behind a request: its message and PostgreSQL code, if the log has one. */
  errorOf(requestId: string | null): string | null {
    if (!requestId) return null;
    const line = this.lines.find((l) => l.request_id === requestId && l.err);
    if (!line) return null;
    const err = line.err as { code?: string; message?: string; type?: string };
    return `${err.code ? `[${err.code}] ` : ''}${(err.message ?? err.type ?? '').split('\n')[0]}`;
  }
}

/**
 * Lets a group of clients start each request at the same moment (the issue's reproduction fires
 * its requests together): each `arrive`s and waits for the others; one that stops `leave`s.
 */
export class Barrier {
  private waiting: (() => void)[] = [];
  private parties = 0;

  join(): void {
    this.parties += 1;
  }

  arrive(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.release();
    });
  }

  leave(): void {
    this.parties -= 1;
    this.release();
  }

  private release() {
    if (this.waiting.length === 0 || this.waiting.length < this.parties) return;
    const released = this.waiting;
    this.waiting = [];
    for (const resolve of released) resolve();
  }
}

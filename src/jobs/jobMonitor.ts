// What every periodic job of this thread last did, for /healthz and /metrics (docs/operations.md
// "Background jobs"). A loop can stop for minutes while the process answers /healthz and logs
// nothing: a loop's health is now its runs' outcomes, not merely that the process is alive.
// One monitor per thread: a process's roles' thread reports its own through the counters message.

/** Runs that failed one after another before the job counts as failing (a single failed poll is a warning). */
const FAILURES_BEFORE_DEGRADED = 3;

export type JobState = 'ok' | 'failing' | 'stalled';

/** One job as /healthz and /metrics show it. Times are Unix seconds (wall clock), null for never. */
export interface JobStatus {
  state: JobState;
  lastSuccess: number | null;
  lastFailure: number | null;
  /** Runs since start by outcome: success, failure, overrun (abandoned at its bound). */
  runs: { success: number; failure: number; overrun: number };
}

interface Entry {
  name: string;
  status: JobStatus;
  consecutiveFailures: number;
  /** The last run overran its bound; cleared by the next success. */
  overran: boolean;
}

export type RunOutcome = 'success' | 'failure' | 'overrun';

export class JobMonitor {
  private readonly entries = new Set<Entry>();

  /** A job's handle; `forget` when it stops (a stopped job is no loop that stalled). */
  register(name: string): { record(outcome: RunOutcome): void; forget(): void } {
    const entry: Entry = {
      name,
      status: { state: 'ok', lastSuccess: null, lastFailure: null, runs: { success: 0, failure: 0, overrun: 0 } },
      consecutiveFailures: 0,
      overran: false,
    };
    this.entries.add(entry);
    return {
      record: (outcome) => {
        const now = Date.now() / 1000;
        entry.status.runs[outcome]++;
        if (outcome === 'success') {
          entry.status.lastSuccess = now;
          entry.consecutiveFailures = 0;
          entry.overran = false;
        } else {
          entry.status.lastFailure = now;
          entry.consecutiveFailures++;
          if (outcome === 'overrun') entry.overran = true;
        }
        entry.status.state = entry.overran ? 'stalled' : entry.consecutiveFailures >= FAILURES_BEFORE_DEGRADED ? 'failing' : 'ok';
      },
      forget: () => {
        this.entries.delete(entry);
      },
    };
  }

  /**
   * Every job by name. Two running jobs of one name (two services in one test process) show as
   * one: the worse state, the later times, the summed runs.
   */
  snapshot(): Record<string, JobStatus> {
    const out: Record<string, JobStatus> = {};
    const rank: Record<JobState, number> = { ok: 0, failing: 1, stalled: 2 };
    const later = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));
    for (const { name, status } of this.entries) {
      const seen = out[name];
      out[name] = !seen
        ? { ...status, runs: { ...status.runs } }
        : {
            state: rank[status.state] > rank[seen.state] ? status.state : seen.state,
            lastSuccess: later(seen.lastSuccess, status.lastSuccess),
            lastFailure: later(seen.lastFailure, status.lastFailure),
            runs: {
              success: seen.runs.success + status.runs.success,
              failure: seen.runs.failure + status.runs.failure,
              overrun: seen.runs.overrun + status.runs.overrun,
            },
          };
    }
    return out;
  }
}

/** This thread's jobs. */
export const jobMonitor = new JobMonitor();

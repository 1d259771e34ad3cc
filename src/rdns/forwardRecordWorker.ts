// The worker's part of the forward records of default PTRs (docs/rdns.md "Forward records of
// default PTRs"): a request writes the first chunk of a space's forward records and leaves a job
// row for the rest; this writes the rest, one chunk (one change set, one transaction) after the
// other while jobs are due, and looks for new ones every second. The job rows are in the
// database, so a restart (or a crash mid-chunk, rolled back) resumes where the last chunk ended.
import type { Logger } from '../observability/logger.js';
import { PeriodicJob } from '../jobs/periodicJob.js';
import { type ForwardWorkerDeps, runForwardChunk } from '../services/rdns/forwardRecords.js';

const POLL_MS = 1000;

export class ForwardRecordWorker {
  private stopping = false;
  private readonly job: PeriodicJob;

  constructor(deps: ForwardWorkerDeps, logger: Logger) {
    this.job = new PeriodicJob({
      name: 'forward records of default PTRs',
      intervalMs: POLL_MS,
      jitter: 0.1,
      logger,
      failureLevel: 'warn',
      run: async () => {
        // A refused chunk is stored on its job (retried later); other jobs go on meanwhile.
        while (!this.stopping && (await runForwardChunk(deps)) !== 'idle');
      },
    });
  }

  start(): void {
    this.stopping = false;
    this.job.start();
  }

  /** Ends after the chunk in flight (its transaction commits or rolls back whole). */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.job.stop();
  }
}

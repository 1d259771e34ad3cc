// Preloaded into a service under a bench (BENCH_SERVICE_NODE_ARGS="--import ./bench/lib/loopTrace.mjs"):
// writes to stderr, with wall-clock times, every stall of the main thread's event loop of 20 ms or
// more and every garbage collection of 10 ms or more on it, so that a slow request can be matched
// with what held the thread then. Plain JavaScript: it is loaded before tsx.
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

if (isMainThread) {
  const at = (ms) => new Date(performance.timeOrigin + ms).toISOString().slice(11, 23);
  // The clock of --cpu-prof's samples (microseconds of the monotonic clock) against the wall clock.
  process.stderr.write(`[loopTrace] clock hrtime_us ${process.hrtime.bigint() / 1000n} = ${Date.now()}\n`);
  const TICK = 5;
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    const late = now - last - TICK;
    if (late >= 20) process.stderr.write(`[loopTrace] stall ${late.toFixed(0)} ms ${at(last + TICK)}–${at(now)}\n`);
    last = now;
  }, TICK).unref();
  const kinds = { 1: 'minor', 2: 'major', 4: 'incremental', 8: 'weakcb' };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.duration >= 10)
        process.stderr.write(
          `[loopTrace] gc ${kinds[e.detail?.kind] ?? e.detail?.kind} ${e.duration.toFixed(0)} ms ${at(e.startTime)}–${at(e.startTime + e.duration)}\n`,
        );
    }
  }).observe({ entryTypes: ['gc'] });
}

// Long computations as steps: a generator that yields now and then, so that a process which also
// answers others (API requests, DNS queries) can hand its thread back between the steps — the
// publication build signing a large zone, the nameserver applying a large version.

/** Runs steps to the end without pausing. */
export function finish<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Runs steps, handing the thread back to the event loop every `sliceMs`. */
export async function inTurns<T>(steps: Generator<void, T>, sliceMs = 2): Promise<T> {
  let since = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - since >= sliceMs) {
      await new Promise((resolve) => setImmediate(resolve));
      since = performance.now();
    }
  }
}

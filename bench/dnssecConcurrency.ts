// DNSSEC enable/disable under concurrency (issue 23's figure: 50 concurrent calls on 50 zones,
// none slower than 1 s, none 503). The service runs as `npm start` runs it (all roles, one
// process, the lab's registrar); 50 zones are created first, then the 50 enables are sent at
// once, then the 50 disables, each call timed from send to answer. Rounds repeat that on fresh zones.
//   DATA_DIR-only (embedded PostgreSQL): node --import tsx bench/dnssecConcurrency.ts [zones] [rounds]
import { benchApi, liftRateLimits, startBenchService } from './lib/benchService.js';

const zones = Number(process.argv[2] ?? 50);
const rounds = Number(process.argv[3] ?? 3);

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

const service = await startBenchService();
try {
  await liftRateLimits(service);
  const api = benchApi(service.base, service.tokens.platform);
  for (let round = 1; round <= rounds; round++) {
    const names = Array.from({ length: zones }, (_, i) => `bench-sec-${round}-${i}-${Date.now().toString(36)}.example`);
    for (const name of names) await api('POST', '/zones', { name });
    for (const action of ['enable', 'disable'] as const) {
      const calls = await Promise.all(
        names.map(async (name) => {
          const started = performance.now();
          const r = await fetch(`${service.base}/api/v1/zones/${name}/dnssec/${action}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${service.tokens.platform}`, 'content-type': 'application/json' },
            body: '{}',
          });
          await r.arrayBuffer();
          return { status: r.status, ms: performance.now() - started };
        }),
      );
      const ms = calls.map((c) => c.ms).sort((a, b) => a - b);
      const statuses: Record<number, number> = {};
      for (const c of calls) statuses[c.status] = (statuses[c.status] ?? 0) + 1;
      console.log(
        `round ${round} ${action.padEnd(7)} ${zones} at once: p50 ${quantile(ms, 0.5).toFixed(0)} ms, p99 ${quantile(ms, 0.99).toFixed(0)} ms, max ${ms.at(-1)!.toFixed(0)} ms; statuses ${JSON.stringify(statuses)}`,
      );
    }
  }
} finally {
  await service.stop();
}

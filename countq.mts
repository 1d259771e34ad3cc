// Counts statements and times one build, for a tree given by cwd.
const root = process.cwd();
const { createDb } = await import(`${root}/src/db/knex.ts`);
const { systemClock } = await import(`${root}/src/domain/clock.ts`);
const { publishZone } = await import(`${root}/src/publication/publishZone.ts`);
const { liftRateLimits, startBenchService } = await import(`${root}/bench/lib/benchService.ts`);
const service = await startBenchService({ env: { ROLES: 'api' } });
await liftRateLimits(service);
const api = async (method: string, p: string, body?: unknown) => {
  const r = await fetch(`${service.base}/api/v1${p}`, { method, headers: { authorization: `Bearer ${service.tokens.customers[0]}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${await r.text()}`);
  return r.json() as Promise<any>;
};
const zone = `build-${Date.now().toString(36)}.example`;
const created = await api('POST', '/zones', { name: zone });
await api('POST', `/zones/${zone}/changesets`, { changes: Array.from({ length: 1000 }, (_, i) => ({ op: 'create', record: { name: `q${i}`, type: 'A', data: { address: `10.0.${i >> 8}.${i & 255}` } } })) });
const db = createDb(process.env.DATABASE_URL);
const deps = { db, clock: systemClock, nameservers: ['ns1.lab-dns.test', 'ns2.lab-dns.test'], dnssec: { kek: Buffer.alloc(32), dnskeyTtl: 3600, signingThread: { fromRecords: 5000, heapMb: null } } };
await publishZone(deps, created.id);
const sqls: string[] = [];
db.on('query', (q: any) => sqls.push(q.sql.replace(/\s+/g, ' ')));
const times: number[] = [];
for (let i = 0; i < 3; i++) {
  await api('POST', `/zones/${zone}/records`, { name: `w${i}`, type: 'A', data: { address: '192.0.2.1' } });
  sqls.length = 0;
  const t0 = performance.now();
  await publishZone(deps, created.id);
  times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
console.log('p50', times[100]!.toFixed(2), 'statements', sqls.length);
for (const s of sqls) console.log('  ', s);
await db.destroy();
await service.stop();

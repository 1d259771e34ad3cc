// Reverse DNS through the API (issue 13's figures): listing a /22 of PTRs, a page of 500 at a
// time (1,024 entries: 3 pages), and setting 1,000 PTRs in an IPv6 /64 in one bulk write (one
// change set), timed from request to response, and the bulk write also to `live` (every
// nameserver serves the new serial). The service runs as `npm start` runs it (all roles, the lab
// with its reverse-DNS seed); the /22 is an address space of the benchmarking range (RFC 2544)
// assigned to the first customer, the /64 is that customer's seeded one.
//
// Then the forward records of a large space's default PTRs (docs/rdns.md "Forward records of
// default PTRs"): an IPv4 space of 198.19.0.0/15 (--forward-space 16: a /16, 65,536 A records) naming a platform
// zone, timed from the POST to `forward_records.state` complete and to the nameserver answering
// the last address's A record; a new pattern (every record renamed) to complete; the space's
// removal to its last record gone (read in the database). --forward-space 0 skips it.
//
//   createdb mdns_bench_rdns
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/mdns_bench_rdns node --import tsx bench/rdns.ts [--rounds 5] [--forward-space 16]
//   dropdb mdns_bench_rdns
import { execFile } from 'node:child_process';
import os from 'node:os';
import { parseArgs, promisify } from 'node:util';
import pg from 'pg';
import { liftRateLimits, startBenchService } from './lib/benchService.js';

const run = promisify(execFile);
const { values: opts } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, 'forward-space': { type: 'string', default: '16' } } });
const rounds = Number(opts.rounds);
const forwardSpace = Number(opts['forward-space']);
const url = process.env.DATABASE_URL ?? '';
if (!url || /\/(postgres|test)$/.test(url)) throw new Error('DATABASE_URL must name a scratch database');

const service = await startBenchService({ nodeArgs: process.env.BENCH_SERVICE_NODE_ARGS?.split(' ').filter(Boolean) });
try {
  await liftRateLimits(service);
  const { base, tokens } = service;
  const call = async (token: string, method: string, p: string, body?: unknown) => {
    const start = performance.now();
    const r = await fetch(`${base}/api/v1${p}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (r.status === 204 ? null : await r.json()) as any;
    if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(json)}`);
    return { json, ms: performance.now() - start, link: r.headers.get('link') };
  };
  const customer = tokens.customers[0];
  await call(tokens.platform, 'POST', '/ip-spaces', { cidr: '198.18.0.0/22', ptr_pattern: 'static.{dashed}.bench.example.' });
  await call(tokens.platform, 'POST', '/ips', { cidr: '198.18.0.0/22', tenant_id: tokens.tenants.customers[0], server_name: 'bench.customer-a.example' });

  const pages: number[] = [];
  const bulk: number[] = [];
  const live: number[] = [];
  for (let round = 0; round < rounds; round++) {
    let next: string | null = '/ptr?within=198.18.0.0/22&limit=500';
    let entries = 0;
    while (next) {
      const page = await call(customer, 'GET', next);
      pages.push(page.ms);
      entries += page.json.data.length;
      next = /<[^>]*\/api\/v1([^>]+)>;\s*rel="next"/.exec(page.link ?? '')?.[1] ?? null;
    }
    if (entries !== 1024) throw new Error(`the /22 listed ${entries} entries`);
    const items = Array.from({ length: 1000 }, (_, i) => ({
      ip: `2001:db8:100:a::${(round * 1000 + i + 1).toString(16)}`,
      target: `h${i}.r${round}.customer-a.example.`,
    }));
    const written = await call(customer, 'POST', '/ptr/bulk', { items });
    bulk.push(written.ms);
    // Until the nameserver answers the last PTR of the write (dig, polled every 5 ms).
    const start = performance.now();
    while (!(await served(items[999]!.ip, items[999]!.target))) await new Promise((r) => setTimeout(r, 5));
    live.push(written.ms + performance.now() - start);
  }
  async function served(ip: string, target: string): Promise<boolean> {
    const { stdout } = await run('dig', ['@127.0.0.1', '-p', String(service.dnsPort), '-x', ip, '+short', '+tries=1', '+time=1']);
    return stdout.trim() === target;
  }
  const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;
  const f = (xs: number[]) => `${pct(xs, 50).toFixed(0)} / ${pct(xs, 99).toFixed(0)} / ${Math.max(...xs).toFixed(0)}`;
  console.log(`\n${new Date().toISOString()}, nproc ${os.cpus().length}, ${os.cpus()[0]?.model}, Node ${process.version}; ${rounds} rounds`);
  console.log('| what | n | p50 / p99 / max ms | target |');
  console.log('|---|---|---|---|');
  console.log(`| GET /ptr?within=/22, one page of 500 (3 pages per listing) | ${pages.length} | ${f(pages)} | under 200 ms a page |`);
  console.log(`| POST /ptr/bulk, 1,000 PTRs in a /64, request → 200 | ${bulk.length} | ${f(bulk)} | under 1 s |`);
  console.log(`| the same, request → the nameserver answers the last of them (dig -x) | ${live.length} | ${f(live)} | |`);
  if (forwardSpace) await forwardRecords(forwardSpace);

  async function forwardRecords(length: number) {
    const sql = new pg.Pool({ connectionString: url, max: 1 });
    try {
      const zone = 'bench-forward.example';
      await call(tokens.platform, 'POST', '/zones', { name: zone });
      const cidr = `198.19.0.0/${length}`;
      const size = 2 ** (32 - length);
      const last = `198.19.${(size - 1) >> 8}.${(size - 1) & 255}`;
      const resolves = async (name: string, ip: string) => {
        const { stdout } = await run('dig', ['@127.0.0.1', '-p', String(service.dnsPort), name, 'A', '+short', '+tries=1', '+time=1']);
        return stdout.trim() === ip;
      };
      const until = async (what: string, done: () => Promise<boolean>) => {
        const start = performance.now();
        while (!(await done())) {
          if (performance.now() - start > 600_000) throw new Error(`${what}: not within 10 minutes`);
          await new Promise((r) => setTimeout(r, 50));
        }
      };
      const complete = async (id: string) => (await call(tokens.platform, 'GET', `/ip-spaces/${id}`)).json.forward_records.state === 'complete';
      const rows: string[] = [];
      const row = (what: string, ms: number) => rows.push(`| ${what} | ${(ms / 1000).toFixed(1)} s |`);

      let start = performance.now();
      const created = await call(tokens.platform, 'POST', '/ip-spaces', { cidr, ptr_pattern: `static.{dashed}.${zone}.`, forward_zone: zone });
      row(`POST /ip-spaces ${cidr} (${size} A records; ${Math.min(256, size / 256)} reverse zones), request → 201`, created.ms);
      const id = created.json.id as string;
      await until('complete', () => complete(id));
      row('… request → forward_records complete', performance.now() - start);
      await until('served', () => resolves(`static.${last.replaceAll('.', '-')}.${zone}`, last));
      row(`… request → the nameserver answers the last address's A (dig)`, performance.now() - start);

      start = performance.now();
      const renamed = await call(tokens.platform, 'PATCH', `/ip-spaces/${id}`, { ptr_pattern: `host-{dashed}.${zone}.` });
      row(`PATCH ptr_pattern (${size} records renamed: ${2 * size} items), request → 200`, renamed.ms);
      await until('complete', () => complete(id));
      row('… request → forward_records complete', performance.now() - start);
      await until('served', () => resolves(`host-${last.replaceAll('.', '-')}.${zone}`, last));
      row(`… request → the nameserver answers the last address's new name`, performance.now() - start);
      // What a nameserver loading the zone whole (a restart, a reload) would serve: the new names only.
      const served = (
        await sql.query(
          "SELECT count(*) FILTER (WHERE p.name LIKE 'host-%') AS renamed, count(*) AS n FROM published_records p JOIN zones z ON z.id = p.zone_id WHERE z.name = $1 AND p.type = 1",
          [zone],
        )
      ).rows[0];
      if (Number(served.renamed) !== size || Number(served.n) !== size)
        throw new Error(`published_records after the rename: ${served.renamed} of ${served.n} A rows renamed, ${size} expected`);

      start = performance.now();
      const removed = await call(tokens.platform, 'DELETE', `/ip-spaces/${id}`);
      row(`DELETE the space, request → 204`, removed.ms);
      await until('removed', async () => Number((await sql.query('SELECT count(*) AS n FROM records WHERE managed_by = $1', [id])).rows[0].n) === 0);
      row('… request → its last forward record removed', performance.now() - start);
      const largest = Number(
        (await sql.query('SELECT max(c.item_count) AS n FROM change_sets c JOIN zones z ON z.id = c.zone_id WHERE z.name = $1', [zone])).rows[0].n,
      );
      console.log(`\nForward records of a /${length} (largest change set: ${largest} items)`);
      console.log('| what | time |');
      console.log('|---|---|');
      for (const r of rows) console.log(r);
    } finally {
      await sql.end();
    }
  }
} finally {
  await service.stop();
}

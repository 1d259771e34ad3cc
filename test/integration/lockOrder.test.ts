// The lock order (docs/architecture.md "One lock order") under the reproduction: zone
// creations of a customer beside staff assigning addresses to that customer. Before the order was
// fixed, PostgreSQL found a deadlock between the quota check's lock on the tenants and the foreign
// key check of `insert into ip_assignments` in two of three tries (3 of 12 requests answered 500).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/apiClient.js';
import { type DnsLab, newCustomer, startDnsLab } from '../helpers/dnsLab.js';

describe('concurrent provisioning', () => {
  let lab: DnsLab;
  let customer: { id: string; api: ApiClient };
  beforeAll(async () => {
    lab = await startDnsLab();
    for (const cidr of ['198.51.100.0/24', '203.0.113.0/24']) {
      const space = await lab.platform.post('/ip-spaces', { cidr, ptr_pattern: 'static.{dashed}.hosting.example.' });
      expect(space.status, space.text).toBe(201);
    }
    customer = await newCustomer(lab, 'Provisioned concurrently', { max_zones: 1000 });
  });
  afterAll(async () => lab?.close());

  it('creates zones beside address assignments without a 5xx, 20 rounds', async () => {
    const blocks = ['198.51.100', '203.0.113'].flatMap((net) => Array.from({ length: 64 }, (_, i) => `${net}.${i * 4}/30`));
    const statuses: string[] = [];
    for (let round = 0; round < 20; round++) {
      const requests = [];
      for (let i = 0; i < 6; i++) {
        const cidr = blocks[round * 6 + i]!;
        requests.push(lab.platform.post('/ips', { cidr, tenant_id: customer.id }).then((r) => `ips:${r.status} ${r.status === 201 ? '' : r.text}`));
        requests.push(customer.api.post('/zones', { name: `dl${round}-${i}.test` }).then((r) => `z:${r.status} ${r.status === 201 ? '' : r.text}`));
      }
      statuses.push(...(await Promise.all(requests)));
    }
    const failed = statuses.filter((s) => !/:201 $/.test(s));
    expect(failed, `answers other than 201: ${failed.join(' ')}`).toEqual([]);
    // The order itself prevents the deadlock: the pipeline's retry (db_transaction_retries_total) is
    // a safety net that this mix must not need.
    const metrics = await (await fetch(`${lab.url}/metrics`)).text();
    expect(metrics.match(/^db_transaction_retries_total\{.*$/gm) ?? []).toEqual([]);
  });

  it('runs a deadlock victim again from the start and answers as if nothing happened', async () => {
    // A cycle made from outside: we hold the customer's tenant row, the API's zone creation takes
    // the name family's lock and waits for that row, then we ask for the family's lock. PostgreSQL
    // aborts the API's transaction (it waited first, so its deadlock check runs first): 40P01.
    const tenant = lab.tokens.tenants.customers[0]!;
    const blocker = await lab.sql.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT 1 FROM tenants WHERE id = $1 FOR UPDATE', [tenant]);
      const creation = lab.customerA.post('/zones', { name: 'victim.test' });
      const waiting = async () => {
        for (let i = 0; i < 200; i++) {
          const r = await lab.sql.query(
            `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%tenants%'`,
          );
          if (r.rowCount) return;
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        throw new Error('the zone creation never waited for the tenant row');
      };
      await waiting();
      await blocker.query(`SELECT pg_advisory_xact_lock(hashtextextended('zone-family|victim.test', 0))`);
      await blocker.query('ROLLBACK');
      const created = await creation;
      expect(created.status, created.text).toBe(201);
    } finally {
      blocker.release();
    }
    const metrics = await (await fetch(`${lab.url}/metrics`)).text();
    expect(metrics).toMatch(/^db_transaction_retries_total\{reason="deadlock_detected"\} 1$/m);
    expect((await lab.customerA.get('/zones/victim.test')).status).toBe(200);
  });
});

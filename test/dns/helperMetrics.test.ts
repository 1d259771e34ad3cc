// With DNS_UDP_PROCESSES=2 a helper process answers part of the UDP queries on the same socket
// (nameserver/udpProcesses.ts); /metrics must count them too: the totals are summed over the
// processes and each process's share is shown (docs/nameserver.md). The real service runs with
// the API and nameserver roles; queries come from dns2's client, from many source ports at once.
// The response rate limit is counted the same way: a burst from one address over it shows in
// dns_rate_limited, summed over the processes.
import dgram from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TYPE } from '../../nameserver/types.js';
import { buildQuery } from '../helpers/tcpClient.js';
import { queryDns } from '../helpers/dnsQuery.js';
import { startTestService, type TestService } from '../helpers/testService.js';

const QUERIES = 300;

/** The value of one series of /metrics text, 0 when it is absent. */
const series = (text: string, name: string) => Number(new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\d+)`, 'm').exec(text)?.[1] ?? 0);

describe('/metrics with helper processes (DNS_UDP_PROCESSES=2)', () => {
  let lab: TestService;

  beforeAll(async () => {
    // 127.0.0.1 is exempt from the rate limit: its 300 queries at once share one account (REFUSED),
    // which one process reading most of them would limit. The burst below comes from elsewhere.
    lab = await startTestService({ env: { ROLES: 'api,nameserver', DNS_UDP_PROCESSES: '2', DNS_RRL_EXEMPT: '127.0.0.1/32' } });
  });
  afterAll(async () => lab?.stop());

  it('counts the queries every process answered, and shows each process', async () => {
    const metrics = async () => (await lab.as(lab.tokens.platform).get('/metrics')).text;
    const before = await metrics();
    const port = lab.service.nameserver!.server.port;
    // Names outside every zone: REFUSED, answered by whichever process the kernel hands them to.
    const replies = await Promise.all(Array.from({ length: QUERIES }, (_, i) => queryDns(port, `q${i}.nowhere.invalid`, 'A', { timeoutMs: 5000 })));
    expect(replies.every((r) => r.rcode === 5)).toBe(true);

    const after = await metrics();
    const grew = (name: string) => series(after, name) - series(before, name);
    expect(grew('dns_queries_received{transport="udp"}')).toBe(QUERIES);
    expect(grew('dns_responses_sent{rcode="REFUSED"}')).toBe(QUERIES);
    const main = grew('dns_queries_received_by_process{process="main"}');
    const helper = grew('dns_queries_received_by_process{process="helper-1"}');
    expect(main + helper).toBe(QUERIES);
    // The helper reads the same socket: with this many datagrams at once it gets its share.
    expect(helper).toBeGreaterThan(0);
  });

  it('counts the answers the rate limit dropped or truncated in every process', async () => {
    const metrics = async () => (await lab.as(lab.tokens.platform).get('/metrics')).text;
    const before = await metrics();
    const port = lab.service.nameserver!.server.port;
    const socket = dgram.createSocket('udp4');
    let truncated = 0;
    socket.on('message', (m) => (m[2]! & 0x02 ? truncated++ : undefined));
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.5', resolve));
    try {
      // 1,000 identical queries: more than the rate's one-second burst (200) in each process.
      for (let i = 0; i < 1000; i++) {
        socket.send(buildQuery(i, 'www.nowhere.invalid', TYPE.A), port, '127.0.0.1');
        if (i % 50 === 49) await new Promise((r) => setTimeout(r, 1));
      }
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      socket.close();
    }
    const after = await metrics();
    const grew = (name: string) => series(after, name) - series(before, name);
    expect(grew('dns_rate_limited{action="slipped"}')).toBe(truncated);
    expect(grew('dns_rate_limited{action="dropped"}')).toBeGreaterThanOrEqual(truncated);
    expect(truncated).toBeGreaterThan(100);
  });
});

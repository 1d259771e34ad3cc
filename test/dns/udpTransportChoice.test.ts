// The UDP transport is chosen at start (DNS_UDP_TRANSPORT, docs/nameserver.md) and shown in the
// log and in /metrics: the batched addon by default when it is built, node:dgram when asked for or
// when the addon is absent (DNS_UDP_ADDON pointed at nothing: what a machine without a compiler
// gets), and no start at all when `batched` is required but absent. The real service (API and
// nameserver roles) answers over whichever it chose, helper processes included.
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_ADDON_PATH, loadBatchedUdp } from '../../nameserver/server/nativeUdp.js';
import { queryDns } from '../helpers/dnsQuery.js';
import { exampleRecords, startTestServer, storeWith } from '../helpers/fixtureZones.js';
import { LogCapture } from '../helpers/soak.js';
import { startTestService, type TestService } from '../helpers/testService.js';

const ABSENT_ADDON = '/nonexistent/batched_udp.node';
const addonBuilt = 'addon' in loadBatchedUdp(DEFAULT_ADDON_PATH);

/** The value of one series of /metrics text, null when it is absent. */
const series = (text: string, name: string) => {
  const found = new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\d+)`, 'm').exec(text);
  return found ? Number(found[1]) : null;
};

describe('choosing the UDP transport at start', () => {
  let lab: TestService | null = null;
  afterEach(async () => {
    await lab?.stop();
    lab = null;
  });

  /** Starts the service with `env`; its log line about the transport, /metrics, and one query answered. */
  async function startWith(env: Record<string, string>) {
    const log = new LogCapture();
    lab = await startTestService({ env: { ROLES: 'api,nameserver', ...env }, logDestination: log, logLevel: 'info' });
    const line = log.lines.find((l) => typeof l.msg === 'string' && l.msg.startsWith('UDP transport'));
    const metrics = (await lab.as(lab.tokens.platform).get('/metrics')).text;
    const port = lab.service.nameserver!.server.port;
    const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => queryDns(port, `q${i}.nowhere.invalid`, 'A', { timeoutMs: 5000 })));
    return { line, metrics, replies };
  }

  it('auto with the addon built: batched, in the log and in /metrics', async (ctx) => {
    if (!addonBuilt) {
      if (process.env.REQUIRE_DNS_TOOLS === '1') throw new Error(`the batched UDP addon is not built (${DEFAULT_ADDON_PATH}); npm ci builds it`);
      ctx.skip('the batched UDP addon is not built');
    }
    const { line, metrics, replies } = await startWith({});
    expect(line).toMatchObject({ transport: 'batched', msg: 'UDP transport: batched (recvmmsg/sendmmsg)' });
    expect(series(metrics, 'dns_udp_transport_info{transport="batched"}')).toBe(1);
    expect(series(metrics, 'dns_udp_transport_info{transport="dgram"}')).toBeNull();
    expect(replies.every((r) => r.rcode === 5)).toBe(true);
  });

  it('DNS_UDP_TRANSPORT=dgram: node:dgram, and says why', async () => {
    const { line, metrics, replies } = await startWith({ DNS_UDP_TRANSPORT: 'dgram' });
    expect(line).toMatchObject({ transport: 'dgram', reason: 'DNS_UDP_TRANSPORT=dgram', msg: 'UDP transport: node:dgram' });
    expect(series(metrics, 'dns_udp_transport_info{transport="dgram"}')).toBe(1);
    expect(series(metrics, 'dns_udp_transport_info{transport="batched"}')).toBeNull();
    expect(replies.every((r) => r.rcode === 5)).toBe(true);
  });

  it('auto without the addon: falls back to node:dgram, with helper processes too, and logs that it is not built', async () => {
    const { line, metrics, replies } = await startWith({ DNS_UDP_ADDON: ABSENT_ADDON, DNS_UDP_PROCESSES: '2' });
    expect(line).toMatchObject({ transport: 'dgram', msg: 'UDP transport: node:dgram' });
    expect(line.reason).toContain(`${ABSENT_ADDON} not built`);
    expect(series(metrics, 'dns_udp_transport_info{transport="dgram"}')).toBe(1);
    expect(replies.every((r) => r.rcode === 5)).toBe(true);
  });

  it('DNS_UDP_TRANSPORT=batched without the addon: the nameserver does not start', async () => {
    await expect(startTestServer(storeWith({ 'example.com': exampleRecords() }), { udpTransport: 'batched', udpAddonPath: ABSENT_ADDON })).rejects.toThrow(
      /DNS_UDP_TRANSPORT=batched, but the batched UDP addon cannot be used: .*not built/,
    );
  });
});

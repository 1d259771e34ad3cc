// RFC 9471: a referral whose in-domain glue (addresses of name servers at or below the cut) does
// not fit must set TC, so that the resolver retries over TCP; glue that is only optional (name
// servers elsewhere in the parent zone) is left out silently. The server runs on a free port and
// is asked over UDP without EDNS (512 octets), with EDNS (1232) and over TCP; BIND's dig reads
// the truncated answer as a resolver would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DnsServer } from '../../nameserver/server.js';
import { TYPE } from '../../nameserver/types.js';
import { parseMessage, type Message } from '../../nameserver/wire/parseMessage.js';
import { requireTool } from '../helpers/dnsTools.js';
import { digQuery } from '../helpers/digClient.js';
import { soaData, startTestServer, storeWith, type RecordSpec } from '../helpers/fixtureZones.js';
import { buildQuery } from '../helpers/tcpClient.js';

const o = 'example.com';
/** Ten addresses per name server: 4 × (10 × 16) octets of glue, past 512, within 1232. */
const addresses = (name: string, net: number): RecordSpec[] =>
  Array.from({ length: 10 }, (_, i): RecordSpec => [name, 'A', 3600, { address: `198.51.${net}.${i + 1}` }]);

function records(): RecordSpec[] {
  const specs: RecordSpec[] = [
    [o, 'SOA', 3600, soaData(o, 1)],
    [o, 'NS', 3600, { nameserver: `ns1.${o}` }],
    [`ns1.${o}`, 'A', 3600, { address: '192.0.2.1' }],
  ];
  // in.example.com: four in-domain name servers, their glue required.
  for (let i = 1; i <= 4; i++) specs.push([`in.${o}`, 'NS', 3600, { nameserver: `ns${i}.in.${o}` }], ...addresses(`ns${i}.in.${o}`, i));
  // out.example.com: four name servers elsewhere in the parent zone, their addresses optional.
  for (let i = 1; i <= 4; i++) specs.push([`out.${o}`, 'NS', 3600, { nameserver: `ns${i}.hosting.${o}` }], ...addresses(`ns${i}.hosting.${o}`, 10 + i));
  // mixed.example.com: three servers elsewhere (their 30 addresses do not fit), then one in-domain.
  for (let i = 1; i <= 3; i++) specs.push([`mixed.${o}`, 'NS', 3600, { nameserver: `ns${i}.hosting.${o}` }]);
  specs.push([`mixed.${o}`, 'NS', 3600, { nameserver: `ns.mixed.${o}` }], [`ns.mixed.${o}`, 'A', 3600, { address: '192.0.2.99' }]);
  return specs;
}

describe('referrals and truncation (RFC 9471)', () => {
  let server: DnsServer;

  beforeAll(async () => {
    ({ server } = await startTestServer(storeWith({ [o]: records() })));
  });
  afterAll(() => server.close());

  const ask = (name: string, options: { edns?: number; tcp?: boolean } = {}): Message => {
    const reply = server.handler.handleQuery(buildQuery(7, name, TYPE.A, { edns: options.edns }), {
      transport: options.tcp ? 'tcp' : 'udp',
      remoteAddress: '127.0.0.1',
    });
    if (!Buffer.isBuffer(reply)) throw new Error('no reply');
    const message = parseMessage(reply);
    if (!message) throw new Error('reply did not parse');
    return message;
  };
  const glueOwners = (m: Message) => [...new Set(m.additional.filter((r) => r.type === TYPE.A).map((r) => r.name))];

  it('sets TC when the in-domain glue does not fit in 512 octets, and keeps only whole RRsets', () => {
    const m = ask(`www.in.${o}`);
    expect(m.tc).toBe(true);
    expect(m.aa).toBe(false);
    expect(m.authority.filter((r) => r.type === TYPE.NS)).toHaveLength(4);
    const kept = glueOwners(m);
    expect(kept.length).toBeLessThan(4);
    for (const owner of kept) expect(m.additional.filter((r) => r.name === owner)).toHaveLength(10);
  });

  it('does not set TC when all of it fits (EDNS 1232, TCP)', () => {
    for (const m of [ask(`www.in.${o}`, { edns: 1232 }), ask(`www.in.${o}`, { tcp: true })]) {
      expect(m.tc).toBe(false);
      expect(glueOwners(m)).toEqual([1, 2, 3, 4].map((i) => `ns${i}.in.${o}`));
    }
  });

  it('does not set TC when only optional addresses (outside the delegated zone) are left out', () => {
    const m = ask(`www.out.${o}`);
    expect(m.tc).toBe(false);
    expect(m.authority.filter((r) => r.type === TYPE.NS)).toHaveLength(4);
    expect(glueOwners(m).length).toBeLessThan(4);
  });

  it('puts in-domain glue before optional addresses, so it is the part that fits', () => {
    const m = ask(`www.mixed.${o}`);
    expect(m.tc).toBe(false);
    expect(glueOwners(m)[0]).toBe(`ns.mixed.${o}`);
  });

  it('dig sees the TC flag on the UDP referral and the whole glue over TCP', async (ctx) => {
    const dig = requireTool('dig', ctx);
    const udp = await digQuery(dig, server.port, `www.in.${o}`, 'A', ['+noedns', '+ignore']);
    expect(udp.flags).toContain('tc');
    const tcp = await digQuery(dig, server.port, `www.in.${o}`, 'A', ['+noedns', '+tcp']);
    expect(tcp.flags).not.toContain('tc');
    expect(tcp.additional).toHaveLength(40);
  });
});

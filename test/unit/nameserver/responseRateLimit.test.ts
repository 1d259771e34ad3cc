// Response rate limiting (nameserver/server/responseRateLimit.ts) on real responses of the query
// handler, with a clock of our own: the rate and its refill, slip, the netblocks, the answer
// classes (a positive answer by name and type; NXDOMAIN and NODATA by zone; referrals by
// delegation; errors by netblock), the exempt list and a table smaller than the accounts.
import { describe, expect, it } from 'vitest';
import { QueryHandler } from '../../../nameserver/server.js';
import {
  RRL_DEFAULTS,
  RRL_DROP,
  RRL_SEND,
  RRL_SLIP,
  readSource,
  ResponseRateLimit,
  type ResponseRateLimitOptions,
} from '../../../nameserver/server/responseRateLimit.js';
import { CLASS, RCODE, TYPE } from '../../../nameserver/types.js';
import { parseMessage } from '../../../nameserver/wire/parseMessage.js';
import { exampleRecords, memoryLogger, storeWith } from '../../helpers/fixtureZones.js';
import { buildQuery } from '../../helpers/tcpClient.js';

const handler = new QueryHandler({
  store: storeWith({ 'example.com': exampleRecords() }),
  transferAllow: [],
  tsigKeys: [],
  logger: memoryLogger(),
  rateLimit: false,
});

/** The handler's UDP response to a query for `name`/`type` (the octets the limiter sees). */
function response(name: string, type: number, options: { edns?: number } = {}): Buffer {
  const reply = handler.handleQuery(buildQuery(1, name, type, options), { transport: 'udp', remoteAddress: '192.0.2.1' });
  if (!Buffer.isBuffer(reply)) throw new Error('no response');
  return reply;
}

function limiter(options: Partial<ResponseRateLimitOptions> = {}) {
  const clock = { ms: 1_000_000 };
  const counters = { dropped: 0, slipped: 0 };
  const rrl = new ResponseRateLimit({ ...RRL_DEFAULTS, tableSize: 4096, ...options }, counters, () => clock.ms);
  return { rrl, clock, counters };
}

/** How many of `n` responses at one instant are sent, slipped and dropped. */
function burst(rrl: ResponseRateLimit, message: Buffer, address: string, n: number) {
  const seen = { send: 0, slip: 0, drop: 0 };
  for (let i = 0; i < n; i++) {
    const d = rrl.decide(message, address);
    if (d === RRL_SEND) seen.send++;
    else if (d === RRL_SLIP) seen.slip++;
    else if (d === RRL_DROP) seen.drop++;
  }
  return seen;
}

const www = response('www.example.com', TYPE.A);

describe('response rate limiting', () => {
  it('sends `rate` responses at once, then slips every slip-th and drops the rest; the credit refills at `rate` per second', () => {
    const { rrl, clock } = limiter({ rate: 10, slip: 2 });
    expect(burst(rrl, www, '198.51.100.7', 30)).toEqual({ send: 10, slip: 10, drop: 10 });
    clock.ms += 500;
    expect(burst(rrl, www, '198.51.100.7', 10)).toEqual({ send: 5, slip: 2, drop: 3 });
    // A long pause gives one second of credit, never more.
    clock.ms += 60_000;
    expect(burst(rrl, www, '198.51.100.7', 12).send).toBe(10);
  });

  it('slip 1 truncates every limited response, slip 0 drops them all', () => {
    expect(burst(limiter({ rate: 5, slip: 1 }).rrl, www, '198.51.100.7', 20)).toEqual({ send: 5, slip: 15, drop: 0 });
    expect(burst(limiter({ rate: 5, slip: 0 }).rrl, www, '198.51.100.7', 20)).toEqual({ send: 5, slip: 0, drop: 15 });
  });

  it('counts IPv4 clients by /24 and IPv6 clients by /64 (the prefix lengths configurable)', () => {
    const { rrl } = limiter({ rate: 5 });
    expect(burst(rrl, www, '198.51.100.7', 5).send).toBe(5);
    expect(burst(rrl, www, '198.51.100.200', 5).send).toBe(0);
    expect(burst(rrl, www, '198.51.101.7', 5).send).toBe(5);
    expect(burst(rrl, www, '2001:db8:1:2::1', 5).send).toBe(5);
    expect(burst(rrl, www, '2001:db8:1:2:ffff:ffff:ffff:ffff', 5).send).toBe(0);
    expect(burst(rrl, www, '2001:db8:1:3::1', 5).send).toBe(5);

    const narrow = limiter({ rate: 5, ipv4PrefixLength: 32, ipv6PrefixLength: 128 }).rrl;
    expect(burst(narrow, www, '198.51.100.7', 5).send).toBe(5);
    expect(burst(narrow, www, '198.51.100.8', 5).send).toBe(5);
  });

  it('keeps accounts apart by answer: name and type for positive answers, the zone for NXDOMAIN and NODATA, the delegation for referrals, the client for errors', () => {
    const { rrl } = limiter({ rate: 3 });
    const client = '203.0.113.9';
    const exhausted = (message: Buffer) => burst(rrl, message, client, 3).send === 3 && burst(rrl, message, client, 1).send === 0;
    const fresh = (message: Buffer) => burst(rrl, message, client, 1).send === 1;

    expect(exhausted(www)).toBe(true);
    expect(fresh(response('www.example.com', TYPE.AAAA))).toBe(true);
    expect(fresh(response('mail.example.com', TYPE.A))).toBe(true);
    // The name's case does not make another account.
    expect(fresh(response('WWW.Example.COM', TYPE.A))).toBe(false);

    const nx = response('nope-1.example.com', TYPE.A);
    expect(parseMessage(nx)!.rcode).toBe(RCODE.NXDOMAIN);
    expect(exhausted(nx)).toBe(true);
    // Random names in one zone share its account: a random-subdomain flood is one flood.
    expect(fresh(response('other-2.example.com', TYPE.TXT))).toBe(false);

    const nodata = response('www.example.com', TYPE.MX);
    expect(parseMessage(nodata)!).toMatchObject({ rcode: RCODE.NOERROR, answer: [] });
    expect(exhausted(nodata)).toBe(true);
    expect(fresh(response('mail.example.com', TYPE.TXT))).toBe(false);

    const referral = response('host.sub.example.com', TYPE.A);
    expect(parseMessage(referral)!.authority[0]).toMatchObject({ name: 'sub.example.com', type: TYPE.NS });
    expect(exhausted(referral)).toBe(true);
    expect(fresh(response('other.sub.example.com', TYPE.AAAA))).toBe(false);

    const refused = response('example.org', TYPE.A);
    expect(parseMessage(refused)!.rcode).toBe(RCODE.REFUSED);
    expect(exhausted(refused)).toBe(true);
    expect(fresh(response('elsewhere.net', TYPE.MX))).toBe(false);
    expect(fresh(response('nope-3.example.com', TYPE.A))).toBe(false);
  });

  it('never limits an exempt client, and counts what it limits', () => {
    const { rrl, counters } = limiter({ rate: 2, exempt: ['198.51.100.0/24', '2001:db8::/32'] });
    expect(burst(rrl, www, '198.51.100.7', 50).send).toBe(50);
    expect(burst(rrl, www, '2001:db8:ffff::1', 50).send).toBe(50);
    for (let i = 0; i < 10; i++) rrl.apply(www, '192.0.2.1');
    expect(counters).toEqual({ dropped: 4, slipped: 4 });
  });

  it('slips a reply of the question alone with TC set, no larger than the query', () => {
    const { rrl } = limiter({ rate: 1, slip: 1 });
    const big = response('big.example.com', TYPE.A, { edns: 1232 });
    expect(rrl.apply(big, '192.0.2.1')).toBe(big);
    const slipped = rrl.apply(big, '192.0.2.1')!;
    const query = buildQuery(1, 'big.example.com', TYPE.A, { edns: 1232 });
    expect(slipped.length).toBeLessThan(query.length);
    expect(parseMessage(slipped)!).toMatchObject({
      tc: true,
      rcode: RCODE.NOERROR,
      questions: [{ name: 'big.example.com', type: TYPE.A, klass: CLASS.IN }],
      answer: [],
      authority: [],
      additional: [],
    });
  });

  it('in a table smaller than the accounts, a slot taken over starts afresh: a flood from many sources is never blocked wrongly', () => {
    const { rrl } = limiter({ rate: 2, tableSize: 16 });
    // 1,000 netblocks, each asking twice: each within its rate whatever the collisions.
    let sent = 0;
    for (let i = 0; i < 1000; i++) for (const address of [`10.${i >> 8}.${i & 255}.1`, `10.${i >> 8}.${i & 255}.2`]) sent += burst(rrl, www, address, 1).send;
    expect(sent).toBe(2000);
    // One netblock over its rate is still limited amid them.
    expect(burst(rrl, www, '192.0.2.1', 10).send).toBe(2);
  });

  it('reads the addresses a socket reports as 16 octets, without allocating strings', () => {
    const out = Buffer.alloc(16);
    const cases: [string, string][] = [
      ['192.0.2.1', '00000000000000000000ffffc0000201'],
      ['::1', '00000000000000000000000000000001'],
      ['2001:db8::10', '20010db8000000000000000000000010'],
      ['fe80::1:2%eth0', 'fe800000000000000000000000010002'],
      ['::ffff:192.0.2.1', '00000000000000000000ffffc0000201'],
      ['2001:db8:1:2:3:4:5:6', '20010db8000100020003000400050006'],
      ['2001:db8::', '20010db8000000000000000000000000'],
    ];
    for (const [text, hex] of cases) {
      expect(readSource(text, out), text).toBe(true);
      expect(out.toString('hex'), text).toBe(hex);
    }
    for (const bad of ['', '1.2.3', '1::2::3', 'g::1', '1:2:3:4:5:6:7:8:9']) expect(readSource(bad, out), bad).toBe(false);
  });
});

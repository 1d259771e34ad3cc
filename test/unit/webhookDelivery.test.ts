// Where deliveries may go and how one attempt is judged (docs/webhooks.md "URL safety",
// "Delivery"), against real sockets on the loopback: a production policy never connects to a
// refused address, whether written in the URL or resolved from a name; redirects are not followed.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AddressPolicy, checkWebhookUrl, guardedLookup, refusedAddress } from '../../src/webhooks/addressPolicy.js';
import { MAX_ATTEMPTS, nextAttemptAfterFailure, RETRY_DELAYS_MS, signatureHeader } from '../../src/webhooks/deliveryPolicy.js';
import { createSender } from '../../src/webhooks/send.js';
import { quotaThresholdCrossed } from '../../src/domain/model/events.js';
import { verifySignature } from '../helpers/webhookReceiver.js';

const production: AddressPolicy = { allowHttp: false, allowPrivateAddresses: false, ownAddresses: ['198.51.100.7', '2001:db8::53'] };
const lab: AddressPolicy = { allowHttp: true, allowPrivateAddresses: true, ownAddresses: [] };
/** Production's address rules with http allowed, to reach a plain-HTTP test server. */
const strictHttp: AddressPolicy = { ...production, allowHttp: true };

describe('refusedAddress (production)', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.0.0.1',
    '172.16.5.4',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '198.51.100.7',
    '2001:db8::53',
  ])('refuses %s', (address) => {
    expect(refusedAddress(address, production)).not.toBeNull();
  });
  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])('allows %s', (address) => {
    expect(refusedAddress(address, production)).toBeNull();
  });
  it('allows everything in the lab', () => {
    expect(refusedAddress('127.0.0.1', lab)).toBeNull();
  });
});

/** Why a URL would be refused at registration, or null. */
const urlProblem = (raw: string, policy: AddressPolicy) => {
  const checked = checkWebhookUrl(raw, policy);
  return 'problem' in checked ? checked.problem : null;
};

describe('checkWebhookUrl: the policy', () => {
  it('requires https in production, accepts http in the lab', () => {
    expect(urlProblem('http://hooks.example.com/x', production)).toMatch(/https/);
    expect(urlProblem('https://hooks.example.com/x', production)).toBeNull();
    expect(urlProblem('http://127.0.0.1:9000/x', lab)).toBeNull();
  });
  it.each([
    'https://127.0.0.1/x',
    'https://[::1]/x',
    'https://10.1.2.3/x',
    'https://localhost/x',
    'https://intranet/x',
    'https://u:p@hooks.example.com/',
    'ftp://x.example/',
    'nonsense',
  ])('refuses %s in production', (url) => {
    expect(urlProblem(url, production)).not.toBeNull();
  });
});

describe('checkWebhookUrl: normalised before the policy', () => {
  /** Production's address rules with http allowed: only the address policy can refuse these. */
  it.each([
    'http://LOCALHOST./',
    'http://localhost./',
    'http://LocalHost/',
    'http://127.0.0.1./',
    'http://[::1]/',
    'http://foo.LOCALHOST./x',
    'http://0x7f.1/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::7f00:1]/',
    'http://intranet./',
    'http://localhost../',
    'http://hooks..example.com/',
  ])('refuses %s with private addresses off', (url) => {
    expect(checkWebhookUrl(url, strictHttp)).toHaveProperty('problem');
  });
  it('stores the host in lower case without its final dot', () => {
    expect(checkWebhookUrl('https://Hooks.Example.COM./In?Token=AbC', production)).toEqual({ url: 'https://hooks.example.com/In?Token=AbC' });
    expect(checkWebhookUrl('http://LOCALHOST.:9000/hook', lab)).toEqual({ url: 'http://localhost:9000/hook' });
  });
});

describe('the schedule and the signature', () => {
  it('retries after 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h: 8 attempts', () => {
    expect(MAX_ATTEMPTS).toBe(8);
    const t0 = new Date('2026-01-01T00:00:00Z');
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => nextAttemptAfterFailure(n, t0)!.getTime() - t0.getTime())).toEqual([...RETRY_DELAYS_MS]);
    expect(RETRY_DELAYS_MS.map((ms) => ms / 60_000)).toEqual([1, 5, 30, 120, 360, 720, 1440]);
    expect(nextAttemptAfterFailure(8, t0)).toBeNull();
  });
  it('signs "<t>.<body>" with every secret given, verifiable by an independent receiver', () => {
    const header = signatureHeader(['whsec_new', 'whsec_old'], 1_700_000_000, '{"a":1}');
    expect(header).toMatch(/^t=1700000000,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(verifySignature(header, '{"a":1}', ['whsec_old'], 1_700_000_000)).toBe('ok');
    expect(verifySignature(header, '{"a":1}', ['whsec_new'], 1_700_000_100)).toBe('ok');
    expect(verifySignature(header, '{"a":2}', ['whsec_new'], 1_700_000_000)).toBe('bad_signature');
    expect(verifySignature(header, '{"a":1}', ['whsec_new'], 1_700_000_301)).toBe('stale');
  });
  it('quota warnings: crossing 80 % and 100 %, once each', () => {
    const crossings = [0, 1, 2, 3, 4].map((before) => quotaThresholdCrossed(before, before + 1, 5));
    expect(crossings).toEqual([null, null, null, 80, 100]);
    expect(quotaThresholdCrossed(7, 8, 10)).toBe(80);
    expect(quotaThresholdCrossed(8, 9, 10)).toBeNull();
    expect(quotaThresholdCrossed(0, 1, 1)).toBe(100);
  });
});

describe('one attempt over real sockets', () => {
  let server: http.Server;
  let port: number;
  const hits: string[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      hits.push(req.url!);
      req.resume();
      if (req.url === '/redirect') {
        res.writeHead(302, { location: `http://127.0.0.1:${port}/target` }).end();
      } else if (req.url === '/slow') {
        setTimeout(() => res.writeHead(200).end(), 1500);
      } else if (req.url === '/teapot') {
        res.writeHead(418).end();
      } else res.writeHead(204).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('delivers in the lab: any 2xx is success', async () => {
    const sender = createSender(lab, 2);
    const r = await sender.send(`http://127.0.0.1:${port}/ok`, '{}', {});
    sender.close();
    expect(r).toMatchObject({ outcome: 'success', status: 204 });
  });

  it('never connects to a loopback address written in the URL, nor to a name resolving to one', async () => {
    hits.length = 0;
    const sender = createSender(strictHttp, 2);
    const literal = await sender.send(`http://127.0.0.1:${port}/literal`, '{}', {});
    const named = await sender.send(`http://localhost:${port}/named`, '{}', {});
    sender.close();
    expect(literal.outcome).toBe('refused_address');
    expect(named.outcome).toBe('refused_address');
    expect(hits).toEqual([]);
  });

  it('connects to the address it checked (a rebinding name cannot swap it)', async () => {
    let answers = 0;
    // A name that first resolves to a public address, then to the loopback.
    const rebinding = ((_host: string, _o: unknown, cb: (e: null, a: { address: string; family: number }[]) => void) => {
      answers++;
      cb(null, [{ address: answers === 1 ? '8.8.8.8' : '127.0.0.1', family: 4 }]);
    }) as never;
    const lookup = guardedLookup(production, rebinding);
    const first = await new Promise((resolve) => lookup('rebind.example', { all: true }, (err, addresses) => resolve(err ?? addresses)));
    const second = await new Promise((resolve) => lookup('rebind.example', { all: true }, (err, addresses) => resolve(err ?? addresses)));
    expect(first).toEqual([{ address: '8.8.8.8', family: 4 }]);
    expect((second as Error).message).toMatch(/refused to connect to 127\.0\.0\.1/);
  });

  it('does not follow redirects; a 3xx or 4xx is a failure', async () => {
    hits.length = 0;
    const sender = createSender(lab, 2);
    const r = await sender.send(`http://127.0.0.1:${port}/redirect`, '{}', {});
    const t = await sender.send(`http://127.0.0.1:${port}/teapot`, '{}', {});
    sender.close();
    expect(r).toMatchObject({ outcome: 'http_error', status: 302 });
    expect(t).toMatchObject({ outcome: 'http_error', status: 418 });
    expect(hits).toEqual(['/redirect', '/teapot']);
  });

  it('gives up when no status arrives within the timeout', async () => {
    const sender = createSender(lab, 2, 300);
    const r = await sender.send(`http://127.0.0.1:${port}/slow`, '{}', {});
    sender.close();
    expect(r.outcome).toBe('timeout');
    expect(r.durationMs).toBeGreaterThanOrEqual(290);
    expect(r.durationMs).toBeLessThan(5000);
  });

  it('a receiver that sends its status but never the rest of its body does not keep the connection: the next attempt gets one', async () => {
    // A keep-alive socket still reading a body is never free: with one socket per receiver, every
    // later attempt would wait in the agent's queue and time out (issue 23).
    let requests = 0;
    const endless = http.createServer((req, res) => {
      requests++;
      req.resume();
      res.writeHead(200, { 'content-length': '100' });
      res.write('x');
    });
    await new Promise<void>((r) => endless.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(endless.address() as AddressInfo).port}/`;
    const sender = createSender(lab, 1, 500);
    try {
      const first = await sender.send(url, '{}', {});
      // The first attempt's bound (500 ms from its start) has passed: its socket must be free.
      await new Promise((r) => setTimeout(r, 600));
      const second = await sender.send(url, '{}', {});
      expect(first).toMatchObject({ outcome: 'success', status: 200 });
      expect(second).toMatchObject({ outcome: 'success', status: 200 });
      expect(requests).toBe(2);
    } finally {
      sender.close();
      endless.closeAllConnections();
      await new Promise<void>((r) => endless.close(() => r()));
    }
  });

  it('a refused connection fails fast', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const dead = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const sender = createSender(lab, 2);
    const r = await sender.send(`http://127.0.0.1:${dead}/`, '{}', {});
    sender.close();
    expect(r).toMatchObject({ outcome: 'connection_failed', error: 'ECONNREFUSED' });
  });
});

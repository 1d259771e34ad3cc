// Routing is exact (docs/api-conventions.md "Routing"): one spelling per path — case-sensitive,
// no trailing slash, nothing decoded or normalised before matching — and whatever a hostile
// client sends (other spellings, traversal, encoded slashes and dots, double slashes, odd methods,
// overlong paths) is answered 4xx, never 5xx. Requests go over a raw socket, as a scanner sends
// them: fetch would resolve `..` and refuse TRACE and CONNECT before they left.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/testService.js';

let lab: TestService;
beforeAll(async () => {
  lab = await startTestService({ env: { ROLES: 'api' } });
});
afterAll(() => lab?.stop());

interface RawResponse {
  status: number;
  headers: Map<string, string>;
  body: string;
  json: any;
}

/** One request written byte for byte on its own connection; the answer as it came. */
function raw(method: string, target: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  const url = new URL(lab.url);
  const lines = [`${method} ${target} HTTP/1.1`, `Host: ${url.host}`, 'Connection: close', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => socket.write(`${lines.join('\r\n')}\r\n\r\n`));
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const map = new Map(headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      let body = rest.join('\r\n\r\n');
      // Chunked bodies (the problem writer streams nothing, but be exact about what we read).
      if (map.get('transfer-encoding') === 'chunked')
        body = body
          .replace(/^[0-9a-f]+\r\n|\r\n[0-9a-f]+\r\n/gi, '')
          .replace(/\r\n0\r\n$/, '')
          .replace(/^0\r\n$/, '');
      const json = /json/.test(map.get('content-type') ?? '') && body ? JSON.parse(body) : null;
      resolve({ status: Number(statusLine.split(' ')[1]), headers: map, body, json });
    });
  });
}

const bearer = () => ({ Authorization: `Bearer ${lab.tokens.reseller}` });

/** The problem document of `status`/`code`, with the request id every answer carries. */
function expectProblem(res: RawResponse, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.json).toMatchObject({ status, code });
  expect(res.json.request_id).toBe(res.headers.get('x-request-id'));
}

const hasRateLimit = (res: RawResponse) => ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'].every((h) => res.headers.has(h));

describe('paths are matched case-sensitively', () => {
  // [exact path, its status with the reseller's token, other spellings of it]
  const table: [string, number, string[]][] = [
    ['/api/v1/me', 200, ['/API/V1/ME', '/api/V1/me', '/api/v1/ME', '/Api/v1/me', '/api/v1/Me']],
    ['/api/v1/zones', 200, ['/API/v1/zones', '/api/v1/ZONES', '/api/V1/zones']],
    ['/api/v1/openapi.json', 200, ['/Api/v1/openapi.json', '/api/v1/OpenAPI.json', '/API/V1/OPENAPI.JSON']],
    ['/healthz', 200, ['/HEALTHZ', '/Healthz']],
    ['/metrics', 200, ['/METRICS', '/Metrics']],
    ['/docs', 200, ['/DOCS', '/Docs']],
    // Without credentials the dyndns2 endpoint answers its own 401 (docs/dyndns.md).
    ['/nic/update', 401, ['/NIC/UPDATE', '/nic/Update', '/Nic/update']],
  ];

  it.each(table)('%s answers, and every other spelling of it is 404 not_found', async (path, status, variants) => {
    expect((await raw('GET', path, bearer())).status).toBe(status);
    for (const variant of variants) {
      const res = await raw('GET', variant, bearer());
      expectProblem(res, 404, 'not_found');
      expect(res.json.instance).toBe(variant);
      // A spelling of the API's base path is still the API: counted, with the headers its other
      // 404s carry; /healthz and the others carry none, like any unknown path outside it.
      expect(hasRateLimit(res), variant).toBe(variant.toLowerCase().startsWith('/api/v1/'));
    }
  });

  it('an upper-case spelling counts against the client like any API request', async () => {
    const before = Number((await raw('GET', '/api/v1/me', bearer())).headers.get('ratelimit-remaining'));
    await raw('GET', '/API/V1/ME', bearer());
    const after = Number((await raw('GET', '/api/v1/me', bearer())).headers.get('ratelimit-remaining'));
    expect(after).toBe(before - 2);
  });

  it('without a token an upper-case API path is 404 too, counted against the address', async () => {
    const res = await raw('GET', '/API/V1/ZONES');
    expectProblem(res, 404, 'not_found');
    expect(hasRateLimit(res)).toBe(true);
  });

  it.each(['/api/v1/me/', '/api/v1/zones/', '/healthz/', '/docs/', '/nic/update/'])('a trailing slash is another path: %s is 404', async (path) => {
    expectProblem(await raw('GET', path, bearer()), 404, 'not_found');
  });
});

describe('hostile requests answer 4xx, never 5xx', () => {
  const long = (n: number) => 'a'.repeat(n);
  // [category, method, target, status, code]
  const table: [string, string, string, number, string][] = [
    ['path traversal', 'GET', '/api/v1/zones/../me', 404, 'not_found'],
    ['path traversal', 'GET', '/api/v1/../../etc/passwd', 404, 'not_found'],
    ['path traversal', 'GET', '/../../etc/passwd', 404, 'not_found'],
    ['path traversal', 'GET', '/docs/../api/v1/me', 404, 'not_found'],
    ['path traversal', 'GET', '/api/v1/./me', 404, 'not_found'],
    ['encoded dots', 'GET', '/api/v1/zones/%2e%2e/me', 404, 'not_found'],
    ['encoded dots', 'GET', '/api/v1/%2E%2E/v1/me', 404, 'not_found'],
    ['encoded dots', 'GET', '/api/v1/zones/%c0%ae%c0%ae/me', 404, 'not_found'],
    ['encoded slashes', 'GET', '/api%2fv1%2fme', 404, 'not_found'],
    ['encoded slashes', 'GET', '/api/v1/zones%2Fexample.com', 404, 'not_found'],
    ['encoded slashes', 'GET', '/docs/assets/..%2f..%2fpackage.json', 404, 'not_found'],
    ['encoded slashes', 'GET', '/api/v1/zones/a%2Fb/records', 404, 'not_found'],
    ['encoded letters', 'GET', '/api/v1/%6de', 404, 'not_found'],
    ['encoded letters', 'GET', '/api/%761/me', 404, 'not_found'],
    ['double slashes', 'GET', '//api/v1/me', 404, 'not_found'],
    ['double slashes', 'GET', '/api//v1/me', 404, 'not_found'],
    ['double slashes', 'GET', '/api/v1//me', 404, 'not_found'],
    ['broken encodings', 'GET', '/api/v1/zones/%zz', 404, 'not_found'],
    ['broken encodings', 'GET', '/api/v1/zones/%', 404, 'not_found'],
    ['broken encodings', 'GET', '/api/v1/tenants/%ff', 422, 'validation_failed'],
    ['broken encodings', 'GET', '/api/v1/zones/%00', 422, 'validation_failed'],
    ['broken encodings', 'GET', '/api/v1/zones?limit=%', 422, 'validation_failed'],
    ['odd methods', 'TRACE', '/api/v1/me', 405, 'method_not_allowed'],
    ['odd methods', 'TRACE', '/healthz', 405, 'method_not_allowed'],
    ['odd methods', 'TRACE', '/', 404, 'not_found'],
    ['odd methods', 'PROPFIND', '/api/v1/me', 405, 'method_not_allowed'],
    ['odd methods', 'MKCOL', '/api/v1/zones', 405, 'method_not_allowed'],
    ['odd methods', 'PROPFIND', '/api/v1/no-such-thing', 404, 'not_found'],
    ['odd methods', 'CONNECT', '/api/v1/me', 405, 'method_not_allowed'],
    ['odd methods', 'CONNECT', 'example.com:443', 404, 'not_found'],
    ['odd methods', 'PATCH', '/healthz', 405, 'method_not_allowed'],
    ['odd targets', 'GET', '*', 404, 'not_found'],
    ['odd targets', 'OPTIONS', '*', 404, 'not_found'],
    ['overlong paths', 'GET', `/api/v1/${long(8000)}`, 404, 'not_found'],
    ['overlong paths', 'GET', `/api/v1/zones/${long(8000)}`, 422, 'validation_failed'],
    ['overlong paths', 'GET', `/api/v1/zones/${long(8000)}/records`, 422, 'validation_failed'],
  ];

  it.each(table)('%s: %s %s', async (_category, method, target, status, code) => {
    const res = await raw(method, target, bearer());
    expectProblem(res, status, code);
    if (status === 405) {
      const allow = (res.headers.get('allow') ?? '').split(',').map((m) => m.trim());
      expect(allow).toContain('GET');
      expect(allow).not.toContain(method);
    }
  });

  it('made-up paths add no series to /metrics, whatever they are answered', async () => {
    const made = `made-up-${Date.now().toString(36)}`;
    expect((await raw('TRACE', `/api/v1/tenants/${made}`, bearer())).status).toBe(405);
    expect((await raw('PUT', `/api/v1/tenants/${made}`, bearer())).status).toBe(405);
    expect((await raw('GET', `/api/v1/${made}`, bearer())).status).toBe(404);
    expect((await raw('GET', `/${made}`)).status).toBe(404);
    const metrics = await raw('GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatch(/http_requests_total\{method="TRACE",route="unmatched",status="405"\}/);
    expect(metrics.body).not.toContain(made);
  });

  it('a CONNECT is answered and its connection closed, not dropped without a word', async () => {
    const res = await raw('CONNECT', '/api/v1/me', bearer());
    expect(res.status).toBe(405);
    expect(res.headers.get('connection')).toBe('close');
    expect(hasRateLimit(res)).toBe(true);
  });

  // Refused by Node's HTTP parser before any of our code runs: a bare 4xx, the connection closed.
  it.each([
    ['an unknown method', 'FOO', '/api/v1/me', 400],
    ['a lower-case method', 'get', '/api/v1/me', 400],
    ['a target without its slash', 'GET', 'api/v1/me', 400],
    ['a request line over 16 KiB', 'GET', `/api/v1/${long(20_000)}`, 431],
  ])('%s is %s by the parser', async (_what, method, target, status) => {
    expect((await raw(method, target, bearer())).status).toBe(status);
  });
});

// A client that trickles its request in holds a socket and a parser for as long as it likes
// unless the server bounds the time to receive the whole request (HTTP_REQUEST_TIMEOUT_MS).
import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { startTestService, type TestService } from '../helpers/testService.js';

const BOUND_MS = 2000;

let lab: TestService;
beforeAll(async () => {
  lab = await startTestService({ env: { ROLES: 'api', HTTP_REQUEST_TIMEOUT_MS: String(BOUND_MS) } });
});
afterAll(() => lab?.stop());

/** Sends the headers at once and the body one byte every 100 ms; resolves when the server closes. */
function trickle(path: string, contentLength: number): Promise<{ ms: number; reply: string }> {
  const { hostname, port } = new URL(lab.url);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = net.connect(Number(port), hostname);
    let reply = '';
    let timer: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${lab.tokens.platform}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${contentLength}\r\n\r\n`,
      );
      timer = setInterval(() => socket.write(' '), 100);
    });
    socket.on('data', (d) => (reply += d));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ ms: performance.now() - started, reply });
    });
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`still open after 20 s: ${reply}`));
    }, 20_000).unref();
  });
}

it('cuts off a client trickling its body in once the request bound has passed', async () => {
  const { ms, reply } = await trickle('/api/v1/tenants', 100_000);
  expect(reply).toMatch(/^HTTP\/1\.1 408/);
  expect(ms).toBeGreaterThanOrEqual(BOUND_MS - 100);
  // Node checks for expired requests every second at most (connectionsCheckingInterval).
  expect(ms).toBeLessThan(BOUND_MS + 1000 + 1000);
});

it('bounds requests to 30 s unless configured', () => {
  expect(loadConfig({}).http.requestTimeoutMs).toBe(30_000);
});

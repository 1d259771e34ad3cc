// One delivery attempt: a signed POST to the receiver, judged by the spec's rule (any 2xx within
// 10 seconds). Redirects are not followed (a 3xx is a failure); the response body is not read
// beyond what arrives with the status; the connection goes only to an address the policy allows.
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { type AddressPolicy, guardedLookup, refusedAddress } from './addressPolicy.js';
import { DELIVERY_TIMEOUT_MS, isSuccess } from './deliveryPolicy.js';

export type AttemptOutcome = 'success' | 'http_error' | 'timeout' | 'connection_failed' | 'refused_address' | 'invalid_url' | 'internal_error';

export interface AttemptResult {
  outcome: AttemptOutcome;
  /** The receiver's status code, when one arrived. */
  status: number | null;
  durationMs: number;
  /** A short reason for a failure (never the receiver's body). */
  error: string | null;
}

export interface Sender {
  send(url: string, body: string, headers: Record<string, string>): Promise<AttemptResult>;
  close(): void;
}

const USER_AGENT = 'managed-dns-webhooks/1';

/** Keep-alive connections per worker, at most `maxSocketsPerHost` to one receiver. */
export function createSender(policy: AddressPolicy, maxSocketsPerHost: number, timeoutMs = DELIVERY_TIMEOUT_MS): Sender {
  const lookup = guardedLookup(policy);
  const agentOptions = { keepAlive: true, maxSockets: maxSocketsPerHost, maxFreeSockets: maxSocketsPerHost, lookup, timeout: timeoutMs };
  const agents = { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) };

  const send = (raw: string, body: string, headers: Record<string, string>): Promise<AttemptResult> => {
    const started = performance.now();
    const done = (outcome: AttemptOutcome, status: number | null, error: string | null): AttemptResult => ({
      outcome,
      status,
      durationMs: Math.round(performance.now() - started),
      error,
    });
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return Promise.resolve(done('invalid_url', null, 'not a URL'));
    }
    const agent = url.protocol === 'https:' ? agents['https:'] : url.protocol === 'http:' && policy.allowHttp ? agents['http:'] : null;
    if (!agent) return Promise.resolve(done('invalid_url', null, `scheme ${url.protocol} not allowed`));
    // An address written in the URL is never looked up: check it here.
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(literal) !== 0) {
      const refused = refusedAddress(literal, policy);
      if (refused) return Promise.resolve(done('refused_address', null, `${literal} is ${refused}`));
    }
    return new Promise((resolve) => {
      let settled = false;
      const finish = (r: AttemptResult) => {
        if (settled) return;
        settled = true;
        resolve(r);
      };
      const req = (url.protocol === 'https:' ? https : http).request(url, {
        method: 'POST',
        agent,
        lookup,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': USER_AGENT, ...headers },
      });
      // One bound on the whole attempt (connect, send, status line): Node's socket timeout is idle
      // time only. It also bounds the drain after the status: a body that never ends would keep
      // the keep-alive socket busy for good, and every later attempt to this receiver would wait
      // in the agent's queue for it. The connection is cut; the verdict stands.
      const timer = setTimeout(() => {
        finish(done('timeout', null, `no response within ${timeoutMs / 1000} s`));
        req.destroy();
      }, timeoutMs);
      req.on('close', () => clearTimeout(timer));
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        finish(isSuccess(status) ? done('success', status, null) : done('http_error', status, `HTTP ${status}`));
        // Drain (a bounded amount) so the connection can be reused; a chatty receiver loses it.
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > 65_536) res.destroy();
        });
        res.on('error', () => {});
        res.on('end', () => clearTimeout(timer));
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'EREFUSEDADDRESS') finish(done('refused_address', null, err.message));
        else finish(done('connection_failed', null, err.code ?? err.message));
      });
      req.end(body);
    });
  };

  return {
    send,
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}

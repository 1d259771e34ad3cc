// A webhook receiver as a customer would write one, independent of the service's code: it
// verifies Service-Signature in constant time against the secrets it knows (any v1= may match,
// as during a rotation), rejects a t more than 5 minutes off, and de-duplicates by
// Service-Delivery. It can be told to fail, to answer slowly, or to go away and come back.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedEvent {
  deliveryId: string;
  t: number;
  signatures: string[];
  body: any;
  raw: string;
}

export type Verdict = 'ok' | 'bad_signature' | 'stale' | 'duplicate';

const TOLERANCE_S = 300;

/** Spec "Signature": the receiver's check. `nowS` is the receiver's own clock. */
export function verifySignature(
  header: string | undefined,
  raw: string,
  secrets: string[],
  nowS = Math.floor(Date.now() / 1000),
): 'ok' | 'bad_signature' | 'stale' {
  if (!header) return 'bad_signature';
  const parts = header.split(',').map((p) => p.split('=', 2) as [string, string]);
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t)) return 'bad_signature';
  if (Math.abs(nowS - t) > TOLERANCE_S) return 'stale';
  const given = parts.filter(([k]) => k === 'v1').map(([, v]) => Buffer.from(v ?? '', 'hex'));
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(`${t}.${raw}`).digest();
    // Every candidate is compared (no early exit on the secret's bytes): timingSafeEqual.
    if (given.some((g) => g.length === expected.length && timingSafeEqual(g, expected))) return 'ok';
  }
  return 'bad_signature';
}

export class WebhookReceiver {
  secrets: string[] = [];
  /** Accepted, de-duplicated deliveries in arrival order. */
  readonly events: ReceivedEvent[] = [];
  /** Every request with its verdict (duplicates and rejections included). */
  readonly requests: { deliveryId: string; verdict: Verdict; signatures: number; t: number }[] = [];
  /** Status to answer with while accepting (e.g. 500 to make the service retry). */
  status = 200;
  delayMs = 0;
  private server: http.Server | null = null;
  private seen = new Set<string>();
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async start(port = 0): Promise<this> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const deliveryId = String(req.headers['service-delivery'] ?? '');
        const header = req.headers['service-signature'] as string | undefined;
        const t = Number(/t=(\d+)/.exec(header ?? '')?.[1]);
        const signatures = (header ?? '').split(',').filter((p) => p.startsWith('v1=')).length;
        let verdict: Verdict = verifySignature(header, raw, this.secrets);
        if (verdict === 'ok' && this.status >= 200 && this.status < 300) {
          if (this.seen.has(deliveryId)) verdict = 'duplicate';
          else {
            this.seen.add(deliveryId);
            this.events.push({
              deliveryId,
              t,
              signatures: (header ?? '')
                .split(',')
                .filter((p) => p.startsWith('v1='))
                .map((p) => p.slice(3)),
              body: JSON.parse(raw),
              raw,
            });
          }
        }
        this.requests.push({ deliveryId, verdict, signatures, t });
        const answer = () => {
          res.statusCode = verdict === 'bad_signature' || verdict === 'stale' ? 401 : this.status;
          res.end();
        };
        if (this.delayMs) setTimeout(answer, this.delayMs);
        else answer();
      });
    });
    await new Promise<void>((resolve) => server.listen(port || this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  /** Gone: connections to its port are refused until start() again (same port). */
  async stop(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  ofType(type: string) {
    return this.events.filter((e) => e.body.type === type);
  }
}

/** Polls until `check` returns a truthy value (real time: the service's workers poll). */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 15_000, what = 'condition'): Promise<NonNullable<T>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

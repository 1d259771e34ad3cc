// Opaque pagination cursors: the keyset position, bound to the list and the acting tenant, with
// an expiry, under an HMAC. A client can neither forge one nor reuse one for another tenant.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock } from './clock.js';
import { DomainError } from './errors.js';

export const CURSOR_TTL_MS = 24 * 60 * 60 * 1000;

interface Payload {
  b: string; // binding: list + acting tenant
  v: unknown[]; // keyset values of the last row returned
  x: number; // expiry, unix ms
}

const invalid = (code: string, detail: string) => new DomainError('validation_failed', {}, [{ in: 'query', pointer: '/cursor', code, detail }]);

export class CursorCodec {
  constructor(
    private readonly secret: Buffer,
    private readonly clock: Clock,
  ) {}

  private sign(data: string) {
    return createHmac('sha256', this.secret).update(data).digest().subarray(0, 16);
  }

  encode(binding: string, values: unknown[]): string {
    const payload: Payload = { b: binding, v: values, x: this.clock.now().getTime() + CURSOR_TTL_MS };
    const data = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${data}.${this.sign(data).toString('base64url')}`;
  }

  decode(binding: string, cursor: string): unknown[] {
    const [data, sig, extra] = cursor.split('.');
    if (!data || !sig || extra !== undefined) throw invalid('invalid_cursor', 'The cursor is malformed.');
    const given = Buffer.from(sig, 'base64url');
    const expected = this.sign(data);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw invalid('invalid_cursor', 'The cursor was not issued by this service.');
    }
    const payload = JSON.parse(Buffer.from(data, 'base64url').toString('utf8')) as Payload;
    if (payload.b !== binding) throw invalid('invalid_cursor', 'The cursor belongs to another list.');
    if (payload.x < this.clock.now().getTime()) throw invalid('expired_cursor', 'The cursor has expired; start again without it.');
    return payload.v;
  }
}

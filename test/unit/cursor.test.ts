import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { CURSOR_TTL_MS, CursorCodec } from '../../src/domain/cursor.js';
import { DomainError } from '../../src/domain/errors.js';

const secret = Buffer.alloc(32, 7);

function expectInvalid(fn: () => unknown, code: string) {
  try {
    fn();
    expect.unreachable();
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    expect((e as DomainError).code).toBe('validation_failed');
    expect((e as DomainError).errors[0]).toMatchObject({ in: 'query', pointer: '/cursor', code });
  }
}

describe('CursorCodec', () => {
  it('round-trips the keyset values for the same binding', () => {
    const codec = new CursorCodec(secret, new ManualClock());
    expect(codec.decode('tenants|ten_a', codec.encode('tenants|ten_a', ['ten_x', 42]))).toEqual(['ten_x', 42]);
  });

  it('rejects another binding, a changed payload, another key and expiry', () => {
    const clock = new ManualClock('2026-01-01T00:00:00Z');
    const codec = new CursorCodec(secret, clock);
    const cursor = codec.encode('tenants|ten_a', ['ten_x']);
    expectInvalid(() => codec.decode('tenants|ten_b', cursor), 'invalid_cursor');
    const [data, sig] = cursor.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(data!, 'base64url').toString()), b: 'tenants|ten_b' })).toString('base64url');
    expectInvalid(() => codec.decode('tenants|ten_b', `${forged}.${sig}`), 'invalid_cursor');
    expectInvalid(() => new CursorCodec(Buffer.alloc(32, 8), clock).decode('tenants|ten_a', cursor), 'invalid_cursor');
    expectInvalid(() => codec.decode('tenants|ten_a', 'nonsense'), 'invalid_cursor');
    clock.advance(CURSOR_TTL_MS + 1);
    expectInvalid(() => codec.decode('tenants|ten_a', cursor), 'expired_cursor');
  });
});

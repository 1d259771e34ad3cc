import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { issuesToFieldErrors } from '../../src/api/routing/validate.js';
import { newId } from '../../src/domain/ids.js';
import { deploymentOfToken, displayPrefix, generateToken, hashToken } from '../../src/domain/tokens.js';
import { latestScheduledReset } from '../../src/lab/nightlyReset.js';
import { migrations } from '../../migrations/index.js';

describe('ids', () => {
  it('are prefixed, lower-case base32 and unique', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newId('ten')));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^ten_[a-z2-7]{26}$/);
  });
});

describe('tokens', () => {
  it('carry the deployment prefix and are stored as a SHA-256 hash', () => {
    const live = generateToken('production');
    const test = generateToken('sandbox');
    expect(live).toMatch(/^svc_live_[A-Za-z0-9_-]{43}$/);
    expect(deploymentOfToken(live)).toBe('production');
    expect(deploymentOfToken(test)).toBe('sandbox');
    expect(deploymentOfToken('ghp_x')).toBeNull();
    expect(hashToken(test)).toMatch(/^[0-9a-f]{64}$/);
    expect(displayPrefix(test)).toBe(test.slice(0, 15));
  });
});

describe('latestScheduledReset', () => {
  const at = { hour: 3, minute: 0 };
  it('is today at 03:00 once that has passed, otherwise yesterday', () => {
    expect(latestScheduledReset(new Date('2026-11-22T03:00:00Z'), at).toISOString()).toBe('2026-11-22T03:00:00.000Z');
    expect(latestScheduledReset(new Date('2026-11-22T02:59:59Z'), at).toISOString()).toBe('2026-11-21T03:00:00.000Z');
    expect(latestScheduledReset(new Date('2026-11-22T23:00:00Z'), at).toISOString()).toBe('2026-11-22T03:00:00.000Z');
  });
});

describe('validation problems', () => {
  it('point into the body with RFC 6901 pointers, indexes and unknown fields', () => {
    const schema = z.strictObject({ changes: z.array(z.strictObject({ 'a/b': z.number() })) });
    const result = schema.safeParse({ changes: [{ 'a/b': 1 }, { 'a/b': 'x', extra: 1 }], more: 2 });
    const errors = issuesToFieldErrors(result.error!.issues, 'body');
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ pointer: '/changes/1/a~1b', index: 1, code: 'invalid_type' }),
        expect.objectContaining({ pointer: '/changes/1/extra', index: 1, code: 'unknown_field' }),
        expect.objectContaining({ pointer: '/more', code: 'unknown_field' }),
      ]),
    );
  });
});

describe('migrations/index.ts', () => {
  it('lists every migration file, in order', () => {
    const files = fs
      .readdirSync(new URL('../../migrations/', import.meta.url))
      .filter((f) => /^\d{14}_.+\.ts$/.test(f))
      .map((f) => f.replace(/\.ts$/, ''))
      .sort();
    expect(Object.keys(migrations).sort()).toEqual(files);
  });
});

// The spec's DNSSEC state table (docs/dnssec.md "States"), row by row: what the worker does for
// each state given what it saw over DNS.
import { describe, expect, it } from 'vitest';
import {
  cdsPolicy,
  DISABLING,
  DNSSEC_STATES,
  ENABLING,
  isSigned,
  needs,
  nextAction,
  nextStep,
  type Observations,
  type Situation,
} from '../../../src/domain/dnssec/states.js';

const nothing: Observations = { keysServed: null, dsAtParent: null, chainValid: null, unsignedServed: null };
const at = (state: Situation['state'], extra: Partial<Situation> = {}): Situation => ({
  state,
  mode: 'automatic',
  sinceSeconds: 0,
  dnskeyTtl: 10,
  dsTtl: 10,
  ...extra,
});
const seen = (o: Partial<Observations>): Observations => ({ ...nothing, ...o });

describe('the DNSSEC state table', () => {
  it('off: nothing happens until enable', () => {
    expect(nextStep(at('off'), seen({ keysServed: true, dsAtParent: 'matching', chainValid: true }))).toBeNull();
  });

  it('signing → keys_published once every server serves the keys', () => {
    expect(nextStep(at('signing'), seen({ keysServed: false }))).toBeNull();
    expect(nextStep(at('signing'), seen({ keysServed: true }))).toEqual({ to: 'keys_published', actions: [] });
  });

  it('keys_published waits out the DNSKEY TTL, then submits the DS (automatic) or waits for the customer (assisted)', () => {
    expect(nextStep(at('keys_published', { sinceSeconds: 9 }), nothing)).toBeNull();
    expect(nextStep(at('keys_published', { sinceSeconds: 10 }), nothing)).toEqual({ to: 'ds_submitted', actions: ['submit_ds'] });
    expect(nextStep(at('keys_published', { sinceSeconds: 10, mode: 'assisted' }), nothing)).toEqual({ to: 'awaiting_ds', actions: [] });
  });

  it('ds_submitted and awaiting_ds → ds_published only when a DS at the parent matches a key', () => {
    for (const state of ['ds_submitted', 'awaiting_ds'] as const) {
      expect(nextStep(at(state), seen({ dsAtParent: 'none' }))).toBeNull();
      expect(nextStep(at(state), seen({ dsAtParent: 'mismatch' }))).toBeNull();
      expect(nextStep(at(state), seen({ dsAtParent: 'matching' }))).toEqual({ to: 'ds_published', actions: [] });
    }
  });

  it('ds_published → validated when the chain validates; validated → active; active stays', () => {
    expect(nextStep(at('ds_published'), seen({ chainValid: false }))).toBeNull();
    expect(nextStep(at('ds_published'), seen({ chainValid: true }))).toEqual({ to: 'validated', actions: [] });
    expect(nextStep(at('validated'), nothing)).toEqual({ to: 'active', actions: [] });
    expect(nextStep(at('active'), seen({ chainValid: false, dsAtParent: 'mismatch' }))).toBeNull();
  });

  it('ds_removing → unsigning only once the DS is gone and its TTL has passed', () => {
    expect(nextStep(at('ds_removing', { sinceSeconds: 60 }), seen({ dsAtParent: 'matching' }))).toBeNull();
    expect(nextStep(at('ds_removing', { sinceSeconds: 5 }), seen({ dsAtParent: 'none' }))).toBeNull();
    expect(nextStep(at('ds_removing', { sinceSeconds: 10 }), seen({ dsAtParent: 'none' }))).toEqual({ to: 'unsigning', actions: [] });
  });

  it('unsigning → off once every server serves the zone unsigned, and the keys go', () => {
    expect(nextStep(at('unsigning'), seen({ unsignedServed: false }))).toBeNull();
    expect(nextStep(at('unsigning'), seen({ unsignedServed: true }))).toEqual({ to: 'off', actions: ['forget_keys'] });
  });

  it('asks over DNS only what the state needs', () => {
    expect(needs('off')).toEqual([]);
    expect(needs('keys_published')).toEqual([]);
    expect(needs('signing')).toEqual(['keysServed']);
    expect(needs('active')).toEqual(['dsAtParent', 'chainValid']);
    expect(needs('unsigning')).toEqual(['unsignedServed']);
  });

  it('every state is off, enabling, active or disabling; the zone is signed from signing through ds_removing', () => {
    for (const state of DNSSEC_STATES) {
      expect([state === 'off', ENABLING.includes(state), state === 'active', DISABLING.includes(state)].filter(Boolean)).toHaveLength(1);
    }
    expect(DNSSEC_STATES.filter(isSigned)).toEqual([
      'signing',
      'keys_published',
      'ds_submitted',
      'awaiting_ds',
      'ds_published',
      'validated',
      'active',
      'ds_removing',
    ]);
    expect(cdsPolicy('active')).toBe('keys');
    expect(cdsPolicy('ds_removing')).toBe('delete');
    expect(cdsPolicy('unsigning')).toBe('none');
    expect(cdsPolicy('off')).toBe('none');
  });

  it('next_action: the customer’s step in assisted mode, wait while the service works', () => {
    expect(nextAction('awaiting_ds', 'assisted', 'none')).toBe('add_ds_at_registrar');
    expect(nextAction('ds_removing', 'assisted', 'matching')).toBe('remove_ds_at_registrar');
    expect(nextAction('ds_removing', 'assisted', 'none')).toBe('wait');
    expect(nextAction('active', 'assisted', 'mismatch')).toBe('fix_ds_at_registrar');
    expect(nextAction('active', 'automatic', 'matching')).toBe('none');
    expect(nextAction('signing', 'automatic', null)).toBe('wait');
    expect(nextAction('off', null, null)).toBe('none');
    // A KSK rollover on request: the customer replaces the DS while the new key waits for it.
    expect(nextAction('active', 'assisted', 'matching', 'published')).toBe('replace_ds_at_registrar');
    expect(nextAction('active', 'assisted', 'matching', 'ds_replaced')).toBe('none');
    expect(nextAction('active', 'automatic', 'matching', 'published')).toBe('none');
  });
});

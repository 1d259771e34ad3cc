// The planner's side of managed records: the keeper's own writes (a dynamic DNS host updating its
// address) change its records and nobody else's, and what it creates is kept by it.
import { describe, expect, it } from 'vitest';
import { type PlannedRecord, planChangeSet } from '../../src/domain/changeSets/planChangeSet.js';
import { DomainError } from '../../src/domain/errors.js';

const zone = { name: 'kept.test', kind: 'forward' as const };
const rec = (id: string, name: string, type: 'A' | 'AAAA' | 'TXT', content: string, managedBy: string | null): PlannedRecord => ({
  id,
  name,
  type,
  ttl: 60,
  data: type === 'TXT' ? { text: content } : { address: content },
  content,
  comment: null,
  system: false,
  managedBy,
});
let n = 0;
const newId = () => `rec_new${n++}`;
const existing = [
  rec('rec_a', 'home', 'A', '198.51.100.7', 'dyn_one'),
  rec('rec_t', 'home', 'TXT', '"mine"', null),
  rec('rec_o', 'other', 'A', '192.0.2.1', 'dyn_two'),
];
const code = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e instanceof DomainError ? e.code : String(e);
  }
  return 'planned';
};

describe('planChangeSet with a manager', () => {
  it('the keeper replaces its own RRset; a record it creates is kept by it', () => {
    const plan = planChangeSet({
      zone,
      existing,
      newId,
      manager: 'dyn_one',
      items: [
        { op: 'replace_rrset', name: 'home', type: 'A', ttl: 60, records: [{ address: '203.0.113.5' }] },
        { op: 'create', record: { type: 'AAAA', name: 'home', ttl: 60, data: { address: '2001:db8::5' } } },
      ],
    });
    expect(plan.deleted.map((r) => r.id)).toEqual(['rec_a']);
    expect(plan.created.map((r) => [r.type, r.content, r.managedBy])).toEqual([
      ['A', '203.0.113.5', 'dyn_one'],
      ['AAAA', '2001:db8::5', 'dyn_one'],
    ]);
  });

  it('the keeper may not change the tenant’s records, another keeper’s, or join an RRset it does not keep', () => {
    const write = (items: Parameters<typeof planChangeSet>[0]['items']) => () => planChangeSet({ zone, existing, newId, manager: 'dyn_one', items });
    expect(code(write([{ op: 'delete', id: 'rec_t' }]))).toBe('record_managed');
    expect(code(write([{ op: 'replace_rrset', name: 'other', type: 'A', records: [] }]))).toBe('record_managed');
    expect(code(write([{ op: 'create', record: { type: 'TXT', name: 'home', data: { text: 'two' } } }]))).toBe('record_managed');
  });

  it('without a manager (the record API), kept records are refused and the tenant’s own are not', () => {
    const write = (items: Parameters<typeof planChangeSet>[0]['items']) => () => planChangeSet({ zone, existing, newId, items });
    expect(code(write([{ op: 'update', id: 'rec_a', record: { ttl: 300 } }]))).toBe('record_managed');
    expect(code(write([{ op: 'update', id: 'rec_t', record: { ttl: 300 } }]))).toBe('planned');
  });
});

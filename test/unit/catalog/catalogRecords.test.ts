// A catalog zone's records (RFC 9432 version 2) as the build renders them, read back by a zone
// checker nobody here wrote.
import { describe, expect, it } from 'vitest';
import { catalogRecords, memberLabel, memberOwners } from '../../../src/catalog/catalogRecords.js';
import { absoluteName } from '../../../nameserver/wire/name.js';
import { TYPE } from '../../../nameserver/types.js';
import { record, zoneFileText } from '../../helpers/zoneText.js';
import { requireTool, runTool, tempFile } from '../../helpers/dnsTools.js';

const CATALOG = 'edge.catalog.invalid';
const members = [
  { zoneId: 'zon_0a1b2c', name: 'example.com', group: 'signed' },
  { zoneId: 'zon_0a1b2d', name: '2.0.192.in-addr.arpa', group: null },
  { zoneId: 'zon_0a1b2e', name: 'moved.example', group: 'unsigned', movedTo: 'other.catalog.invalid' },
];

describe('catalog records', () => {
  it('gives each member a 16-character base32hex label of its zone id: the same for the same id, another for a zone created again', () => {
    expect(memberLabel('zon_0a1b2c')).toMatch(/^[0-9a-v]{16}$/);
    expect(memberLabel('zon_0a1b2c')).toBe(memberLabel('zon_0a1b2c'));
    expect(memberLabel('zon_0a1b2c')).not.toBe(memberLabel('zon_0a1b2d'));
    expect(memberOwners('zon_0a1b2c')).toEqual([
      `${memberLabel('zon_0a1b2c')}.zones`,
      `group.${memberLabel('zon_0a1b2c')}.zones`,
      `coo.${memberLabel('zon_0a1b2c')}.zones`,
    ]);
  });

  it('renders version "2" once, a PTR per member, its group and coo where it has them', () => {
    const records = catalogRecords(members, 0);
    const at = (owner: string, type: number) => records.filter((r) => r.name === owner && r.type === type);
    expect(records.filter((r) => r.name === 'version' && r.type === TYPE.TXT)).toHaveLength(1);
    expect(records.filter((r) => r.type === TYPE.PTR && r.name.endsWith('.zones') && !r.name.startsWith('coo.'))).toHaveLength(3);
    const label = memberLabel('zon_0a1b2c');
    expect(at(`${label}.zones`, TYPE.PTR)).toHaveLength(1);
    expect(at(`group.${label}.zones`, TYPE.TXT)).toHaveLength(1);
    expect(at(`group.${memberLabel('zon_0a1b2d')}.zones`, TYPE.TXT)).toHaveLength(0);
    expect(at(`coo.${memberLabel('zon_0a1b2e')}.zones`, TYPE.PTR)).toHaveLength(1);
  });

  it('makes a zone named-checkzone loads, with the members and properties where RFC 9432 puts them', (ctx) => {
    requireTool('named-checkzone', ctx);
    const apex = [
      record(CATALOG, 'SOA', { mname: 'invalid', rname: 'invalid', serial: 1, refresh: 3600, retry: 600, expire: 2147483646, minimum: 0 }, 0),
      record(CATALOG, 'NS', { nameserver: 'invalid' }, 0),
    ];
    const body = catalogRecords(members, 0).map((r) => ({ ...r, name: absoluteName(r.name, CATALOG) }));
    const file = tempFile('catalog.zone', zoneFileText([...apex, ...body]));
    try {
      const run = runTool('named-checkzone', ['-D', '-o', '-', CATALOG, file.file]);
      expect(run.status, run.output).toBe(0);
      expect(run.output).toContain(`version.${CATALOG}.`);
      expect(run.output).toMatch(
        new RegExp(`${memberLabel('zon_0a1b2c')}\\.zones\\.${CATALOG.replace(/\./g, '\\.')}\\.\\s+0\\s+IN\\s+PTR\\s+example\\.com\\.`),
      );
      expect(run.output).toMatch(/IN\s+TXT\s+"signed"/);
    } finally {
      file.remove();
    }
  });
});

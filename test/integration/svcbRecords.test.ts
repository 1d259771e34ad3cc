// HTTPS and SVCB (RFC 9460) as a customer meets them: written through the API as structured data
// (201, and 422 pointing at the offending param), imported from a zone file and exported exactly as
// BIND's named-compilezone writes the same file, the export loaded by BIND and Knot, and the served
// records printed by dig and kdig exactly as the API's `content`.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digQuery } from '../helpers/digClient.js';
import { createRecord, createZone, type DnsLab, listAll, startDnsLab, validationErrors } from '../helpers/dnsLab.js';
import { eventually } from '../helpers/dnsQuery.js';
import { requireTool, runTool, tempFile } from '../helpers/dnsTools.js';
import { rdataFromText } from '../../src/domain/zonefile/rdataFromPresentation.js';

const ZONE = 'svcb-https.test';
const FIXTURE = fs.readFileSync(path.resolve('test/fixtures/zonefiles/svcb-https.zone'), 'utf8');
const ECH = 'AEX+DQBBpQAgACCW2/dfOBZAtQU55/py/BlhdRdaauPAkrERAUwppoeSEgAEAAEAAQASY2xvdWRmbGFyZS1lY2guY29tAAA=';

let lab: DnsLab;
beforeAll(async () => {
  lab = await startDnsLab({ env: { ROLES: 'api,nameserver,worker' } });
  await createZone(lab.customerA, ZONE);
  await createZone(lab.customerA, 'api.svcb.test');
});
afterAll(() => lab?.close());

const api = () => lab.customerA;
const dnsPort = () => lab.service.nameserver!.server.port;
const serviceBindings = async (zone: string) =>
  (await listAll(api(), `/zones/${zone}/records?limit=500`)).filter((r) => r.type === 'HTTPS' || r.type === 'SVCB');

/** `owner TYPE rdata` of the HTTPS and SVCB lines of a master file, blank space collapsed, TTL and class left out. */
const serviceLines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim().split(/[ \t]+/))
    .filter((f) => f.includes('HTTPS') || f.includes('SVCB'))
    .map((f) => {
      const at = f.findIndex((t) => t === 'HTTPS' || t === 'SVCB');
      return [f[0], ...f.slice(at)].join(' ');
    })
    .sort();

/** The RDATA of an answer line (`owner ttl IN TYPE rdata…`) in wire form, read by our zone-file reader, as hex. */
function wireOf(line: string): string {
  const [, , , type, ...rdata] = line.split(' ');
  const wire = rdataFromText(type!, rdata.join(' '));
  expect(wire.ok, `${line}: ${wire.ok ? '' : wire.detail}`).toBe(true);
  return wire.ok ? wire.value.toString('hex') : '';
}

async function untilLive(changesetId: string) {
  await eventually(
    async () => ((await api().get(`/zones/${ZONE}/changesets/${changesetId}`)).body.state === 'live' ? true : undefined),
    15_000,
    'the change set to be live',
  );
}

describe('the API', () => {
  it('creates an HTTPS record from structured data: 201, the stored form and the presentation', async () => {
    const record = await createRecord(api(), 'api.svcb.test', {
      type: 'HTTPS',
      name: '@',
      ttl: 300,
      data: {
        priority: 1,
        target: '.',
        params: { port: 443, alpn: ['h3', 'h2'], ipv4hint: ['192.0.2.1'], ech: ECH, mandatory: ['alpn'], ipv6hint: ['2001:DB8::1'] },
      },
    });
    expect(record.data).toEqual({
      priority: 1,
      target: '.',
      params: { mandatory: ['alpn'], alpn: ['h3', 'h2'], port: 443, ipv4hint: ['192.0.2.1'], ech: ECH, ipv6hint: ['2001:db8::1'] },
    });
    expect(record.content).toBe(`1 . mandatory=alpn alpn="h3,h2" port=443 ipv4hint=192.0.2.1 ech=${ECH} ipv6hint=2001:db8::1`);
    const alias = await createRecord(api(), 'api.svcb.test', { type: 'SVCB', name: '_dns', data: { priority: 0, target: 'doh.example.net' } });
    expect(alias.data).toEqual({ priority: 0, target: 'doh.example.net', params: {} });
    expect(alias.content).toBe('0 doh.example.net.');
  });

  it.each([
    ['HTTPS', { priority: 0, target: 'cdn.example.net', params: { alpn: ['h2'] } }, '/data/params', 'alias_mode_params'],
    ['HTTPS', { priority: 1, target: '.', params: { port: 70000 } }, '/data/params/port', 'invalid_svc_param'],
    ['HTTPS', { priority: 1, target: '.', params: { mandatory: ['mandatory'] } }, '/data/params/mandatory', 'mandatory_lists_itself'],
    ['HTTPS', { priority: 1, target: '.', params: { mandatory: ['port'], alpn: ['h2'] } }, '/data/params/mandatory', 'mandatory_key_missing'],
    ['HTTPS', { priority: 1, target: '.', params: { 'no-default-alpn': true } }, '/data/params/no-default-alpn', 'alpn_required'],
    ['HTTPS', { priority: 1, target: '.', params: { ipv4hint: ['192.0.2.256'] } }, '/data/params/ipv4hint', 'invalid_svc_param'],
    ['HTTPS', { priority: 1, target: '.', params: { ipv6hint: ['2001:db8::g'] } }, '/data/params/ipv6hint', 'invalid_svc_param'],
    ['HTTPS', { priority: 1, target: '.', params: { alpn: ['h2', ''] } }, '/data/params/alpn', 'invalid_svc_param'],
    ['HTTPS', { priority: 1, target: '.', params: { alpn: ['x'.repeat(256)] } }, '/data/params/alpn', 'invalid_svc_param'],
    ['SVCB', { priority: 1, target: '.', params: { alpn: ['h2'], dohpath: '/dns-query' } }, '/data/params/dohpath', 'invalid_dohpath'],
    ['SVCB', { priority: 1, target: '.', params: { alpn: ['h2'], key1: '\\002h2' } }, '/data/params/key1', 'unknown_svc_param'],
    ['SVCB', { priority: 1, target: '.', params: { key65535: '' } }, '/data/params/key65535', 'unknown_svc_param'],
    ['SVCB', { priority: 1, target: '.', params: { ech: 'AEX+' + '!' } }, '/data/params/ech', 'invalid_svc_param'],
    ['SVCB', { priority: 1, target: 'a..example' }, '/data/target', 'empty_label'],
  ])('%s %j → 422 at %s (%s)', async (type, data, pointer, code) => {
    const res = await api().post('/zones/api.svcb.test/records', { type, name: 'bad', data });
    const errors = validationErrors(res);
    expect(errors[0]).toMatchObject({ pointer, code });
  });
});

describe('a zone file with HTTPS and SVCB records', () => {
  let changeset = '';

  it("imports, and the export writes every record as named-compilezone's canonical form of the file", async (ctx) => {
    const compile = requireTool('named-compilezone', ctx);
    const res = await api().post(`/zones/${ZONE}/import`, { zonefile: FIXTURE, mode: 'replace' });
    expect(res.status, res.text).toBe(201);
    changeset = res.body.changeset.id;
    const exported = await api().get(`/zones/${ZONE}/export?include_system=false`);
    expect(exported.status).toBe(200);

    const source = tempFile(`${ZONE}.zone`, FIXTURE);
    try {
      const bind = runTool(compile, ['-i', 'local', '-s', 'full', '-o', '-', ZONE, source.file]);
      expect(bind.status, bind.output).toBe(0);
      expect(serviceLines(exported.text)).toEqual(serviceLines(bind.stdout));
      expect(serviceLines(exported.text)).toHaveLength(7);
    } finally {
      source.remove();
    }
  });

  it('the export is loaded by BIND (named-checkzone) and Knot (kzonecheck), and imports back without a change', async (ctx) => {
    const named = requireTool('named-checkzone', ctx);
    const kzonecheck = requireTool('kzonecheck', ctx);
    const exported = (await api().get(`/zones/${ZONE}/export`)).text;
    const file = tempFile(`${ZONE}.zone`, exported);
    try {
      const bind = runTool(named, ['-i', 'local', ZONE, file.file]);
      expect(bind.status, bind.output).toBe(0);
      const knot = runTool(kzonecheck, ['-o', ZONE, file.file]);
      expect(knot.status, knot.output).toBe(0);
    } finally {
      file.remove();
    }
    const again = await api().post(`/zones/${ZONE}/import`, { zonefile: exported, mode: 'replace', dry_run: true });
    expect(again.status, again.text).toBe(200);
    expect(again.body.diff).toMatchObject({ created: [], updated: [], deleted: [] });
  });

  it('dig and kdig print each served record exactly as the API content; the additional section holds the target addresses', async (ctx) => {
    const tools = [requireTool('dig', ctx), requireTool('kdig', ctx)];
    await untilLive(changeset);
    const records = await serviceBindings(ZONE);
    const byQuestion = new Map<string, string[]>();
    for (const r of records) {
      const owner = r.name === '@' ? `${ZONE}.` : `${r.name}.${ZONE}.`;
      const key = `${owner} ${r.type}`;
      byQuestion.set(key, [...(byQuestion.get(key) ?? []), `${owner} ${r.ttl ?? 3600} IN ${r.type} ${r.content}`]);
    }
    expect(byQuestion.size).toBe(6);
    for (const [question, expected] of byQuestion) {
      const [name, type] = question.split(' ');
      const [dig, kdig] = await Promise.all(tools.map((tool) => digQuery(tool, dnsPort(), name!, type!)));
      expect(dig!.status, dig!.output).toBe('NOERROR');
      expect([...dig!.answer].sort(), `dig ${question}`).toEqual([...expected].sort());
      // Knot 3.2 writes alpn without quotes and keeps "," unescaped when it can: the same RDATA
      // in another spelling, so kdig's lines are read back and compared as wire.
      expect(kdig!.status, kdig!.output).toBe('NOERROR');
      expect(kdig!.answer.map(wireOf).sort(), `kdig ${question}:\n${kdig!.answer.join('\n')}`).toEqual(expected.map(wireOf).sort());
    }
    // RFC 9460 §4.1: TargetName "." in ServiceMode is the owner; its address comes along.
    const apex = await digQuery(tools[0]!, dnsPort(), ZONE, 'HTTPS');
    expect(apex.additional).toContain(`${ZONE}. 300 IN A 192.0.2.1`);
  });
});

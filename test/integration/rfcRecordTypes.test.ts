// SSHFP, URI, HINFO, RP, OPENPGPKEY, SMIMEA, NAPTR, CERT and LOC over real HTTP and PostgreSQL: written
// through the API (201 with the presentation in `content`, 422 with a located pointer for each
// type's main rule), and a zone file holding every one of them imported and exported, the export
// loaded by BIND and Knot and read by BIND exactly as BIND reads the original file.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecord, createZone, type DnsLab, startDnsLab, validationErrors } from '../helpers/dnsLab.js';
import { requireTool, runTool, tempFile } from '../helpers/dnsTools.js';

let lab: DnsLab;
beforeAll(async () => {
  lab = await startDnsLab();
});
afterAll(() => lab?.close());

const api = () => lab.customerA;
const sha1 = 'dd465c09cfa51fb45020cc83316fff21b9ec74ac';
const sha256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const LOCAL_PART_HASH = 'c93f1e400f26708f98cb19d936620da35eec8f72e57f9eec01c1afd6';

describe('the API writes each type', () => {
  const ZONE = 'rfc-api.test';
  beforeAll(async () => {
    await createZone(api(), ZONE);
  });

  it.each([
    ['SSHFP', 'host', { algorithm: 4, fingerprint_type: 2, fingerprint: sha256.toUpperCase() }, `4 2 ${sha256}`],
    ['URI', '_ftp._tcp', { priority: 10, weight: 1, target: 'ftp://ftp1.example.com/public' }, '10 1 "ftp://ftp1.example.com/public"'],
    ['HINFO', '@', { cpu: 'RFC8482', os: '' }, '"RFC8482" ""'],
    ['RP', 'host', { mailbox: 'hostmaster@rfc-api.test', text: 'Info.rfc-api.test.' }, 'hostmaster.rfc-api.test. info.rfc-api.test.'],
    ['OPENPGPKEY', `${LOCAL_PART_HASH}._openpgpkey`, { public_key: 'mQENBFVHm5sB CADrZb/p' }, 'mQENBFVHm5sBCADrZb/p'],
    ['SMIMEA', `${LOCAL_PART_HASH}._smimecert`, { usage: 3, selector: 1, matching_type: 1, certificate_data: sha256 }, `3 1 1 ${sha256}`],
    [
      'NAPTR',
      'sip',
      { order: 100, preference: 10, flags: 'S', services: 'SIP+D2U', regexp: '', replacement: '_sip._udp.example.com' },
      '100 10 "S" "SIP+D2U" "" _sip._udp.example.com.',
    ],
    [
      'NAPTR',
      'enum',
      { order: 100, preference: 10, flags: 'u', services: 'E2U+sip', regexp: '!^.*$!sip:info@example.com!', replacement: '.' },
      '100 10 "u" "E2U+sip" "!^.*$!sip:info@example.com!" .',
    ],
    ['CERT', 'host', { cert_type: 'PGP', key_tag: 0, algorithm: 0, certificate: 'mQENBFVHm5sB' }, '3 0 0 mQENBFVHm5sB'],
    [
      'LOC',
      'host',
      { latitude: 52.3730555, longitude: -4.5, altitude: -2.5, size: 1.5, horizontal_precision: 10000, vertical_precision: 10 },
      '52 22 23.000 N 4 30 0.000 W -2.50m 1m 10000m 10m',
    ],
    ['TYPE65534', 'opaque', { rdata: '0A0B 0C' }, '\\# 3 0a0b0c'],
  ])('%s at %s: 201 and its presentation in content', async (type, name, data, content) => {
    const record = await createRecord(api(), ZONE, { type, name, data });
    expect(record.type).toBe(type);
    expect(record.content).toBe(content);
  });

  it('lists records by a TYPEnnn type (?type=), as by a named one', async () => {
    const res = await api().get(`/zones/${ZONE}/records?type=TYPE65534`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.map((r: any) => [r.type, r.content])).toEqual([['TYPE65534', '\\# 3 0a0b0c']]);
    expect((await api().get(`/zones/${ZONE}/records?type=TYPE1`)).status).toBe(422);
  });

  it.each([
    ['SSHFP', 'host', { algorithm: 1, fingerprint_type: 1, fingerprint: sha256 }, '/data/fingerprint', 'invalid_digest_length'],
    ['SSHFP', 'host', { algorithm: 1, fingerprint_type: 9, fingerprint: sha1 }, '/data/fingerprint_type', 'unknown_fingerprint_type'],
    ['URI', '_ftp._tcp', { priority: 1, weight: 1, target: '' }, '/data/target', 'too_small'],
    ['URI', '_ftp._tcp', { priority: 1, weight: 1, target: 'ftp1.example.com' }, '/data/target', 'invalid_uri'],
    ['HINFO', 'host', { cpu: 'x'.repeat(256), os: 'y' }, '/data/cpu', 'too_big'],
    ['RP', 'host', { mailbox: 'hostmaster', text: '.' }, '/data/mailbox', 'single_label'],
    ['OPENPGPKEY', 'hugh._openpgpkey', { public_key: 'mQENBFVHm5sB' }, '/name', 'owner_not_allowed'],
    ['OPENPGPKEY', `${LOCAL_PART_HASH}._openpgpkey`, { public_key: 'not base64' }, '/data/public_key', 'invalid_base64'],
    [
      'SMIMEA',
      `${LOCAL_PART_HASH}._smimecert`,
      { usage: 3, selector: 1, matching_type: 1, certificate_data: sha1 },
      '/data/certificate_data',
      'invalid_digest_length',
    ],
    [
      'NAPTR',
      'sip',
      { order: 1, preference: 1, flags: 'U', services: 'E2U+sip', regexp: '!^.*$!sip:a@b!', replacement: 'sip.example.com' },
      '/data/replacement',
      'regexp_and_replacement',
    ],
    ['NAPTR', 'sip', { order: 1, preference: 1, flags: 'S!', services: '', regexp: '', replacement: 'sip.example.com' }, '/data/flags', 'invalid_flags'],
    [
      'NAPTR',
      'enum',
      { order: 1, preference: 1, flags: 'U', services: 'E2U+sip', regexp: '!^(.*)$!sip:\\2@b!', replacement: '.' },
      '/data/regexp',
      'invalid_regexp',
    ],
    ['CERT', 'host', { cert_type: 'X509', key_tag: 0, algorithm: 0, certificate: 'AAAA' }, '/data/cert_type', 'invalid_cert_type'],
    ['LOC', 'host', { latitude: 91, longitude: 0, altitude: 0, size: 1, horizontal_precision: 1, vertical_precision: 1 }, '/data/latitude', 'too_big'],
    ['TYPE65534', 'opaque', { rdata: 'xyz' }, '/data/rdata', 'invalid_hex'],
    ['TYPE200', 'opaque', { rdata: '' }, '/type', 'unsupported_type'],
  ])('%s at %s %j → 422 %s %s', async (type, name, data, pointer, code) => {
    const errors = validationErrors(await api().post(`/zones/${ZONE}/records`, { type, name, data }));
    expect(errors[0]).toMatchObject({ pointer, code });
    expect(errors[0].detail).toMatch(/\S/);
  });

  it('refuses a NAPTR regexp BIND refuses in content as in data, and a zone file line of it by number', async () => {
    const content = '100 10 "U" "E2U+sip" "!^(.*)$!sip:\\\\2@b!" .';
    const errors = validationErrors(await api().post(`/zones/${ZONE}/records`, { type: 'NAPTR', name: 'enum', content }));
    expect(errors).toEqual([expect.objectContaining({ pointer: '/content', code: 'invalid_regexp' })]);
    expect(errors[0].detail).toMatch(/regexp.*\\2.*1 group/);

    const zonefile = `$ORIGIN ${ZONE}.\n$TTL 300\nenum NAPTR 100 10 "U" "E2U+sip" "!^(.*)$!sip:\\\\1@b!" .\nenum2 NAPTR ${content}\n`;
    const imported = validationErrors(await api().post(`/zones/${ZONE}/import`, { zonefile, mode: 'merge' }));
    expect(imported.map((e) => [e.pointer, e.line, e.code])).toEqual([['/zonefile', 4, 'invalid_regexp']]);
  });
});

describe('a zone file holding every type', () => {
  const ZONE = 'rfc-types.test';
  const FILE = fs.readFileSync(path.resolve('test/fixtures/zonefiles/rfc-types.zone'), 'utf8');
  let exported: string;

  beforeAll(async () => {
    await createZone(api(), ZONE);
    const res = await api().post(`/zones/${ZONE}/import`, { zonefile: FILE, mode: 'replace' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.skipped.map((s: any) => s.reason)).toEqual(['soa', 'apex_ns', 'apex_ns']);
    const exp = await api().get(`/zones/${ZONE}/export`);
    expect(exp.status).toBe(200);
    exported = exp.text;
  });

  /** named-compilezone's canonical rendition (full style: absolute owners, every TTL) without the SOA and apex NS. */
  function bindRendition(text: string): string[] {
    const compile = requireTool('named-compilezone');
    if (!compile) throw new Error('named-compilezone is not installed');
    const file = tempFile(`${ZONE}.zone`, text);
    try {
      const run = runTool(compile, ['-q', '-i', 'local', '-f', 'text', '-F', 'text', '-s', 'full', '-o', '-', ZONE, file.file]);
      expect(run.status, run.output).toBe(0);
      return run.stdout
        .split('\n')
        .filter((l) => l && !/^\S+\s+\d+\s+IN\s+(SOA|NS)\s/.test(l))
        .map((l) => l.replace(/\s+/g, ' '));
    } finally {
      file.remove();
    }
  }

  it('imports every record (22 of 11 types) and exports each once', () => {
    const lines = exported.split('\n').filter((l) => /\sIN\s+(SSHFP|URI|HINFO|RP|OPENPGPKEY|SMIMEA|NAPTR|CERT|LOC|TYPE65534|TYPE999)\s/.test(l));
    expect(lines).toHaveLength(22);
    expect(new Set(lines).size).toBe(22);
    expect(lines.filter((l) => l.includes('TYPE')).map((l) => l.replace(/\s+/g, ' '))).toEqual([
      'opaque.rfc-types.test. IN TYPE65534 \\# 6 0a0b0c0d0e0f',
      'opaque.rfc-types.test. IN TYPE999 \\# 0',
    ]);
  });

  it('BIND reads the export exactly as it reads the original, names in RP and NAPTR lower case (RFC 4034 §6.2)', (ctx) => {
    requireTool('named-compilezone', ctx);
    const original = bindRendition(FILE).map((l) => {
      const rp = /^(\S+ \d+ IN RP )(.*)$/.exec(l);
      if (rp) return rp[1] + rp[2]!.toLowerCase();
      const naptr = /^(.* )(\S+)$/.exec(l);
      return / IN NAPTR /.test(l) && naptr ? naptr[1] + naptr[2]!.toLowerCase() : l;
    });
    expect(original).toContain('host.rfc-types.test. 3600 IN RP hostmaster.rfc-types.test. info.rfc-types.test.');
    expect(bindRendition(exported)).toEqual(original);
  });

  it('Knot (kzonecheck) and BIND (named-checkzone) load the export without a word', (ctx) => {
    const kzonecheck = requireTool('kzonecheck', ctx);
    const named = requireTool('named-checkzone', ctx);
    const file = tempFile(`${ZONE}.zone`, exported);
    try {
      const knot = runTool(kzonecheck, ['-o', ZONE, file.file]);
      expect(knot.status, knot.output).toBe(0);
      expect(knot.output).toBe('');
      const bind = runTool(named, ['-i', 'local', ZONE, file.file]);
      expect(bind.status, bind.output).toBe(0);
      expect(bind.output).toMatch(/loaded serial \d+\nOK\n$/);
    } finally {
      file.remove();
    }
  });

  it('the export imported again changes nothing', async () => {
    const res = await api().post(`/zones/${ZONE}/import`, { zonefile: exported, mode: 'replace', dry_run: true });
    expect(res.status, res.text).toBe(200);
    expect(res.body.diff).toMatchObject({ created: [], deleted: [], updated: [] });
  });
});

describe('the OpenAPI document', () => {
  it('describes each type’s data: its fields, which are required, and their ranges', async () => {
    const doc: any = await (await fetch(`${lab.url}/api/v1/openapi.json`)).json();
    const schemas = doc.components.schemas;
    expect(schemas.RecordDataSSHFP).toMatchObject({
      type: 'object',
      required: ['algorithm', 'fingerprint_type', 'fingerprint'],
      properties: { algorithm: { type: 'integer', maximum: 255 } },
      additionalProperties: false,
    });
    expect(schemas.RecordDataNAPTR.required).toEqual(['order', 'preference', 'flags', 'services', 'regexp', 'replacement']);
    expect(schemas.RecordDataCERT.properties.cert_type.type).toEqual(['number', 'string']);
    for (const type of ['URI', 'HINFO', 'RP', 'OPENPGPKEY', 'SMIMEA', 'LOC', 'TLSA', 'A']) expect(schemas[`RecordData${type}`]?.type, type).toBe('object');
  });
});

describe('DNAME', () => {
  it('is refused with the reason: no CNAME synthesis here (RFC 6672 §3.3)', async () => {
    await createZone(api(), 'rfc-dname.test');
    const errors = validationErrors(await api().post('/zones/rfc-dname.test/records', { type: 'DNAME', name: 'old', data: { target: 'new.example.com' } }));
    expect(errors[0]).toMatchObject({ pointer: '/type', code: 'unsupported_type' });
    expect(errors[0].detail).toMatch(/DNAME is not supported.*RFC 6672/);
  });
});

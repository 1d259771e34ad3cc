// Zone files over real HTTP and real PostgreSQL (spec "Import rules", "Export rules";
// docs/zonefiles.md): what the export looks like and that BIND (named-checkzone) and Knot
// (kzonecheck) load it; import as JSON and as a multipart upload, merge and replace, dry runs,
// the change set, Idempotency-Key, skipped records, per-line errors, the size limit; the round
// trip export → import of random zones (fast-check); files as BIND and Knot write them; and
// random and mutated files that must never make the service fail.
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import type { ApiClient, ApiResponse } from '../helpers/apiClient.js';
import { created, expectProblem } from '../helpers/assertions.js';
import { createRecord, createZone, type DnsLab, listAll, newCustomer, startDnsLab, validationErrors } from '../helpers/dnsLab.js';
import { checkWithBindAndKnot, requireTool, runTool, tempFile } from '../helpers/dnsTools.js';

let lab: DnsLab;
beforeAll(async () => {
  lab = await startDnsLab();
});
afterAll(() => lab?.close());

const MiB = 1024 * 1024;
const FIXTURES = path.resolve('test/fixtures/zonefiles');
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');

const api = () => lab.customerA;
const exportOf = (zone: string, query = '', client: ApiClient = api(), headers: Record<string, string> = {}) =>
  client.get(`/zones/${zone}/export${query}`, { headers });
const importJson = (zone: string, body: Record<string, unknown>, headers: Record<string, string> = {}, client: ApiClient = api()) =>
  client.post(`/zones/${zone}/import`, body, { headers });

/** POST /zones/{zone}/import as multipart/form-data (fetch builds the body from FormData). */
async function upload(
  zone: string,
  fields: { file?: string | Uint8Array<ArrayBuffer>; mode?: string; dry_run?: string },
  headers: Record<string, string> = {},
  token: string = lab.tokens.customers[0],
): Promise<ApiResponse> {
  const form = new FormData();
  if (fields.mode !== undefined) form.append('mode', fields.mode);
  if (fields.dry_run !== undefined) form.append('dry_run', fields.dry_run);
  if (fields.file !== undefined) form.append('file', new Blob([fields.file], { type: 'text/dns' }), `${zone}.zone`);
  const res = await fetch(`${lab.url}/api/v1/zones/${zone}/import`, { method: 'POST', headers: { authorization: `Bearer ${token}`, ...headers }, body: form });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text };
}

const allRecords = (zone: string, client: ApiClient = api()) => listAll(client, `/zones/${zone}/records?limit=500`);
const userRecords = async (zone: string, client: ApiClient = api()) => (await allRecords(zone, client)).filter((r) => !r.system);
const changeSets = (zone: string, client: ApiClient = api()) => listAll(client, `/zones/${zone}/changesets?limit=500`);
/** Records as a person reads them: owner, TTL ("-": the zone default), type, RDATA. */
const rows = (list: any[]) => list.map((r) => `${r.name} ${r.ttl ?? '-'} ${r.type} ${r.content}`).sort();

/** The record lines of an exported file, runs of blank space as one space (no TXT here holds two spaces in a row). */
const recordLines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith(';') && !l.startsWith('$'))
    .map((l) => l.replace(/[ \t]+/g, ' '));

/**
 * The <character-string>s of a TXT presentation as octets, decoded independently of the service:
 * `\DDD` is one octet, `\X` is X.
 */
function characterStrings(rdata: string): Buffer[] {
  const out: Buffer[] = [];
  let i = 0;
  while (i < rdata.length) {
    if (rdata[i] === ' ') {
      i++;
      continue;
    }
    expect(rdata[i], `a quoted string at ${i} of ${rdata}`).toBe('"');
    const octets: number[] = [];
    i++;
    while (rdata[i] !== '"') {
      expect(i).toBeLessThan(rdata.length);
      if (rdata[i] === '\\') {
        if (/^[0-9]{3}$/.test(rdata.slice(i + 1, i + 4))) {
          octets.push(Number(rdata.slice(i + 1, i + 4)));
          i += 4;
        } else {
          octets.push(...Buffer.from(rdata[i + 1]!, 'utf8'));
          i += 2;
        }
      } else {
        octets.push(...Buffer.from(rdata[i]!, 'utf8'));
        i++;
      }
    }
    i++;
    out.push(Buffer.from(octets));
  }
  return out;
}

/** 600 octets of UTF-8 with quotes, a backslash and non-ASCII letters (not cut inside a character). */
const TXT600 = (() => {
  let text = '';
  const piece = 'DKIM "quoted" back\\slash grüße 日本 ';
  while (Buffer.byteLength(text + piece) <= 600) text += piece;
  return text + 'x'.repeat(600 - Buffer.byteLength(text));
})();
const SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

describe('export', () => {
  const ZONE = 'export.test';
  // Every forward type, each in its stored form and as the export must show it (absolute names,
  // TTL only where the record has its own, TXT in quoted 255-octet strings).
  const RECORDS: [Record<string, unknown>, string][] = [
    [{ type: 'A', name: '@', data: { address: '192.0.2.1' } }, `${ZONE}. IN A 192.0.2.1`],
    [{ type: 'A', name: 'www', ttl: 300, data: { address: '192.0.2.10' } }, `www.${ZONE}. 300 IN A 192.0.2.10`],
    [{ type: 'A', name: 'www', ttl: 300, data: { address: '192.0.2.11' } }, `www.${ZONE}. 300 IN A 192.0.2.11`],
    [{ type: 'AAAA', name: 'www', ttl: 300, data: { address: '2001:DB8:0::10' } }, `www.${ZONE}. 300 IN AAAA 2001:db8::10`],
    [{ type: 'CNAME', name: 'alias', data: { target: `www.${ZONE}.` } }, `alias.${ZONE}. IN CNAME www.${ZONE}.`],
    [{ type: 'MX', name: '@', data: { preference: 10, exchange: `mail.${ZONE}` } }, `${ZONE}. IN MX 10 mail.${ZONE}.`],
    [{ type: 'MX', name: '@', data: { preference: 20, exchange: 'mx.example.net' } }, `${ZONE}. IN MX 20 mx.example.net.`],
    [{ type: 'MX', name: 'nomail', data: { preference: 0, exchange: '.' } }, `nomail.${ZONE}. IN MX 0 .`],
    [{ type: 'A', name: 'mail', data: { address: '192.0.2.25' } }, `mail.${ZONE}. IN A 192.0.2.25`],
    [{ type: 'TXT', name: '@', data: { text: 'v=spf1 mx -all' } }, `${ZONE}. IN TXT "v=spf1 mx -all"`],
    [{ type: 'TXT', name: 'long', ttl: 600, data: { text: TXT600 } }, ''], // checked string by string below
    [
      { type: 'SRV', name: '_sip._tcp', data: { priority: 10, weight: 60, port: 5060, target: 'sip.example.net' } },
      `_sip._tcp.${ZONE}. IN SRV 10 60 5060 sip.example.net.`,
    ],
    [{ type: 'SRV', name: '_imap._tcp', data: { priority: 0, weight: 0, port: 0, target: '.' } }, `_imap._tcp.${ZONE}. IN SRV 0 0 0 .`],
    [{ type: 'CAA', name: '@', data: { flags: 0, tag: 'issue', value: 'letsencrypt.org' } }, `${ZONE}. IN CAA 0 issue "letsencrypt.org"`],
    [
      { type: 'CAA', name: '@', data: { flags: 128, tag: 'iodef', value: 'mailto:security@example.net' } },
      `${ZONE}. IN CAA 128 iodef "mailto:security@example.net"`,
    ],
    [{ type: 'CAA', name: '@', data: { flags: 0, tag: 'issuewild', value: ';' } }, `${ZONE}. IN CAA 0 issuewild ";"`],
    [
      { type: 'TLSA', name: '_443._tcp.www', data: { usage: 3, selector: 1, matching_type: 1, certificate_data: SHA256.toUpperCase() } },
      `_443._tcp.www.${ZONE}. IN TLSA 3 1 1 ${SHA256}`,
    ],
    [{ type: 'NS', name: 'sub', data: { nameserver: `ns1.sub.${ZONE}` } }, `sub.${ZONE}. IN NS ns1.sub.${ZONE}.`],
    [{ type: 'NS', name: 'sub', data: { nameserver: 'ns2.example.net' } }, `sub.${ZONE}. IN NS ns2.example.net.`],
    [{ type: 'A', name: 'ns1.sub', data: { address: '192.0.2.53' } }, `ns1.sub.${ZONE}. IN A 192.0.2.53`],
    [{ type: 'AAAA', name: 'ns1.sub', data: { address: '2001:db8::53' } }, `ns1.sub.${ZONE}. IN AAAA 2001:db8::53`],
    [{ type: 'A', name: '*.dev', data: { address: '192.0.2.99' } }, `*.dev.${ZONE}. IN A 192.0.2.99`],
    [{ type: 'A', name: 'bücher', data: { address: '192.0.2.77' } }, `xn--bcher-kva.${ZONE}. IN A 192.0.2.77`],
  ];
  let zone: any;
  beforeAll(async () => {
    await createZone(api(), ZONE);
    const res = await api().post(`/zones/${ZONE}/changesets`, { changes: RECORDS.map(([record]) => ({ op: 'create', record })) });
    expect(res.status, res.text).toBe(201);
    zone = (await api().get(`/zones/${ZONE}`)).body;
  });

  it('is text/dns: $TTL, the SOA first, then the apex NS set, then every record with an absolute owner and trailing dots', async () => {
    const res = await exportOf(ZONE);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/dns; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBeNull();
    expect(res.text.split('\n').filter((l) => l.startsWith('$'))).toEqual([`$TTL ${zone.default_ttl}`]);
    const lines = recordLines(res.text);
    expect(lines).toHaveLength(3 + RECORDS.length);
    expect(lines[0]).toMatch(new RegExp(`^${ZONE}\\. IN SOA ns1\\.lab-dns\\.test\\. hostmaster\\.lab-dns\\.test\\. ${zone.serial} 10800 3600 1209600 300$`));
    expect(lines.slice(1, 3)).toEqual([`${ZONE}. IN NS ns1.lab-dns.test.`, `${ZONE}. IN NS ns2.lab-dns.test.`]);
    const rest = lines.slice(3);
    expect(rest.filter((l) => !l.startsWith(`long.${ZONE}.`)).sort()).toEqual(
      RECORDS.map(([, line]) => line)
        .filter(Boolean)
        .sort(),
    );
    for (const line of lines) expect(line.split(' ')[0]).toMatch(/\.$/);
  });

  it('splits a 600-octet TXT (quotes, backslash, non-ASCII) into 255-octet strings that join to the text', async () => {
    const res = await exportOf(ZONE);
    const line = recordLines(res.text).find((l) => l.startsWith(`long.${ZONE}. 600 IN TXT `))!;
    expect(line).toBeDefined();
    // Pure ASCII on the wire of the file: non-ASCII octets are \DDD escapes.
    expect(line).toMatch(/^[\x20-\x7e]+$/);
    const strings = characterStrings(line.slice(`long.${ZONE}. 600 IN TXT `.length));
    expect(strings.map((s) => s.length)).toEqual([255, 255, 90]);
    expect(Buffer.concat(strings).toString('utf8')).toBe(TXT600);
  });

  it('is loaded without a single warning by BIND (named-checkzone) and Knot (kzonecheck)', async (ctx) => {
    const res = await exportOf(ZONE);
    const { bind, knot } = checkWithBindAndKnot(ctx, ZONE, res.text);
    expect(bind).toBe(`zone ${ZONE}/IN: loaded serial ${zone.serial}\nOK\n`);
    expect(knot).toBe('');
  });

  it("BIND reads the same records: named-compilezone's rendition imports back without a change but the spelled-out default TTL", async (ctx) => {
    const compile = requireTool('named-compilezone', ctx);
    const file = tempFile(`${ZONE}.zone`, (await exportOf(ZONE)).text);
    let compiled: string;
    try {
      const run = runTool(compile, ['-i', 'local', '-o', '-', ZONE, file.file]);
      expect(run.status, run.output).toBe(0);
      compiled = run.stdout;
    } finally {
      file.remove();
    }
    expect(compiled).not.toContain('$TTL'); // full style: every line carries its TTL
    const res = await importJson(ZONE, { zonefile: compiled, mode: 'replace', dry_run: true });
    expect(res.status, res.text).toBe(200);
    expect(res.body.diff.created).toEqual([]);
    expect(res.body.diff.deleted).toEqual([]);
    const followingDefault = (await userRecords(ZONE)).filter((r) => r.ttl === null);
    expect(followingDefault.length).toBeGreaterThan(5);
    expect(rows(res.body.diff.updated.map((u: any) => u.before))).toEqual(rows(followingDefault));
    for (const u of res.body.diff.updated) expect(u.after).toEqual({ ...u.before, ttl: zone.default_ttl });
  });

  it('include_system=false leaves out the SOA and the apex NS set (and only those)', async () => {
    const full = recordLines((await exportOf(ZONE)).text);
    const res = await exportOf(ZONE, '?include_system=false');
    expect(res.status, res.text).toBe(200);
    const lines = recordLines(res.text);
    expect(lines.some((l) => / IN SOA /.test(l))).toBe(false);
    expect(lines.filter((l) => l.startsWith(`${ZONE}. IN NS `))).toEqual([]);
    expect(lines).toEqual(full.slice(3));
    // The delegation below the apex is data, not a system record.
    expect(lines).toContain(`sub.${ZONE}. IN NS ns2.example.net.`);
  });

  it('download=true: Content-Disposition attachment with filename "<zone>.zone", same content', async () => {
    const plain = await exportOf(ZONE);
    const res = await exportOf(ZONE, '?download=true');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${ZONE}.zone"`);
    expect(res.headers.get('content-type')).toBe('text/dns; charset=utf-8');
    expect(res.text).toBe(plain.text);
    const idn = await createZone(api(), 'bücher-export.test');
    const own = await exportOf('bücher-export.test', '?download=true&include_system=false');
    expect(own.headers.get('content-disposition')).toBe(`attachment; filename="${idn.name}.zone"`);
    expect(idn.name).toBe('xn--bcher-export-dlb.test');
  });

  it('has an ETag: If-None-Match gives 304 until the zone changes', async () => {
    const Z = 'etag-export.test';
    await createZone(api(), Z);
    await createRecord(api(), Z, { type: 'A', name: 'www', data: { address: '192.0.2.1' } });
    const first = await exportOf(Z);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[^"]+"$/);
    const again = await exportOf(Z, '', api(), { 'If-None-Match': etag! });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect((await exportOf(Z, '', api(), { 'If-None-Match': '"something-else"' })).status).toBe(200);

    await createRecord(api(), Z, { type: 'A', name: 'www', data: { address: '192.0.2.2' } });
    const changed = await exportOf(Z, '', api(), { 'If-None-Match': etag! });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(recordLines(changed.text)).toContain(`www.${Z}. IN A 192.0.2.2`);

    // The zone default changes $TTL, and records that follow it stay without a TTL of their own.
    expect((await api().patch(`/zones/${Z}`, { default_ttl: 7200 })).status).toBe(200);
    const retimed = await exportOf(Z, '', api(), { 'If-None-Match': changed.headers.get('etag')! });
    expect(retimed.status).toBe(200);
    expect(retimed.text).toContain('\n$TTL 7200\n');
    expect(recordLines(retimed.text)).toContain(`www.${Z}. IN A 192.0.2.1`);
  });

  it('404 for a zone of another customer (and for no zone at all), also on import', async () => {
    await createZone(lab.customerB, 'foreign-export.test');
    await createRecord(lab.customerB, 'foreign-export.test', { type: 'TXT', name: '@', data: { text: 'secret of B' } });
    expectProblem(await exportOf('foreign-export.test'), 404, 'not_found');
    expectProblem(await exportOf('no-such-zone.test'), 404, 'not_found');
    expectProblem(await importJson('foreign-export.test', { zonefile: 'x A 192.0.2.1\n', dry_run: true }), 404, 'not_found');
    expectProblem(await upload('foreign-export.test', { file: 'x A 192.0.2.1\n', dry_run: 'true' }), 404, 'not_found');
    // B itself sees its data.
    expect((await exportOf('foreign-export.test', '', lab.customerB)).text).toContain('"secret of B"');
  });

  describe('scopes: export needs zones:read AND records:read, import zones:write AND records:write', () => {
    const issue = async (scopes: string[]) => {
      const tenant = lab.tokens.tenants.customers[0];
      const client = await created(await lab.reseller.post(`/tenants/${tenant}/api-clients`, { name: `zone files ${scopes.join(' ')}` }));
      const token = await created(await lab.reseller.post(`/api-clients/${client.id}/tokens`, { name: 'zone files', scopes }));
      return { client: lab.as(token.token), token: token.token as string };
    };

    it('export', async () => {
      expectProblem(await exportOf(ZONE, '', (await issue(['zones:read'])).client), 403, 'insufficient_scope');
      expectProblem(await exportOf(ZONE, '', (await issue(['records:read'])).client), 403, 'insufficient_scope');
      expectProblem(await exportOf(ZONE, '', (await issue(['zones:write', 'records:write'])).client), 403, 'insufficient_scope');
      const both = await exportOf(ZONE, '', (await issue(['zones:read', 'records:read'])).client);
      expect(both.status, both.text).toBe(200);
      expect(both.text).toBe((await exportOf(ZONE)).text);
    });

    it('import (JSON and upload)', async () => {
      const body = { zonefile: 'scoped A 192.0.2.1\n', dry_run: true };
      for (const scopes of [['zones:write'], ['records:write'], ['zones:read', 'records:read']]) {
        const { client, token } = await issue(scopes);
        expectProblem(await importJson(ZONE, body, {}, client), 403, 'insufficient_scope');
        expectProblem(await upload(ZONE, { file: body.zonefile, dry_run: 'true' }, {}, token), 403, 'insufficient_scope');
      }
      const { client, token } = await issue(['zones:write', 'records:write']);
      expect((await importJson(ZONE, body, {}, client)).status).toBe(200);
      expect((await upload(ZONE, { file: body.zonefile, dry_run: 'true' }, {}, token)).status).toBe(200);
    });
  });
});

describe('import', () => {
  it('merge adds only what is missing: existing records stay (ids, TTLs), `unchanged` counts the rest; dry run first', async () => {
    const Z = 'merge.test';
    await createZone(api(), Z);
    const www1 = await createRecord(api(), Z, { type: 'A', name: 'www', ttl: 300, data: { address: '192.0.2.1' } });
    const mail = await createRecord(api(), Z, { type: 'A', name: 'mail', data: { address: '192.0.2.25' } });
    const spf = await createRecord(api(), Z, { type: 'TXT', name: '@', data: { text: 'v=spf1 mx -all' } });
    const before = await allRecords(Z);
    const setsBefore = await changeSets(Z);
    const zonefile = [
      `$ORIGIN ${Z}.`,
      '$TTL 3600',
      'www 600 IN A 192.0.2.1 ; there already',
      'www 600 IN A 192.0.2.2 ; joins the RRset, takes its TTL (300)',
      'new IN AAAA 2001:db8::1',
      '@ IN TXT "v=spf1 mx -all"',
      '',
    ].join('\n');

    const dry = await importJson(Z, { zonefile, dry_run: true });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body).toMatchObject({ dry_run: true, summary: { created: 2, updated: 0, deleted: 0 }, unchanged: 2, skipped: [] });
    expect(rows(dry.body.diff.created)).toEqual(['new - AAAA 2001:db8::1', 'www 300 A 192.0.2.2']);
    expect(await allRecords(Z)).toEqual(before);
    expect(await changeSets(Z)).toEqual(setsBefore);

    const res = await importJson(Z, { zonefile }); // mode merge is the default
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      unchanged: 2,
      skipped: [],
      changeset: { kind: 'import', state: 'pending', summary: { created: 2, updated: 0, deleted: 0 } },
    });
    expect(rows(await userRecords(Z))).toEqual([
      '@ - TXT "v=spf1 mx -all"',
      'mail - A 192.0.2.25',
      'new - AAAA 2001:db8::1',
      'www 300 A 192.0.2.1',
      'www 300 A 192.0.2.2',
    ]);
    const after = await userRecords(Z);
    for (const kept of [www1, mail, spf]) expect(after.find((r) => r.id === kept.id)).toMatchObject({ content: kept.content, ttl: kept.ttl });

    // The same file again: nothing left to add.
    const again = await importJson(Z, { zonefile, dry_run: true });
    expect(again.body).toMatchObject({ summary: { created: 0, updated: 0, deleted: 0 }, unchanged: 4 });
  });

  it('CAA with any well-formed tag (RFC 8659 §4.1) imports, critical or not, and exports as it came', async () => {
    const Z = 'caa-tags.test';
    await createZone(api(), Z);
    const zonefile = [
      `$ORIGIN ${Z}.`,
      '@ 3600 IN CAA 128 tag0 "critical"',
      '@ 3600 IN CAA 0 contactemail "security@caa-tags.test"',
      '@ 3600 IN CAA 0 issue "letsencrypt.org"',
      'generic 3600 IN CAA \\# 14 80 04 74616731 6372697469636131', // 128 tag1 "critica1"
      '',
    ].join('\n');
    const res = await importJson(Z, { zonefile });
    expect(res.status, res.text).toBe(201);
    expect(rows(await userRecords(Z))).toEqual([
      '@ 3600 CAA 0 contactemail "security@caa-tags.test"',
      '@ 3600 CAA 0 issue "letsencrypt.org"',
      '@ 3600 CAA 128 tag0 "critical"',
      'generic 3600 CAA 128 tag1 "critica1"',
    ]);
    const exported = recordLines((await exportOf(Z, '?include_system=false')).text);
    expect(exported).toContain(`${Z}. 3600 IN CAA 128 tag0 "critical"`);
    // A tag that is not 1–15 letters and digits is still refused, with its line.
    const bad = await importJson(Z, { zonefile: `@ 3600 IN CAA 0 tag_0 "x"\n` });
    expect(validationErrors(bad)).toEqual([expect.objectContaining({ code: 'invalid_tag' })]);
  });

  it('replace makes the zone match the file: absent records deleted, unchanged ones keep their ids, system records untouched', async () => {
    const Z = 'replace.test';
    await createZone(api(), Z);
    const keep = await createRecord(api(), Z, { type: 'A', name: 'www', ttl: 300, data: { address: '192.0.2.1' } });
    await createRecord(api(), Z, { type: 'A', name: 'www', ttl: 300, data: { address: '192.0.2.2' } });
    await createRecord(api(), Z, { type: 'CNAME', name: 'ftp', data: { target: `www.${Z}` } });
    const mx = await createRecord(api(), Z, { type: 'MX', name: '@', data: { preference: 10, exchange: `mail.${Z}` } });
    await createRecord(api(), Z, { type: 'TXT', name: '@', data: { text: 'v=spf1 -all' } });
    const system = (await allRecords(Z)).filter((r) => r.system);
    expect(system.map((r) => r.type).sort()).toEqual(['NS', 'NS', 'SOA']);
    const zonefile = [
      `$ORIGIN ${Z}.`,
      '$TTL 3600',
      '@ IN SOA ns.elsewhere.example. hostmaster.elsewhere.example. 1 7200 900 1209600 60',
      '@ IN NS ns.elsewhere.example.',
      'www 300 IN A 192.0.2.1',
      'www 300 IN A 192.0.2.3',
      '@ IN MX 10 mail',
      'mail IN A 192.0.2.25',
      '',
    ].join('\n');

    const dry = await importJson(Z, { zonefile, mode: 'replace', dry_run: true });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.summary).toEqual({ created: 2, updated: 0, deleted: 3 });
    expect(rows(dry.body.diff.created)).toEqual(['mail - A 192.0.2.25', 'www 300 A 192.0.2.3']);
    expect(rows(dry.body.diff.deleted)).toEqual(['@ - TXT "v=spf1 -all"', `ftp - CNAME www.${Z}.`, 'www 300 A 192.0.2.2']);
    expect(dry.body.unchanged).toBe(2);
    expect(dry.body.skipped).toEqual([
      { line: 3, owner: Z, type: 'SOA', reason: 'soa' },
      { line: 4, owner: Z, type: 'NS', reason: 'apex_ns' },
    ]);

    const res = await importJson(Z, { zonefile, mode: 'replace' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.changeset.summary).toEqual({ created: 2, updated: 0, deleted: 3 });
    expect(rows(await userRecords(Z))).toEqual([`@ - MX 10 mail.${Z}.`, 'mail - A 192.0.2.25', 'www 300 A 192.0.2.1', 'www 300 A 192.0.2.3']);
    const after = await allRecords(Z);
    expect(after.find((r) => r.content === '192.0.2.1')?.id).toBe(keep.id);
    expect(after.find((r) => r.type === 'MX')?.id).toBe(mx.id);
    // The SOA and apex NS are the service's: the file's SOA and NS changed nothing.
    const systemAfter = after.filter((r) => r.system);
    expect(systemAfter.map((r) => [r.id, r.type, r.content])).toEqual(system.map((r) => [r.id, r.type, r.content]));
    expect(recordLines((await exportOf(Z)).text).filter((l) => l.includes(' IN NS '))).toEqual([
      `${Z}. IN NS ns1.lab-dns.test.`,
      `${Z}. IN NS ns2.lab-dns.test.`,
    ]);
  });

  it('applied: 201 with the change set and its Location; the change set is kind import and one atomic unit', async () => {
    const Z = 'applied.test';
    await createZone(api(), Z);
    const before = (await changeSets(Z)).length;
    const res = await importJson(Z, { zonefile: 'a IN A 192.0.2.1\nb IN A 192.0.2.2\nc IN TXT "three"\n', mode: 'merge', dry_run: false });
    expect(res.status, res.text).toBe(201);
    const location = res.headers.get('location');
    expect(location).toBe(`/api/v1/zones/${Z}/changesets/${res.body.changeset.id}`);
    // Spec: an applied import's 201 carries Idempotent-Replayed, false when no key was sent.
    expect(res.headers.get('idempotent-replayed')).toBe('false');
    const cs = await api().get(location!);
    expect(cs.status, cs.text).toBe(200);
    expect(cs.body).toMatchObject({ id: res.body.changeset.id, kind: 'import', state: 'pending', summary: { created: 3, updated: 0, deleted: 0 } });
    expect(cs.body.results.flatMap((r: any) => r.record_ids)).toHaveLength(3);
    expect((await changeSets(Z)).length).toBe(before + 1);
    const recs = await userRecords(Z);
    expect(new Set(recs.map((r) => r.publication.changeset_id))).toEqual(new Set([res.body.changeset.id]));
    expect(new Set(recs.map((r) => r.id))).toEqual(new Set(cs.body.results.flatMap((r: any) => r.record_ids)));
  });

  it('multipart/form-data upload: file, mode and dry_run fields', async () => {
    const Z = 'upload.test';
    await createZone(api(), Z);
    await createRecord(api(), Z, { type: 'A', name: 'old', data: { address: '192.0.2.9' } });
    const file = `$ORIGIN ${Z}.\nwww 300 IN A 192.0.2.1\n@ IN MX 10 mail.example.net.\n`;

    const dry = await upload(Z, { file, mode: 'replace', dry_run: 'true' });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.summary).toEqual({ created: 2, updated: 0, deleted: 1 });
    expect(rows(await userRecords(Z))).toEqual(['old - A 192.0.2.9']);

    const merged = await upload(Z, { file }); // merge, applied: the defaults
    expect(merged.status, merged.text).toBe(201);
    expect(merged.body.changeset).toMatchObject({ kind: 'import', summary: { created: 2, updated: 0, deleted: 0 } });
    expect(merged.headers.get('location')).toBe(`/api/v1/zones/${Z}/changesets/${merged.body.changeset.id}`);
    // No $TTL: the MX takes the TTL last written (300), as RFC 1035 §5.1 and BIND have it.
    expect(rows(await userRecords(Z))).toEqual(['@ 300 MX 10 mail.example.net.', 'old - A 192.0.2.9', 'www 300 A 192.0.2.1']);

    const replaced = await upload(Z, { file, mode: 'replace', dry_run: 'false' });
    expect(replaced.status, replaced.text).toBe(201);
    expect(replaced.body).toMatchObject({ unchanged: 2, changeset: { summary: { created: 0, updated: 0, deleted: 1 } } });
    expect(rows(await userRecords(Z))).toEqual(['@ 300 MX 10 mail.example.net.', 'www 300 A 192.0.2.1']);

    // A file that is not UTF-8 text is read as text all the same and rejected by line, not with a 500.
    const binary = await upload(Z, { file: Uint8Array.from([0x77, 0x77, 0x77, 0x20, 0x41, 0x20, 0xff, 0xfe, 0x0a]), dry_run: 'true' });
    expect(validationErrors(binary)).toEqual([expect.objectContaining({ line: 1, pointer: '/zonefile' })]);
    // Without the file field there is nothing to import.
    expect(validationErrors(await upload(Z, { mode: 'merge', dry_run: 'true' })).map((e) => e.pointer)).toEqual(['/zonefile']);
  });

  describe('Idempotency-Key', () => {
    it('JSON: the first response is replayed (Idempotent-Replayed: true), one change set stored', async () => {
      const Z = 'idem-json.test';
      await createZone(api(), Z);
      const body = { zonefile: 'www IN A 192.0.2.1\n' };
      const first = await importJson(Z, body, { 'Idempotency-Key': 'zone-import-1' });
      expect(first.status, first.text).toBe(201);
      expect(first.headers.get('idempotent-replayed')).toBe('false');
      const count = (await changeSets(Z)).length;
      const second = await importJson(Z, body, { 'Idempotency-Key': 'zone-import-1' });
      expect(second.status).toBe(201);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(second.body).toEqual(first.body);
      expect(second.headers.get('location')).toBe(first.headers.get('location'));
      expect((await changeSets(Z)).length).toBe(count);
      expect(rows(await userRecords(Z))).toEqual(['www - A 192.0.2.1']);
      expectProblem(await importJson(Z, { zonefile: 'www IN A 192.0.2.2\n' }, { 'Idempotency-Key': 'zone-import-1' }), 422, 'idempotency_key_reused');
    });

    it('upload: the key covers the file content (a new multipart body with the same file replays; another file is refused)', async () => {
      const Z = 'idem-upload.test';
      await createZone(api(), Z);
      const first = await upload(Z, { file: 'www IN A 192.0.2.1\n' }, { 'Idempotency-Key': 'zone-upload-1' });
      expect(first.status, first.text).toBe(201);
      const count = (await changeSets(Z)).length;
      const second = await upload(Z, { file: 'www IN A 192.0.2.1\n' }, { 'Idempotency-Key': 'zone-upload-1' });
      expect(second.status).toBe(201);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(second.body).toEqual(first.body);
      expect((await changeSets(Z)).length).toBe(count);
      expectProblem(await upload(Z, { file: 'www IN A 192.0.2.2\n' }, { 'Idempotency-Key': 'zone-upload-1' }), 422, 'idempotency_key_reused');
      expect(rows(await userRecords(Z))).toEqual(['www - A 192.0.2.1']);
    });
  });

  it('`skipped` lists SOA, apex NS, DNSSEC records and unsupported types with their lines; the rest is imported', async () => {
    const Z = 'skipped.test';
    await createZone(api(), Z);
    const zonefile = [
      `$ORIGIN ${Z}.`, // 1
      '@ 3600 IN SOA ns1.example.net. hostmaster.example.net. ( 1 7200 900', // 2
      '    1209600 300 )', // 3
      '@ IN NS ns1.example.net.', // 4
      '  IN NS ns2.example.net.', // 5
      '@ IN DNSKEY 257 3 13 mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ==', // 6
      '@ IN RRSIG SOA 13 2 3600 20240201000000 20240101000000 12345 skipped.test. q2VmW2Zc7p9vYk1h0F0n8xXkq3l5n0m2g6y0mJmE2oQ=', // 7
      '@ IN NSEC www.skipped.test. A NS SOA RRSIG NSEC DNSKEY', // 8
      'sub IN NS ns1.example.net.', // 9: a delegation is imported
      `sub IN DS 12345 13 2 ${SHA256}`, // 10: the parent side of a secure delegation is imported too
      'www IN A 192.0.2.1', // 11
      'www IN AFSDB 1 afs.example.net.', // 12
      'www IN SPF "v=spf1 -all"', // 13
      'www IN TYPE65280 \\# 2 abcd', // 14: imported as opaque RDATA (RFC 3597)
      'loc IN LOC 52 22 23.000 N 4 53 32.000 E -2.00m 0.00m 10000m 10m', // 15: imported (RFC 1876)
      '',
    ].join('\n');
    const res = await importJson(Z, { zonefile });
    expect(res.status, res.text).toBe(201);
    expect(res.body.skipped).toEqual([
      { line: 2, owner: Z, type: 'SOA', reason: 'soa' },
      { line: 4, owner: Z, type: 'NS', reason: 'apex_ns' },
      { line: 5, owner: Z, type: 'NS', reason: 'apex_ns' },
      { line: 6, owner: Z, type: 'DNSKEY', reason: 'dnssec' },
      { line: 7, owner: Z, type: 'RRSIG', reason: 'dnssec' },
      { line: 8, owner: Z, type: 'NSEC', reason: 'dnssec' },
      { line: 12, owner: `www.${Z}`, type: 'AFSDB', reason: 'unsupported_type' },
      { line: 13, owner: `www.${Z}`, type: 'SPF', reason: 'unsupported_type' },
    ]);
    // No $TTL: the TTL written on the (skipped) SOA line carries on to the records after it (RFC 1035 §5.1).
    expect(rows(await userRecords(Z))).toEqual([
      'loc 3600 LOC 52 22 23.000 N 4 53 32.000 E -2.00m 0.00m 10000m 10m',
      `sub 3600 DS 12345 13 2 ${SHA256.toLowerCase()}`,
      'sub 3600 NS ns1.example.net.',
      'www 3600 A 192.0.2.1',
      'www 3600 TYPE65280 \\# 2 abcd',
    ]);
  });

  describe('errors: 422 with the line of every error, nothing stored', () => {
    const Z = 'errors.test';
    let before: { records: any[]; sets: any[] };
    beforeAll(async () => {
      await createZone(api(), Z);
      await createRecord(api(), Z, { type: 'A', name: 'www', data: { address: '192.0.2.1' } });
      before = { records: await allRecords(Z), sets: await changeSets(Z) };
    });
    const unchanged = async () => {
      expect(await allRecords(Z)).toEqual(before.records);
      expect(await changeSets(Z)).toEqual(before.sets);
    };

    it('several errors at once: bad RDATA, an owner outside the zone, $INCLUDE, a TTL out of bounds, a missing field', async () => {
      const zonefile = [
        `$ORIGIN ${Z}.`, // 1
        'ok IN A 192.0.2.10', // 2
        'bad IN A 192.0.2.300', // 3
        'elsewhere.example. IN A 192.0.2.2', // 4
        '$INCLUDE other.zone', // 5
        'mx IN MX mail.errors.test.', // 6
        'slow 99999999 IN A 192.0.2.3', // 7
        'six IN AAAA 2001:db8::1::2', // 8
        '_443._tcp IN TLSA 3 1 1 abc', // 9
        'fine 300 IN TXT "fine"', // 10: its own TTL (without, it would carry line 7's)
      ].join('\n');
      for (const res of [
        await importJson(Z, { zonefile, dry_run: true }),
        await importJson(Z, { zonefile, mode: 'replace' }),
        await upload(Z, { file: zonefile }),
      ]) {
        const errors = validationErrors(res);
        expect(errors.map((e) => [e.line, e.code])).toEqual([
          [3, 'invalid_ipv4'],
          [4, 'outside_zone'],
          [5, 'include_not_supported'],
          [6, 'invalid_rdata'],
          [7, 'ttl_out_of_range'],
          [8, 'invalid_ipv6'],
          [9, 'invalid_hex'],
          [9, 'invalid_digest_length'],
        ]);
        for (const e of errors) {
          expect(e.pointer).toBe('/zonefile');
          expect(typeof e.detail).toBe('string');
        }
      }
      await unchanged();
    });

    it('a CNAME conflict found by the engine (with the zone, and within the file) points at the file lines', async () => {
      const zonefile = [
        `$ORIGIN ${Z}.`, // 1
        'ok IN A 192.0.2.10', // 2
        'www IN CNAME target.example.net. ; www holds an A already', // 3
        'both IN A 192.0.2.20', // 4
        'both IN CNAME target.example.net.', // 5
      ].join('\n');
      for (const mode of ['merge', 'replace']) {
        const res = await importJson(Z, { zonefile, mode });
        const errors = validationErrors(res);
        const expected = mode === 'merge' ? [3, 4, 5] : [4, 5]; // replace drops www's A: no conflict there
        expect(errors.map((e) => [e.line, e.code]).sort((a, b) => a[0] - b[0])).toEqual(expected.map((l) => [l, 'cname_conflict']));
        for (const e of errors) expect(e.pointer).toBe('/zonefile');
      }
      const apex = validationErrors(await importJson(Z, { zonefile: `ok A 192.0.2.1\n@ CNAME target.example.net.\n` }));
      expect(apex.map((e) => [e.line, e.code])).toEqual([[2, 'owner_not_allowed']]);
      await unchanged();
    });

    it('over 1 MiB: 413 for JSON (a 1.5 MiB file under the 2 MiB body limit) and for an upload; exactly 1 MiB is accepted', async () => {
      const sized = (bytes: number) => {
        const head = 'big IN A 192.0.2.1\n;';
        return `${head}${'x'.repeat(bytes - head.length - 1)}\n`;
      };
      expect(Buffer.byteLength(sized(MiB))).toBe(MiB);
      expectProblem(await importJson(Z, { zonefile: sized(1.5 * MiB) }), 413, 'payload_too_large');
      expectProblem(await importJson(Z, { zonefile: sized(MiB + 1), dry_run: true }), 413, 'payload_too_large');
      expectProblem(await upload(Z, { file: sized(MiB + 1) }), 413, 'payload_too_large');
      expectProblem(await upload(Z, { file: sized(1.5 * MiB), dry_run: 'true' }), 413, 'payload_too_large');
      // Multi-byte characters count as octets: 1 MiB of characters is more than 1 MiB of UTF-8.
      expectProblem(await importJson(Z, { zonefile: `big IN A 192.0.2.1\n;${'é'.repeat(MiB / 2)}\n` }), 413, 'payload_too_large');
      await unchanged();
      for (const res of [await importJson(Z, { zonefile: sized(MiB), dry_run: true }), await upload(Z, { file: sized(MiB), dry_run: 'true' })]) {
        expect(res.status, res.text.slice(0, 300)).toBe(200);
        expect(rows(res.body.diff.created)).toEqual(['big - A 192.0.2.1']);
      }
    });

    it('a U+0000 character anywhere in the file: 422 with its line (JSON and upload)', async () => {
      const zonefile = 'a IN A 192.0.2.1\n; a comment\nb IN TXT "nul\u0000here"\nc IN A 192.0.2.3\n';
      for (const res of [await importJson(Z, { zonefile, dry_run: true }), await upload(Z, { file: zonefile })]) {
        expect(validationErrors(res)).toEqual([{ pointer: '/zonefile', line: 3, code: 'invalid_character', detail: expect.stringContaining('U+0000') }]);
      }
      expect(validationErrors(await importJson(Z, { zonefile: '\u0000' })).map((e) => e.line)).toEqual([1]);
      await unchanged();
    });

    it('a body that is neither JSON nor multipart/form-data: 415', async () => {
      for (const type of ['text/dns', 'text/plain', 'application/x-www-form-urlencoded']) {
        const res = await api().post(`/zones/${Z}/import`, undefined, { rawBody: 'x IN A 192.0.2.1\n', headers: { 'content-type': type } });
        expectProblem(res, 415, 'unsupported_media_type');
      }
      await unchanged();
    });
  });

  it('more records than PostgreSQL has statement parameters (70,000 owners in 1 MiB) is imported, not a 500', async () => {
    // Each line a new owner: the engine loads the zone's records at every named owner.
    const Z = 'many-owners.test';
    await createZone(api(), Z);
    const lines: string[] = [];
    let size = 0;
    for (let i = 0; ; i++) {
      const line = `${i.toString(36)} A 10.0.0.1\n`;
      if (size + line.length > MiB) break;
      lines.push(line);
      size += line.length;
    }
    expect(lines.length).toBeGreaterThan(65_535);
    const res = await importJson(Z, { zonefile: lines.join(''), dry_run: true });
    expect(res.status, res.text.slice(0, 500)).toBe(200);
    expect(await userRecords(Z)).toEqual([]);
  }, 60_000);

  it('past 100,000 records a zone refuses more (too_many_records), naming no line', async () => {
    const Z = 'full-zone.test';
    await createZone(api(), Z);
    // The cap is checked against the zone's count, which the write statement keeps: set it near the cap.
    await lab.sql.query(`UPDATE zones SET record_count = 99999 WHERE name = $1`, [Z]);
    const res = await importJson(Z, { zonefile: 'a A 10.0.0.1\nb A 10.0.0.2\n', dry_run: true });
    expect(res.status, res.text).toBe(422);
    expect(validationErrors(res).map((e) => e.code)).toEqual(['too_many_records']);
    expect((await importJson(Z, { zonefile: 'a A 10.0.0.1\n', dry_run: true })).status).toBe(200);
  });
});

describe('round trip: random zones → export → import replace changes nothing (fast-check)', () => {
  const ZONE_COUNT = 15;
  let customer: { id: string; api: ApiClient };
  beforeAll(async () => {
    customer = await newCustomer(lab, 'Round trip', { max_zones: ZONE_COUNT + 5 });
  });

  const hex = (min: number, max: number) => fc.uint8Array({ minLength: min, maxLength: max }).map((b) => Buffer.from(b).toString('hex'));
  // Random labels never begin with xn--: an invented A-label is refused (it must decode), and the
  // fixed xn--bcher-kva below covers real ones.
  const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/).filter((l) => !l.startsWith('xn--'));
  const host = (zone: string) =>
    fc.oneof(
      fc.constantFrom('mail.example.net', 'ns1.example.org', 'host.xn--bcher-kva.example', `www.${zone}`, `mail.${zone}`),
      label.map((l) => `${l}.example.com`),
    );
  /** Owners for types that may share a name with others (c-… is for CNAMEs, d-… for delegations). */
  const shared = fc.oneof(
    fc.constantFrom('@', 'www', 'mail', 'a.b.c', '*.dev', 'xn--bcher-kva'),
    label.filter((l) => !/^[cd]-/.test(l)),
  );
  // null (follow the zone default) half the time; the bounds and the defaults themselves often.
  const ttl = fc.oneof(fc.constant(null), fc.oneof(fc.constantFrom(60, 300, 3600, 86_400, 604_800), fc.integer({ min: 60, max: 604_800 })));
  // Short texts and texts of several 255-octet strings, any Unicode but U+0000.
  const txtText = fc
    .oneof(fc.string({ unit: 'binary', minLength: 1, maxLength: 60 }), fc.string({ unit: 'binary', minLength: 200, maxLength: 1500 }))
    .map((s) => s.replace(/\u0000/g, '0'))
    .filter((s) => Buffer.byteLength(s) <= 8192);
  const caa = fc.oneof(
    fc.record({
      flags: fc.constantFrom(0, 128),
      tag: fc.constantFrom('issue', 'issuewild'),
      value: fc.constantFrom(';', 'letsencrypt.org', 'ca.example.net; account=12345', 'pki.goog'),
    }),
    fc.record({ flags: fc.constant(0), tag: fc.constant('iodef'), value: fc.constantFrom('mailto:security@example.net', 'https://iodef.example.net/report') }),
    fc.record({
      flags: fc.constantFrom(0, 128),
      tag: fc.stringMatching(/^[a-z0-9]{1,15}$/).filter((t) => !['issue', 'issuewild', 'iodef', 'issuemail', 'issuevmc'].includes(t)),
      value: fc.constantFrom('', 'critical', 'x y; z=1'),
    }),
  );
  const tlsa = fc.oneof(
    fc.record({
      usage: fc.integer({ min: 0, max: 3 }),
      selector: fc.integer({ min: 0, max: 1 }),
      matching_type: fc.constant(1),
      certificate_data: hex(32, 32),
    }),
    fc.record({
      usage: fc.integer({ min: 0, max: 3 }),
      selector: fc.integer({ min: 0, max: 1 }),
      matching_type: fc.constant(2),
      certificate_data: hex(64, 64),
    }),
    fc.record({
      usage: fc.integer({ min: 0, max: 3 }),
      selector: fc.integer({ min: 0, max: 1 }),
      matching_type: fc.constant(0),
      certificate_data: hex(1, 300),
    }),
  );
  const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.'));
  // Full, uncompressed groups: one spelling per address, so two generated records never collide after canonicalisation.
  const ipv6 = fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 }).map((g) => g.map((x) => x.toString(16)).join(':'));
  const record = (zone: string) =>
    fc.oneof(
      fc.record({ type: fc.constant('A'), name: shared, data: fc.record({ address: ipv4 }) }),
      fc.record({ type: fc.constant('AAAA'), name: shared, data: fc.record({ address: ipv6 }) }),
      fc.record({ type: fc.constant('CNAME'), name: label.map((l) => `c-${l}`), data: fc.record({ target: host(zone) }) }),
      fc.record({
        type: fc.constant('MX'),
        name: shared,
        data: fc.oneof(fc.record({ preference: fc.integer({ min: 0, max: 65535 }), exchange: host(zone) }), fc.constant({ preference: 0, exchange: '.' })),
      }),
      fc.record({ type: fc.constant('TXT'), name: shared, data: fc.record({ text: txtText }) }),
      fc.record({
        type: fc.constant('SRV'),
        name: fc.tuple(fc.stringMatching(/^[a-z]{1,10}$/), fc.constantFrom('_tcp', '_udp', '_tls')).map(([s, p]) => `_${s}.${p}`),
        data: fc.record({ priority: fc.nat(65535), weight: fc.nat(65535), port: fc.nat(65535), target: fc.oneof(host(zone), fc.constant('.')) }),
      }),
      fc.record({ type: fc.constant('CAA'), name: shared, data: caa }),
      fc.record({
        type: fc.constant('TLSA'),
        name: fc
          .tuple(fc.integer({ min: 1, max: 65535 }), fc.constantFrom('_tcp', '_udp'), fc.constantFrom('', '.www', '.mail'))
          .map(([port, p, under]) => `_${port}.${p}${under}`),
        data: tlsa,
      }),
      // Delegations to nameservers outside the zone (a name below the cut would need glue).
      fc.record({
        type: fc.constant('NS'),
        name: label.map((l) => `d-${l}`),
        data: fc.record({ nameserver: fc.constantFrom('ns1.example.net', 'ns2.example.net', 'ns.example.org') }),
      }),
    );

  /** A valid zone: one TTL per RRset, no duplicate, one CNAME per name and nothing beside it. */
  const zoneContent = (zone: string) =>
    fc
      .record({
        defaultTtl: fc.constantFrom(300, 3600, 86_400),
        records: fc.array(fc.tuple(record(zone), ttl), { minLength: 8, maxLength: 40 }),
      })
      .map(({ defaultTtl, records }) => {
        const ttlOf = new Map<string, number | null>();
        const seen = new Set<string>();
        const out: Record<string, unknown>[] = [];
        for (const [r, t] of records) {
          const rrset = `${r.name} ${r.type}`;
          if (r.type === 'CNAME' && ttlOf.has(rrset)) continue;
          const identity = `${rrset} ${JSON.stringify(r.data)}`;
          if (seen.has(identity)) continue;
          seen.add(identity);
          if (!ttlOf.has(rrset)) ttlOf.set(rrset, t);
          out.push({ ...r, ttl: ttlOf.get(rrset) });
        }
        return { defaultTtl, records: out };
      });

  let run = 0;
  it(`${ZONE_COUNT} random zones: BIND and Knot load every export; import replace of it is an empty diff and keeps every record`, async (ctx) => {
    requireTool('named-checkzone', ctx);
    requireTool('kzonecheck', ctx);
    await fc.assert(
      fc.asyncProperty(zoneContent('rt.test'), async ({ defaultTtl, records }) => {
        const zone = `rt${run++}.test`;
        const client = customer.api;
        // The generator aims at `rt.test`; move its in-zone host names to this zone.
        const data = JSON.parse(JSON.stringify(records).replaceAll('.rt.test"', `.${zone}"`));
        const made = await client.post('/zones', { name: zone, default_ttl: defaultTtl, records: data });
        expect(made.status, made.text).toBe(201);
        const before = await allRecords(zone, client);
        expect(before.filter((r) => !r.system)).toHaveLength(records.length);

        const exported = await exportOf(zone, '', client);
        expect(exported.status).toBe(200);
        checkWithBindAndKnot(ctx, zone, exported.text);

        const dry = await importJson(zone, { zonefile: exported.text, mode: 'replace', dry_run: true }, {}, client);
        expect(dry.status, dry.text).toBe(200);
        expect(dry.body.summary).toEqual({ created: 0, updated: 0, deleted: 0 });
        expect(dry.body.diff).toEqual({ created: [], updated: [], deleted: [] });
        expect(dry.body.unchanged).toBe(records.length);
        expect(dry.body.skipped.map((s: any) => s.reason)).toEqual(['soa', 'apex_ns', 'apex_ns']);

        const applied = await importJson(zone, { zonefile: exported.text, mode: 'replace' }, {}, client);
        expect(applied.status, applied.text).toBe(201);
        expect(applied.body.changeset.summary).toEqual({ created: 0, updated: 0, deleted: 0 });
        const after = await allRecords(zone, client);
        const identity = (list: any[]) => list.map((r) => ({ id: r.id, name: r.name, type: r.type, ttl: r.ttl, data: r.data, content: r.content }));
        expect(identity(after)).toEqual(identity(before));
        expect(recordLines((await exportOf(zone, '?include_system=false', client)).text)).toEqual(recordLines(exported.text).slice(3));
      }),
      { numRuns: ZONE_COUNT, endOnFailure: true },
    );
  }, 180_000);
});

describe('files as BIND and Knot write them', () => {
  // Each fixture, the zone it is loaded as, and the records the export must then show
  // (include_system=false, blank space collapsed). Zone defaults are 3600 s.
  const CASES: { file: string; zone: string; signed?: boolean; expected: string[]; skipped: [number, string, string][] }[] = [
    {
      file: 'bind-relative.zone',
      zone: 'bind-style.test',
      signed: true,
      expected: [
        'bind-style.test. IN A 192.0.2.1',
        'bind-style.test. IN CAA 0 iodef "mailto:security@bind-style.test"',
        'bind-style.test. IN CAA 0 issue "letsencrypt.org"',
        'bind-style.test. IN MX 10 mail.bind-style.test.',
        'bind-style.test. IN TXT "v=spf1 mx -all"',
        '*.dev.bind-style.test. IN A 192.0.2.99',
        '_25._tcp.mail.bind-style.test. IN TLSA 3 1 1 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
        '_dmarc.bind-style.test. IN TXT "v=DMARC1; p=reject; rua=mailto:dmarc@bind-style.test"',
        '_sip._tcp.bind-style.test. 600 IN SRV 10 5 5060 www.bind-style.test.',
        'ftp.bind-style.test. 600 IN CNAME www.bind-style.test.',
        'host.bind-style.test. IN HINFO "PC" "Linux"',
        'mail.bind-style.test. IN A 192.0.2.25',
        'ns1.sub.bind-style.test. IN A 192.0.2.53',
        'sub.bind-style.test. IN DS 34505 13 2 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
        'sub.bind-style.test. IN NS ns1.sub.bind-style.test.',
        'www.bind-style.test. 300 IN A 192.0.2.10',
        'www.bind-style.test. 300 IN A 192.0.2.11',
        'www.bind-style.test. 300 IN AAAA 2001:db8::10',
        'www.bind-style.test. 300 IN TXT "caf\\195\\169 \\"quoted\\" back\\\\slashsecond string"',
      ],
      skipped: [
        [3, 'SOA', 'soa'],
        [10, 'RRSIG', 'dnssec'],
        [14, 'NS', 'apex_ns'],
        [15, 'NS', 'apex_ns'],
        [21, 'DNSKEY', 'dnssec'],
        [25, 'NSEC', 'dnssec'],
      ],
    },
    {
      file: 'knot-dump.zone',
      zone: 'knot-style.test',
      expected: [
        'knot-style.test. 3600 IN CAA 0 issuewild ";"',
        'knot-style.test. 3600 IN CAA 128 issue "ca.example.net; account=12345"',
        'knot-style.test. 3600 IN MX 10 mx1.example.net.',
        'knot-style.test. 3600 IN MX 20 mx2.example.net.',
        'knot-style.test. 3600 IN TXT "v=spf1 include:_spf.example.net ~all"',
        '_443._tcp.www.knot-style.test. 300 IN TLSA 2 0 1 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
        '_imaps._tcp.knot-style.test. 3600 IN SRV 0 1 993 mail.knot-style.test.',
        '_submission._tcp.knot-style.test. 3600 IN SRV 0 0 0 .',
        'mail.knot-style.test. 3600 IN A 192.0.2.25',
        'mail.knot-style.test. 3600 IN AAAA 2001:db8::25',
        'nomail.knot-style.test. 3600 IN MX 0 .',
        // The DKIM key in two strings as Knot wrote it; checked separately below.
        'selector1._domainkey.knot-style.test. 3600 IN TXT',
        'www.knot-style.test. 300 IN A 192.0.2.80',
        'www.knot-style.test. 300 IN AAAA 2001:db8::80',
        'xn--bcher-kva.knot-style.test. 3600 IN CNAME www.knot-style.test.',
      ],
      skipped: [
        [2, 'SOA', 'soa'],
        [3, 'NS', 'apex_ns'],
        [4, 'NS', 'apex_ns'],
      ],
    },
    {
      file: 'hand-written.zone',
      zone: 'classic.test',
      expected: [
        'classic.test. IN CAA 0 iodef "mailto:security@example.net"',
        'classic.test. IN MX 10 mail.classic.test.',
        'classic.test. IN MX 20 mail.example.net.',
        'classic.test. IN TXT "v=spf1 mx -all"',
        '_443._tcp.www.classic.test. 3600 IN TLSA 3 1 1 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
        '_sip._udp.classic.test. IN SRV 5 10 5060 www.classic.test.',
        'caa.classic.test. IN CAA 0 issue "letsencrypt.org; validationmethods=dns-01"',
        'dev.classic.test. 86400 IN NS ns1.example.net.',
        'dev.classic.test. 86400 IN NS ns2.example.net.',
        'ftp.classic.test. IN CNAME www.classic.test.',
        'generic.classic.test. IN A 192.0.2.99',
        'info.classic.test. IN TXT "Caf\\195\\169 \\"Kr\\195\\164mer\\" \\\\ 100%"',
        'mail.classic.test. IN A 192.0.2.25',
        'mail.classic.test. IN AAAA 2001:db8::25',
        'www.classic.test. 300 IN A 192.0.2.80',
        'www.classic.test. 300 IN A 192.0.2.81',
      ],
      skipped: [
        [4, 'SOA', 'soa'],
        [10, 'NS', 'apex_ns'],
        [11, 'NS', 'apex_ns'],
      ],
    },
  ];

  for (const c of CASES) {
    describe(c.file, () => {
      beforeAll(async () => {
        await createZone(api(), c.zone);
      });

      it('is a zone file BIND and Knot load (the fixture is what they would accept)', (ctx) => {
        checkWithBindAndKnot(ctx, c.zone, fixture(c.file), { dnssecChecks: !c.signed });
      });

      it('imports without errors; the export then shows exactly the expected records', async () => {
        const res = await importJson(c.zone, { zonefile: fixture(c.file), mode: 'replace' });
        expect(res.status, res.text).toBe(201);
        expect(res.body.skipped.map((s: any) => [s.line, s.type, s.reason])).toEqual(c.skipped);
        const lines = recordLines((await exportOf(c.zone, '?include_system=false')).text);
        const shown = lines.map((l) => (l.includes('._domainkey.') ? l.slice(0, l.indexOf(' TXT ') + 4) : l));
        expect(shown.sort()).toEqual([...c.expected].sort());
        if (c.file === 'knot-dump.zone') {
          const dkim = lines.find((l) => l.includes('._domainkey.'))!;
          const strings = characterStrings(dkim.slice(dkim.indexOf(' TXT ') + 5));
          expect(strings.map((s) => s.length)).toEqual([255, 154]);
          expect(Buffer.concat(strings).toString()).toMatch(/^v=DKIM1; k=rsa; p=MIIBIjANBgkq[A-Za-z0-9+/]+IDAQAB$/);
        }
      });

      it("named-compilezone's output of the fixture (full and relative style) imports as the same records", async (ctx) => {
        const compile = requireTool('named-compilezone', ctx);
        const source = tempFile(c.file, fixture(c.file));
        try {
          const stored = await userRecords(c.zone);
          expect(stored.length).toBe(c.expected.length);
          for (const style of ['full', 'relative']) {
            const run = runTool(compile, ['-i', 'local', '-s', style, '-o', '-', c.zone, source.file]);
            expect(run.status, run.output).toBe(0);
            const res = await importJson(c.zone, { zonefile: run.stdout, mode: 'replace', dry_run: true });
            expect(res.status, res.text).toBe(200);
            expect(res.body.diff.created).toEqual([]);
            expect(res.body.diff.deleted).toEqual([]);
            // The one difference is how BIND writes a TTL equal to the zone default (3600): in full
            // style on every line (records that followed the default then have it as their own),
            // in relative style as $TTL 3600 (records that had it as their own then follow it).
            const [from, to] = style === 'full' ? [null, 3600] : [3600, null];
            expect(rows(res.body.diff.updated.map((u: any) => u.before))).toEqual(rows(stored.filter((r) => r.ttl === from)));
            for (const u of res.body.diff.updated) expect(u.after).toEqual({ ...u.before, ttl: to });
          }
          // And applied for real, BIND's full rendition gives the same export but for those TTLs.
          const full = runTool(compile, ['-i', 'local', '-o', '-', c.zone, source.file]);
          const before = recordLines((await exportOf(c.zone, '?include_system=false')).text);
          const applied = await importJson(c.zone, { zonefile: full.stdout, mode: 'replace' });
          expect(applied.status, applied.text).toBe(201);
          const after = recordLines((await exportOf(c.zone, '?include_system=false')).text);
          expect(after).toEqual(before.map((l) => l.replace(/^(\S+) IN /, '$1 3600 IN ')));
        } finally {
          source.remove();
        }
      });
    });
  }
});

describe('fuzz: random and mutated zone files (dry runs) never make the service fail', () => {
  const Z = 'fuzz.test';
  let before: { records: any[]; sets: any[] };
  beforeAll(async () => {
    await createZone(api(), Z);
    await createRecord(api(), Z, { type: 'A', name: 'www', data: { address: '192.0.2.1' } });
    await createRecord(api(), Z, { type: 'CNAME', name: 'alias', data: { target: `www.${Z}` } });
    await createRecord(api(), Z, { type: 'MX', name: '@', data: { preference: 10, exchange: `www.${Z}` } });
    before = { records: await allRecords(Z), sets: await changeSets(Z) };
  });
  afterAll(async () => {
    // Dry runs only: nothing of all that was stored.
    expect(await allRecords(Z)).toEqual(before.records);
    expect(await changeSets(Z)).toEqual(before.sets);
  });

  /** The answer to any file: 200, 413, or 422 whose every error names a line of the file. */
  async function expectHandled(zonefile: string, mode: string, multipart: boolean) {
    const res = multipart ? await upload(Z, { file: zonefile, mode, dry_run: 'true' }) : await importJson(Z, { zonefile, mode, dry_run: true });
    const where = `${res.status} ${res.text.slice(0, 600)}\n--- file (${mode}${multipart ? ', upload' : ''}) ---\n${JSON.stringify(zonefile)}`;
    expect([200, 413, 422], where).toContain(res.status);
    if (res.status === 200) {
      expect(res.body.dry_run, where).toBe(true);
    } else if (res.status === 422) {
      expect(res.body.code, where).toBe('validation_failed');
      expect(res.body.errors.length, where).toBeGreaterThan(0);
      const lineCount = zonefile.split('\n').length;
      for (const e of res.body.errors) {
        expect(Number.isInteger(e.line) && e.line >= 1 && e.line <= lineCount, where).toBe(true);
        expect(e.pointer, where).toBe('/zonefile');
      }
    }
  }

  const owner = fc.constantFrom(
    '@',
    'www',
    'alias',
    'new',
    'a.b',
    '*.w',
    '_sip._tcp',
    '_443._tcp',
    `x.${Z}.`,
    'other.example.',
    '',
    ' ',
    '"q"',
    'é',
    'x\\046y',
    'a..b',
    '-bad',
    `${'l'.repeat(64)}`,
    'xn--bcher-kva',
    '\\#',
  );
  const ttlTok = fc.constantFrom('', '300', '1h', '2w', '0', '59', '604801', '99999999999', '-1', '1x', 'IN', 'CH');
  const type = fc.constantFrom(
    'A',
    'AAAA',
    'CNAME',
    'MX',
    'TXT',
    'SRV',
    'CAA',
    'TLSA',
    'NS',
    'PTR',
    'SOA',
    'DNSKEY',
    'RRSIG',
    'DS',
    'HINFO',
    'TYPE1',
    'TYPE65535',
    'a',
    'txt',
    'BOGUS',
    '',
  );
  const rdataTok = fc.constantFrom(
    '192.0.2.1',
    '999.1.1.1',
    '::1',
    '2001:db8::1',
    'www',
    `www.${Z}.`,
    'target.example.net.',
    '.',
    '@',
    '10',
    '0',
    '65536',
    '"text"',
    '"a" "b"',
    '"unterminated',
    '(',
    ')',
    '\\# 4 c0000201',
    '\\# 3 c00002',
    '\\#',
    'issue',
    '"letsencrypt.org"',
    'abcdef',
    ';comment',
    '\\999',
    '\\',
    '"\\"',
    'é',
    '\u0000',
    '\t',
    '"x\\000y"',
    '1 1 1',
    `3 1 1 ${SHA256}`,
  );
  const line = fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(owner, ttlTok, fc.constantFrom('', 'IN', 'in', 'CH'), type, fc.array(rdataTok, { maxLength: 6 }))
        .map(([o, t, k, ty, rd]) => [o, t, k, ty, ...rd].filter((x) => x !== '').join(' ')),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom('$ORIGIN', '$TTL', '$INCLUDE', '$GENERATE', '$origin', '$'),
          fc.constantFrom('', 'sub', `${Z}.`, '.', 'other.example.', '1h', 'x..y', '1-10 a$ A 192.0.2.$'),
        )
        .map(([d, a]) => `${d} ${a}`),
    },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  );
  const randomFile = fc
    .tuple(fc.array(line, { maxLength: 25 }), fc.constantFrom('\n', '\r\n'), fc.boolean())
    .map(([ls, eol, final]) => ls.join(eol) + (final ? eol : ''));

  const bases = [fixture('bind-relative.zone'), fixture('knot-dump.zone'), fixture('hand-written.zone')];
  const mutation = fc.record({
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    kind: fc.constantFrom('insert', 'delete', 'replace', 'duplicate-line', 'drop-line', 'truncate'),
    text: fc.constantFrom('(', ')', '"', '\\', ';', '$', '\n', ' ', '\t', '.', '@', '0', '9', 'é', '\u0000', '\\0', 'IN ', 'CNAME ', '$INCLUDE x\n', '\r'),
  });
  const mutatedFile = fc.tuple(fc.nat(bases.length - 1), fc.array(mutation, { minLength: 1, maxLength: 6 })).map(([b, ms]) => {
    let text = bases[b]!;
    for (const m of ms) {
      const i = Math.floor(m.at * text.length);
      const lines = text.split('\n');
      const l = Math.floor(m.at * lines.length);
      if (m.kind === 'insert') text = text.slice(0, i) + m.text + text.slice(i);
      else if (m.kind === 'delete') text = text.slice(0, i) + text.slice(i + 1 + (i % 5));
      else if (m.kind === 'replace') text = text.slice(0, i) + m.text + text.slice(i + m.text.length);
      else if (m.kind === 'duplicate-line') text = [...lines.slice(0, l + 1), ...lines.slice(l)].join('\n');
      else if (m.kind === 'drop-line') text = [...lines.slice(0, l), ...lines.slice(l + 1)].join('\n');
      else text = text.slice(0, i);
    }
    // The fixtures are other zones' files: most are moved here so that their records count.
    return text.replaceAll('bind-style.test', Z).replaceAll('knot-style.test', Z);
  });

  it('200 random files from zone-file fragments', async () => {
    await fc.assert(
      fc.asyncProperty(randomFile, fc.constantFrom('merge', 'replace'), fc.nat(4), async (file, mode, n) => expectHandled(file, mode, n === 0)),
      { numRuns: 200 },
    );
  }, 120_000);

  it('200 mutations of real zone files', async () => {
    await fc.assert(
      fc.asyncProperty(mutatedFile, fc.constantFrom('merge', 'replace'), fc.nat(4), async (file, mode, n) => expectHandled(file, mode, n === 0)),
      { numRuns: 200 },
    );
  }, 120_000);

  it('the unmutated bases import as dry runs (the mutations start from valid files)', async () => {
    for (const base of bases) {
      const res = await importJson(Z, { zonefile: base.replaceAll('bind-style.test', Z).replaceAll('knot-style.test', Z), mode: 'replace', dry_run: true });
      expect(res.status, res.text.slice(0, 500)).toBe(200);
      expect(res.body.summary.created).toBeGreaterThan(10);
    }
  });
});

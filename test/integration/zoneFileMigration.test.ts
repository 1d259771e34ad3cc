// Moving from another provider (docs/zonefiles.md): a customer imports the zone file their last
// provider exported, over real HTTP and real PostgreSQL. The files are what BIND
// (named-compilezone, full and relative style, run here), PowerDNS (pdnsutil list-zone, run here on
// a gpgsql database), Knot (a zone in Knot's dump style that kzonecheck accepts) and Cloudflare
// (its dashboard export, reproduced from published exports) write. Every line of each is either
// imported or listed in `skipped` with its line and reason; our export of the result is loaded by
// BIND and Knot, and importing that export again changes nothing.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { createZone, type DnsLab, listAll, startDnsLab } from '../helpers/dnsLab.js';
import { checkWithBindAndKnot, requireTool, runTool, tempFile } from '../helpers/dnsTools.js';
import { pdnsListZone } from '../helpers/pdns.js';

let lab: DnsLab;
beforeAll(async () => {
  lab = await startDnsLab();
});
afterAll(() => lab?.close());

const FIXTURES = path.resolve('test/fixtures/zonefiles');
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');
const api = () => lab.customerA;
const importFile = (zone: string, zonefile: string, extra: Record<string, unknown> = {}) =>
  api().post(`/zones/${zone}/import`, { zonefile, mode: 'replace', ...extra });
const exportOf = async (zone: string) => {
  const res = await api().get(`/zones/${zone}/export`);
  expect(res.status, res.text).toBe(200);
  return res.text;
};
/** The zone's records as a person reads them, with the TTL in effect (the zone default is 3600). */
const effectiveRows = async (zone: string) =>
  (await listAll(api(), `/zones/${zone}/records?limit=500`))
    .filter((r) => !r.system)
    .map((r) => `${r.name} ${r.ttl ?? 3600} ${r.type} ${r.content}`)
    .sort();

const H = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const LONG_TXT = `"${'a'.repeat(255)}" "${'b'.repeat(255)}" "${'c'.repeat(90)}"`;

/** The records of test/fixtures/zonefiles/migration-source.zone in the zone `z`, as we hold them. */
const SOURCE_ROWS = (z: string) =>
  [
    `@ 3600 A 192.0.2.1`,
    `@ 3600 AAAA 2001:db8::1`,
    `@ 3600 MX 10 mail.${z}.`,
    `@ 3600 MX 20 mx.example.net.`,
    `@ 3600 TXT "v=spf1 mx -all"`,
    `@ 3600 CAA 0 issue "letsencrypt.org"`,
    `@ 3600 CAA 0 iodef "mailto:security@example.net"`,
    `@ 3600 HTTPS 1 . alpn="h3,h2" port=443`,
    `@ 3600 HINFO "PC" "Linux"`,
    `www 3600 SSHFP 4 2 123456789abcdef67890123456789abcdef67890123456789abcdef123456789`,
    `sip 3600 NAPTR 100 10 "S" "SIP+D2U" "" _sip._udp.${z}.`,
    `www 300 A 192.0.2.10`,
    `www 300 A 192.0.2.11`,
    `ftp 3600 CNAME www.${z}.`,
    `mail 3600 A 192.0.2.25`,
    `_sip._tcp 3600 SRV 10 5 5060 www.${z}.`,
    `_25._tcp.mail 3600 TLSA 3 1 1 ${H}`,
    `sub 86400 NS ns1.sub.${z}.`,
    `sub 86400 DS 12345 13 2 ${H}`,
    `ns1.sub 3600 A 192.0.2.53`,
    `long 3600 TXT ${LONG_TXT}`,
  ].sort();

/** What the source holds that we do not import, by owner (relative) and type, with the reason. */
const SOURCE_SKIPPED = [
  ['@', 'SOA', 'soa'],
  ['@', 'NS', 'apex_ns'],
  ['@', 'NS', 'apex_ns'],
  ['afs', 'AFSDB', 'unsupported_type'],
].map((s) => s.join(' '));

/**
 * Every `skipped` entry names a line of `text` that holds a record of that type (the line a user
 * opens to see what was left out), sorted by line, one per record.
 */
function expectSkippedAtTheirLines(skipped: any[], text: string, zone: string): void {
  const lines = text.split(/\r?\n/);
  for (const s of skipped) {
    expect(lines[s.line - 1], `line ${s.line} for ${s.type}`).toMatch(new RegExp(`(^|\\s)${s.type}\\s`));
  }
  expect(skipped.map((s) => s.line)).toEqual([...skipped.map((s) => s.line)].sort((a, b) => a - b));
  const relative = (owner: string) => (owner === zone ? '@' : owner.slice(0, -zone.length - 1));
  expect(skipped.map((s) => `${relative(s.owner)} ${s.type} ${s.reason}`).sort()).toEqual([...SOURCE_SKIPPED].sort());
}

/**
 * The round trip every migration ends with: our export loads in BIND and Knot, and importing it
 * again (replace) is an empty diff.
 */
async function expectRoundTrip(ctx: TestContext, zone: string): Promise<void> {
  const exported = await exportOf(zone);
  checkWithBindAndKnot(ctx, zone, exported);
  const again = await importFile(zone, exported, { dry_run: true });
  expect(again.status, again.text).toBe(200);
  expect(again.body.diff).toMatchObject({ created: [], updated: [], deleted: [] });
  expect(again.body.unchanged).toBe(SOURCE_ROWS(zone).length);
}

/** Imports `text` (a file another system wrote of migration-source.zone) and checks all of the above. */
async function migrate(ctx: TestContext, zone: string, text: string, rows = SOURCE_ROWS(zone)): Promise<void> {
  await createZone(api(), zone);
  const res = await importFile(zone, text);
  expect(res.status, res.text).toBe(201);
  expectSkippedAtTheirLines(res.body.skipped, text, zone);
  expect(await effectiveRows(zone)).toEqual(rows);
  await expectRoundTrip(ctx, zone);
}

describe('the source zone', () => {
  it('is one BIND and Knot load', (ctx) => {
    checkWithBindAndKnot(ctx, 'source.test', fixture('migration-source.zone'));
  });
});

describe('BIND: named-compilezone output', () => {
  for (const style of ['full', 'relative']) {
    it(`-s ${style}: every record imported or skipped at its line; the export loads and imports back unchanged`, async (ctx) => {
      const zone = `bind-${style}.test`;
      const source = tempFile('source.zone', fixture('migration-source.zone'));
      try {
        const run = runTool(requireTool('named-compilezone', ctx), ['-i', 'local', '-f', 'text', '-F', 'text', '-s', style, '-o', '-', zone, source.file]);
        expect(run.status, run.output).toBe(0);
        if (style === 'relative') expect(run.stdout).toMatch(/^\$ORIGIN \.$/m);
        await migrate(ctx, zone, run.stdout);
      } finally {
        source.remove();
      }
    });
  }
});

describe('PowerDNS: pdnsutil list-zone output', () => {
  it('`$ORIGIN .`, absolute owners without a trailing dot, tab-separated: imported, the rest skipped at its line', async (ctx) => {
    requireTool('pdnsutil', ctx);
    const zone = 'pdns-export.test';
    const text = await pdnsListZone(zone, fixture('migration-source.zone'));
    expect(text.split('\n')[0]).toBe('$ORIGIN .');
    expect(text).toMatch(new RegExp(`^www\\.${zone.replace('.', '\\.')}\\t300\\tIN\\tA\\t192\\.0\\.2\\.10$`, 'm'));
    // PowerDNS 4.7 keeps a NAPTR replacement relative as the source wrote it (`load-zone` does not
    // qualify it), and `list-zone` prints it so under `$ORIGIN .`: the name it hands over is
    // `_sip._udp.`, and that is what a faithful import reads.
    expect(text).toMatch(/\tNAPTR\t100 10 "S" "SIP\+D2U" "" _sip\._udp$/m);
    const rows = SOURCE_ROWS(zone).map((r) => (r.startsWith('sip ') ? r.replace(`_sip._udp.${zone}.`, '_sip._udp.') : r));
    await migrate(ctx, zone, text, rows);
  });
});

describe("Knot: a zone in Knot's dump style", () => {
  it('kzonecheck accepts the fixture; imported, the rest skipped at its line; the export loads and imports back unchanged', async (ctx) => {
    const zone = 'knot-migration.test';
    const text = fixture('knot-migration.zone');
    checkWithBindAndKnot(ctx, zone, text);
    await migrate(ctx, zone, text);
  });
});

describe("Cloudflare: the dashboard's export", () => {
  // test/fixtures/zonefiles/cloudflare-export.zone follows Cloudflare's published exports: the `;;`
  // header, `;; <TYPE> Records` sections, the SOA owner written without its trailing dot, TTL 1
  // for "automatic", tabs, comments and `cf_tags=` after records.
  const ZONE = 'cloudflare-export.test';
  const ROWS = [
    '@ 3600 A 192.0.2.1',
    '@ 3600 AAAA 2001:db8::1',
    '@ 3600 CAA 0 issue "letsencrypt.org"',
    '@ 3600 CAA 0 issuewild ";"',
    '@ 3600 HTTPS 1 . alpn="h3,h2" ipv4hint=192.0.2.1 ipv6hint=2001:db8::1',
    '@ 3600 MX 25 route1.mx.cloudflare.net.',
    '@ 3600 MX 63 route2.mx.cloudflare.net.',
    '@ 3600 MX 91 route3.mx.cloudflare.net.',
    '@ 3600 TXT "v=spf1 include:_spf.mx.cloudflare.net ~all"',
    '*._domainkey 3600 TXT "v=DKIM1; p="',
    `_443._tcp.www 3600 TLSA 3 1 1 ${H}`,
    `_dmarc 3600 TXT "v=DMARC1; p=none; rua=mailto:dmarc@${ZONE}"`,
    '_sip._tls 3600 SRV 100 1 443 sipdir.online.lync.com.',
    '_sipfederationtls._tcp 3600 SRV 100 1 5061 sipfed.online.lync.com.',
    'ai 3600 A 192.0.2.2',
    'ai 3600 SSHFP 4 2 123456789abcdef67890123456789abcdef67890123456789abcdef123456789',
    'authentik 300 A 192.0.2.3',
    'cf2024-1._domainkey 3600 TXT',
    'dev 3600 DS 2371 13 2 1f987cc6583e92df0890718c42e9ba1c7ec2a6b8d7d9ea5d1dd0a2a9b6bb6c4e',
    'dev 3600 NS ns1.example.net.',
    `sip 3600 NAPTR 100 10 "S" "SIP+D2U" "" _sip._udp.${ZONE}.`,
    'traefik 3600 A 192.0.2.4',
    `www 3600 CNAME ${ZONE}.`,
  ];
  const SKIPPED = [
    // Without a trailing dot the SOA owner is relative (RFC 1035 §5.1), so it reads as below the apex.
    [27, `${ZONE}.${ZONE}`, 'SOA', 'soa'],
    [30, ZONE, 'NS', 'apex_ns'],
    [31, ZONE, 'NS', 'apex_ns'],
  ];
  const DKIM_TTL_ROW = (rows: string[]) => rows.map((r) => (r.startsWith('cf2024-1.') ? r.slice(0, r.indexOf(' TXT ') + 4) : r));

  for (const lineEnd of ['\n', '\r\n']) {
    it(`${lineEnd === '\n' ? 'LF' : 'CRLF'} line ends: TTL 1 follows the zone default (warned with its lines), the rest as written; the SOA and apex NS skipped at their lines`, async (ctx) => {
      const zone = lineEnd === '\n' ? ZONE : 'cloudflare-crlf.test';
      const text = fixture('cloudflare-export.zone').replaceAll(ZONE, zone).replaceAll('\n', lineEnd);
      await createZone(api(), zone);
      const res = await importFile(zone, text);
      expect(res.status, res.text).toBe(201);
      expect(res.body.skipped.map((s: any) => [s.line, s.owner, s.type, s.reason])).toEqual(
        SKIPPED.map(([line, owner, type, reason]) => [line, String(owner).replaceAll(ZONE, zone), type, reason]),
      );
      const lines = text.split(lineEnd);
      // The skipped lines are not imported, so their TTLs are not either.
      const skippedLines = new Set(res.body.skipped.map((s: any) => s.line));
      const automatic = lines.flatMap((l, i) => (l.split('\t')[1] === '1' && !skippedLines.has(i + 1) ? [i + 1] : []));
      expect(res.body.changeset.warnings).toContainEqual({
        code: 'ttl_automatic',
        detail: `Lines ${automatic.join(', ')}: TTL 1 (Cloudflare's "automatic") follows the zone's default TTL (3600 s).`,
      });
      const rows = await effectiveRows(zone);
      expect(DKIM_TTL_ROW(rows)).toEqual(ROWS.map((r) => r.replaceAll(ZONE, zone)).sort());
      // The DKIM key Cloudflare wrote as two strings is one text, cut again at 255 octets.
      const dkim = rows.find((r) => r.startsWith('cf2024-1.'))!;
      const strings = [...dkim.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
      expect(strings.map((s) => s.length)).toEqual([255, 165]);
      expect(strings.join('')).toMatch(/^v=DKIM1; h=sha256; k=rsa; p=MIIBIjANBgkq[A-Za-z0-9+/]+IDAQAB$/);

      // Every record line of the file is either one of our records or skipped.
      const recordLineCount = lines.filter((l) => l.trim() !== '' && !l.startsWith(';')).length;
      expect(rows.length + res.body.skipped.length).toBe(recordLineCount);

      const exported = await exportOf(zone);
      checkWithBindAndKnot(ctx, zone, exported);
      const again = await importFile(zone, exported, { dry_run: true });
      expect(again.status, again.text).toBe(200);
      expect(again.body.diff).toMatchObject({ created: [], updated: [], deleted: [] });
      expect(again.body.unchanged).toBe(rows.length);
    });
  }
});

describe('Cloudflare: what cannot be hosted as exported', () => {
  it('a CNAME at the apex (CNAME flattening) is refused with its line and reason; nothing is stored', async () => {
    const zone = 'cloudflare-flattened.test';
    await createZone(api(), zone);
    const text = [
      ';; CNAME Records', // 1
      `${zone}.\t1\tIN\tCNAME\tapp.example.net. ; cf_tags=cf-proxied:true`, // 2
      `www.${zone}.\t1\tIN\tCNAME\t${zone}. ; cf_tags=cf-proxied:true`, // 3
      '', // 4
    ].join('\n');
    const res = await importFile(zone, text);
    expect(res.status, res.text).toBe(422);
    expect(res.body.errors.map((e: any) => [e.line, e.code, e.pointer])).toEqual([[2, 'owner_not_allowed', '/zonefile']]);
    expect(await effectiveRows(zone)).toEqual([]);
  });
});

describe('Cloudflare: an older export (`$ORIGIN .`, the SOA as `@`, a placeholder NS)', () => {
  // test/fixtures/zonefiles/cloudflare-export-2016.zone follows Cloudflare's exports of 2016–2017:
  // `$ORIGIN .` then `@ … SOA` in parentheses, so the SOA sits at the root; the apex NS is a
  // placeholder that is no name at all (REPACE&ME$WITH^YOUR@NAMESERVER.).
  it('the SOA at the root and the placeholder NS are skipped at their lines; the records are imported; the export loads and imports back unchanged', async (ctx) => {
    const zone = 'cloudflare-legacy.test';
    const text = fixture('cloudflare-export-2016.zone');
    await createZone(api(), zone);
    const res = await importFile(zone, text);
    expect(res.status, res.text).toBe(201);
    expect(res.body.skipped).toEqual([
      { line: 27, owner: '.', type: 'SOA', reason: 'soa' },
      { line: 37, owner: zone, type: 'NS', reason: 'apex_ns' },
    ]);
    expect(await effectiveRows(zone)).toEqual(
      [
        '@ 300 A 192.0.2.2',
        '@ 300 MX 1 aspmx.l.google.com.',
        '@ 300 MX 5 alt1.aspmx.l.google.com.',
        '@ 300 TXT "google-site-verification=dKCZc99foKleNxGd0AoI753tPdobcjGEjtS8rWWrz2s"',
        'admin 300 A 192.0.2.2',
        `ftp 300 CNAME ${zone}.`,
        `www 300 CNAME ${zone}.`,
      ].sort(),
    );
    const exported = await exportOf(zone);
    checkWithBindAndKnot(ctx, zone, exported);
    const again = await importFile(zone, exported, { dry_run: true });
    expect(again.status, again.text).toBe(200);
    expect(again.body.diff).toMatchObject({ created: [], updated: [], deleted: [] });
  });
});

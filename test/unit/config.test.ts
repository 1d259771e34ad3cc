import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';

describe('loadConfig', () => {
  it('uses the operational contract defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      deployment: 'sandbox',
      roles: ['api', 'nameserver', 'worker'],
      http: { host: '127.0.0.1', port: 8080 },
      dns: { hosts: ['127.0.0.1'], port: 5300, transferAllow: ['127.0.0.1/32', '::1/128'], tsigKeys: [], secondaries: [], verifyServers: null },
      databaseUrl: null,
      labResetTime: { hour: 3, minute: 0 },
    });
    expect(c.dataDir.endsWith('.data')).toBe(true);
  });

  it('reads nameserver addresses, secondaries and TSIG keys', () => {
    const c = loadConfig({
      DNS_HOST: '127.0.0.1, ::1',
      DNS_SECONDARIES: '127.0.0.1:5301,[::1]:5302,ns2.example',
      DNS_TSIG_KEYS: `Xfr.Example.:${Buffer.alloc(32, 7).toString('base64')}`,
    });
    expect(c.dns.hosts).toEqual(['127.0.0.1', '::1']);
    expect(c.dns.secondaries).toEqual([
      { host: '127.0.0.1', port: 5301 },
      { host: '::1', port: 5302 },
      { host: 'ns2.example', port: 53 },
    ]);
    expect(c.dns.tsigKeys).toEqual([{ name: 'xfr.example', secret: Buffer.alloc(32, 7) }]);
  });

  it("limits UDP response rates by default with NSD's values; DNS_RRL_* change them, DNS_RRL_RATE=0 turns it off", () => {
    expect(loadConfig({}).dns.rateLimit).toEqual({ rate: 200, slip: 2, ipv4PrefixLength: 24, ipv6PrefixLength: 64, tableSize: 1_000_000, exempt: [] });
    const c = loadConfig({
      DNS_RRL_RATE: '50',
      DNS_RRL_SLIP: '1',
      DNS_RRL_IPV4_PREFIX: '32',
      DNS_RRL_IPV6_PREFIX: '56',
      DNS_RRL_TABLE_SIZE: '65536',
      DNS_RRL_EXEMPT: '192.0.2.0/24, 2001:db8::/32',
    });
    expect(c.dns.rateLimit).toEqual({
      rate: 50,
      slip: 1,
      ipv4PrefixLength: 32,
      ipv6PrefixLength: 56,
      tableSize: 65536,
      exempt: ['192.0.2.0/24', '2001:db8::/32'],
    });
    expect(loadConfig({ DNS_RRL_RATE: '0' }).dns.rateLimit).toBe(false);
    expect(() => loadConfig({ DNS_RRL_EXEMPT: '192.0.2.1' })).toThrow(/DNS_RRL_EXEMPT/);
    expect(() => loadConfig({ DNS_RRL_IPV4_PREFIX: '33' })).toThrow(/DNS_RRL_IPV4_PREFIX/);
  });

  it('DNS_TSIG_KEYS takes an algorithm before the name ([algorithm:]name:secret)', () => {
    const secret = Buffer.alloc(16, 1).toString('base64');
    const c = loadConfig({ DNS_TSIG_KEYS: `HMAC-MD5:md5.key:${secret},sha.key:${secret},hmac-sha512:Big.Key.:${secret}` });
    expect(c.dns.tsigKeys).toEqual([
      { name: 'md5.key', algorithm: 'hmac-md5', secret: Buffer.alloc(16, 1) },
      { name: 'sha.key', secret: Buffer.alloc(16, 1) },
      { name: 'big.key', algorithm: 'hmac-sha512', secret: Buffer.alloc(16, 1) },
    ]);
  });

  it.each([
    ['HTTP_PORT', 'eighty'],
    ['HTTP_PORT', '70000'],
    ['DNS_PORT', '-1'],
    ['DEPLOYMENT', 'staging'],
    ['ROLES', 'api,frontend'],
    ['DATABASE_URL', 'mysql://x'],
    ['LAB_RESET_TIME', '25:00'],
    ['LOG_LEVEL', 'loud'],
    ['BILLING_API_URL', 'ftp://billing'],
    ['DNS_SECONDARIES', '127.0.0.1:99999'],
    ['DNS_VERIFY_SERVERS', 'ns1:port'],
    ['DNS_TRANSFER_ALLOW', '127.0.0.1'],
    ['DNS_TSIG_KEYS', 'xfr:c2hvcnQ='],
    ['DNS_TSIG_KEYS', `hmac-sha3:xfr:${Buffer.alloc(16).toString('base64')}`],
    ['DNS_TSIG_KEYS', `a:b:c:${Buffer.alloc(16).toString('base64')}`],
    ['THREADED_ROLES', 'yes'],
  ])('names the bad variable %s=%s', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrowError(ConfigError);
    try {
      loadConfig({ [name]: value });
    } catch (e) {
      expect((e as ConfigError).variable).toBe(name);
      expect((e as Error).message).toContain(name);
    }
  });

  it('requires DATABASE_URL and the key-encryption key in production', () => {
    const KEK = 'ab'.repeat(32);
    expect(() => loadConfig({ DEPLOYMENT: 'production', SECRET_KEY_ENCRYPTION_KEY: KEK })).toThrowError(/DATABASE_URL/);
    expect(() => loadConfig({ DEPLOYMENT: 'production', DATABASE_URL: 'postgres://db/x' })).toThrowError(/SECRET_KEY_ENCRYPTION_KEY/);
    expect(() => loadConfig({ DEPLOYMENT: 'production', DATABASE_URL: 'postgres://db/x', SECRET_KEY_ENCRYPTION_KEY: 'abcd' })).toThrowError(/32 bytes/);
    const production = loadConfig({ DEPLOYMENT: 'production', DATABASE_URL: 'postgres://db/x', SECRET_KEY_ENCRYPTION_KEY: KEK });
    expect(production.deployment).toBe('production');
    expect(production.keyEncryptionKey).toEqual(Buffer.from(KEK, 'hex'));
    expect(
      loadConfig({ DEPLOYMENT: 'production', DATABASE_URL: 'postgres://db/x', SECRET_KEY_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') })
        .keyEncryptionKey,
    ).toEqual(Buffer.alloc(32, 7));
    // The lab makes its own under DATA_DIR.
    expect(loadConfig({}).keyEncryptionKey).toBeNull();
  });

  it('still reads the key-encryption key under its former name, DNSSEC_KEY_ENCRYPTION_KEY', () => {
    const KEK = 'cd'.repeat(32);
    const production = { DEPLOYMENT: 'production', DATABASE_URL: 'postgres://db/x' };
    expect(loadConfig({ ...production, DNSSEC_KEY_ENCRYPTION_KEY: KEK }).keyEncryptionKey).toEqual(Buffer.from(KEK, 'hex'));
    expect(() => loadConfig({ ...production, DNSSEC_KEY_ENCRYPTION_KEY: 'abcd' })).toThrowError(/DNSSEC_KEY_ENCRYPTION_KEY.*32 bytes/);
    // Both names for the same key are fine; two different keys are a mistake to refuse.
    expect(loadConfig({ ...production, DNSSEC_KEY_ENCRYPTION_KEY: KEK, SECRET_KEY_ENCRYPTION_KEY: KEK }).keyEncryptionKey).toEqual(Buffer.from(KEK, 'hex'));
    expect(() => loadConfig({ ...production, DNSSEC_KEY_ENCRYPTION_KEY: KEK, SECRET_KEY_ENCRYPTION_KEY: 'ab'.repeat(32) })).toThrowError(
      /differs from DNSSEC_KEY_ENCRYPTION_KEY/,
    );
  });

  it('reads roles as a comma-separated list', () => {
    expect(loadConfig({ ROLES: 'api, worker' }).roles).toEqual(['api', 'worker']);
  });

  it('runs the nameserver and worker roles in their own thread unless THREADED_ROLES=off', () => {
    expect(loadConfig({}).threadedRoles).toBe(true);
    expect(loadConfig({ THREADED_ROLES: 'on' }).threadedRoles).toBe(true);
    expect(loadConfig({ THREADED_ROLES: 'off' }).threadedRoles).toBe(false);
  });
});

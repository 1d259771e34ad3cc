import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';

describe('loadConfig', () => {
  it('uses the operational contract defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      deployment: 'sandbox',
      roles: ['api', 'nameserver', 'worker'],
      http: { host: '127.0.0.1', port: 8080 },
      dns: { host: '127.0.0.1', port: 5300 },
      databaseUrl: null,
      labResetTime: { hour: 3, minute: 0 },
    });
    expect(c.dataDir.endsWith('.data')).toBe(true);
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
  ])('names the bad variable %s=%s', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrowError(ConfigError);
    try {
      loadConfig({ [name]: value });
    } catch (e) {
      expect((e as ConfigError).variable).toBe(name);
      expect((e as Error).message).toContain(name);
    }
  });

  it('requires DATABASE_URL in production', () => {
    expect(() => loadConfig({ DEPLOYMENT: 'production' })).toThrowError(/DATABASE_URL/);
    expect(loadConfig({ DEPLOYMENT: 'production', DATABASE_URL: 'postgres://db/x' }).deployment).toBe('production');
  });

  it('reads roles as a comma-separated list', () => {
    expect(loadConfig({ ROLES: 'api, worker' }).roles).toEqual(['api', 'worker']);
  });
});

// A German-speaking client's story through the real HTTP server: the problems it meets on the way
// (a wrong token, a zone that is not there, a body that is not JSON, a change it may not make)
// come back entirely in German — reasons and nouns included — and the same request without
// Accept-Language still answers in English.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../helpers/apiClient.js';
import { startTestService, type TestService } from '../helpers/testService.js';

let lab: TestService;
beforeAll(async () => {
  lab = await startTestService({ env: { ROLES: 'api' } });
});
afterAll(() => lab?.stop());

type Call = (api: ApiClient) => Promise<ApiResponse>;

/** The same call in German and in English. */
async function both(token: string, call: Call): Promise<{ de: ApiResponse; en: ApiResponse }> {
  const de = await call(lab.as(token).with({ 'Accept-Language': 'de' }));
  const en = await call(lab.as(token));
  return { de, en };
}

function expectGerman(res: ApiResponse, status: number, code: string, detail: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-language')).toBe('de');
  expect(res.body.code).toBe(code);
  expect(res.body.detail).toBe(detail);
}

describe('problems with Accept-Language: de', () => {
  it('401 for an unknown token says why in German', async () => {
    const { de, en } = await both(`svc_test_${'x'.repeat(40)}`, (api) => api.get('/me'));
    expectGerman(de, 401, 'unauthenticated', 'Senden Sie ein gültiges API-Token dieser Umgebung als "Authorization: Bearer <token>". Das Token ist unbekannt.');
    expect(de.body.title).toBe('Authentifizierung erforderlich');
    expect(en.body.detail).toMatch(/The token is not known\.$/);
  });

  it('401 for a token of the other deployment names the deployment in a German sentence', async () => {
    const { de } = await both(`svc_live_${'x'.repeat(40)}`, (api) => api.get('/me'));
    expect(de.body.detail).toMatch(/Dies ist die Umgebung sandbox; das Token gehört zur anderen Umgebung\.$/);
  });

  it('404 names the missing thing with its German noun and article', async () => {
    const zone = await both(lab.tokens.customers[0], (api) => api.get('/zones/nowhere-to-be-found.test'));
    expectGerman(zone.de, 404, 'not_found', 'Hier gibt es keine Zone.');
    expect(zone.en.body.detail).toBe('There is no zone here.');

    const path = await both(lab.tokens.customers[0], (api) => api.get('/no-such-resource'));
    expectGerman(path.de, 404, 'not_found', 'Hier gibt es keine Ressource.');
  });

  it('400 for a body that is not JSON', async () => {
    const { de, en } = await both(lab.tokens.platform, (api) =>
      api.request('POST', '/tenants', { rawBody: '{"type": "customer",', headers: { 'content-type': 'application/json' } }),
    );
    expectGerman(de, 400, 'malformed_request', 'Der Anfrageinhalt konnte nicht gelesen werden: Der Inhalt ist kein gültiges JSON.');
    expect(en.body.detail).toBe('The request body could not be parsed: the body is not valid JSON.');
  });

  it('403 when a tenant changes its own settings', async () => {
    const own = lab.tokens.tenants.reseller;
    const { de, en } = await both(lab.tokens.reseller, (api) => api.patch(`/tenants/${own}`, { name: 'Selbst GmbH' }));
    expectGerman(de, 403, 'forbidden', 'Ein Mandant kann seine eigenen Einstellungen nicht ändern; das tut der übergeordnete Mandant.');
    expect(en.body.detail).toBe('A tenant cannot change its own settings; its parent does.');
  });

  it('405 lists the allowed methods inside a German sentence', async () => {
    const { de } = await both(lab.tokens.platform, (api) => api.put('/me', {}));
    expect(de.status).toBe(405);
    expect(de.body.detail).toMatch(/^Verwenden Sie auf diesem Pfad eine dieser Methoden: [A-Z, ]+\.$/);
  });
});

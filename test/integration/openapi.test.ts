// The OpenAPI document is generated from the route declarations; check it against the official
// OpenAPI 3.1 schema (a validator we did not write) and against the routes the server answers.
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from '../../src/api/resources/index.js';
import { RECORD_TYPES } from '../../src/domain/records/types.js';
import { startTestService, type TestService } from '../helpers/testService.js';

let lab: TestService;
let doc: any;
beforeAll(async () => {
  lab = await startTestService();
  const res = await fetch(`${lab.url}/api/v1/openapi.json`);
  expect(res.status).toBe(200);
  doc = await res.json();
});
afterAll(() => lab?.stop());

describe('GET /api/v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
  });

  it('describes every route with its scopes, parameters and problem responses', () => {
    for (const route of allRoutes) {
      const op = doc.paths[route.path]?.[route.method];
      expect(op, `${route.method} ${route.path}`).toBeDefined();
      expect(op['x-required-scopes']).toEqual(route.scopes);
      expect(op.responses['401'].content['application/problem+json']).toBeDefined();
      const params = op.parameters.map((p: { name: string }) => p.name);
      for (const name of route.path.match(/\{(\w+)\}/g) ?? []) expect(params).toContain(name.slice(1, -1));
      if (route.method === 'post' || route.method === 'patch') expect(params).toContain('Idempotency-Key');
    }
  });

  it('documents GET /nic/update outside the base path, with Basic auth and plain-text answers', () => {
    const op = doc.paths['/nic/update'];
    expect(op.servers).toEqual([expect.objectContaining({ url: '/' })]);
    expect(op.get.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['hostname', 'myip', 'myipv6', 'offline']));
    expect(Object.keys(op.get.responses)).toEqual(expect.arrayContaining(['200', '401']));
    expect(doc.components.securitySchemes.dyndnsBasic).toMatchObject({ type: 'http', scheme: 'basic' });
  });

  it("describes the data of every record type (RecordData<TYPE>, from the type's policy row)", () => {
    for (const type of RECORD_TYPES) expect(doc.components.schemas[`RecordData${type}`], type).toMatchObject({ type: 'object', additionalProperties: false });
    expect(doc.components.schemas.RecordDataHTTPS.required).toEqual(['priority', 'target']);
    expect(Object.keys(doc.components.schemas.RecordDataHTTPS.properties.params.properties)).toEqual([
      'mandatory',
      'alpn',
      'no-default-alpn',
      'port',
      'ipv4hint',
      'ech',
      'ipv6hint',
      'dohpath',
      'ohttp',
    ]);
  });

  it('documents request bodies as closed objects, matching the unknown-field rule', () => {
    const body = doc.paths['/tenants'].post.requestBody.content['application/json'].schema;
    expect(body.additionalProperties).toBe(false);
    expect(body.required).toEqual(expect.arrayContaining(['type', 'name']));
  });

  it('matches what the server routes: a documented operation never answers 404/405 for its path', async () => {
    const platform = lab.as(lab.tokens.platform);
    for (const route of allRoutes.filter((r) => r.method === 'get' && !r.path.includes('{'))) {
      const res = await platform.get(route.path);
      // A list with a required query parameter (GET /ptr?within=) is routed and asks for it.
      if (res.status === 422)
        expect(
          res.body.errors.every((e: { in?: string }) => e.in === 'query'),
          route.path,
        ).toBe(true);
      else expect([200, 204], `${route.path}: ${res.status}`).toContain(res.status);
    }
  });
});

describe('/docs', () => {
  // What Chromium makes of the page is checked in docsBrowser.test.ts; here the HTTP side.
  it('serves Swagger UI from this service only, with the problem catalogue anchors', async () => {
    const res = await fetch(`${lab.url}/docs`);
    expect(res.headers.get('content-security-policy')).toMatch(/script-src 'self';/);
    const html = await res.text();
    for (const code of ['validation_failed', 'not_found', 'unauthenticated']) expect(html).toContain(`id="problem-${code}"`);
    const references = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(references.length).toBeGreaterThan(2);
    for (const ref of references) {
      expect(ref, 'no CDN, no other host').toMatch(/^\//);
      const asset = await fetch(`${lab.url}${ref}`);
      expect(asset.status, ref).toBe(200);
    }
    expect(references).toContain('/docs/assets/swagger-ui-bundle.js');
    const init = await (await fetch(`${lab.url}/docs/assets/docs-init.js`)).text();
    expect(init).toContain('"url":"/api/v1/openapi.json"');
    expect(init).toContain('"validatorUrl":null');
  });

  it('serves no file of the package beyond the ones the page uses', async () => {
    for (const name of ['package.json', 'swagger-ui-bundle.js.map', '..%2Fpackage.json', 'index.html']) {
      expect((await fetch(`${lab.url}/docs/assets/${name}`)).status, name).toBe(404);
    }
  });
});

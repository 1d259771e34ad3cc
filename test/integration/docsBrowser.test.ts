// /docs as an integrator sees it: Debian's Chromium (headless, driven by playwright-core, no browser
// of Playwright's own) opens the page with every request off this machine refused, finds every
// operation of /api/v1/openapi.json rendered, enters a lab token under "Authorize" and tries
// GET /me, which answers 200 with the token's tenant. Without Chromium the test is skipped, unless
// REQUIRE_DNS_TOOLS=1 (CI installs Debian's `chromium`), where a missing browser fails it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/testService.js';

const CHROMIUM = '/usr/bin/chromium';
const present = fs.existsSync(CHROMIUM);
if (!present && process.env.REQUIRE_DNS_TOOLS === '1') {
  throw new Error(`${CHROMIUM} (Debian package chromium) is required (REQUIRE_DNS_TOOLS=1) but is not installed`);
}

let lab: TestService;
let context: BrowserContext;
let page: Page;
let userDataDir: string;
/** Requests the page tried to send anywhere but the service (refused). */
const outside: string[] = [];
/** Console errors, Content-Security-Policy violations among them. */
const consoleErrors: string[] = [];

beforeAll(async () => {
  if (!present) return;
  lab = await startTestService({ env: { ROLES: 'api' } });
  userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdns-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const origin = new URL(lab.url).origin;
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${origin}/`) || url.startsWith('data:')) return route.continue();
    outside.push(url);
    return route.abort();
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (msg) => {
    if (msg.type() === 'error') consoleErrors.push(msg.text());
  });
  page.on('pageerror', (err) => consoleErrors.push(String(err)));
});

afterAll(async () => {
  await context?.close();
  if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
  await lab?.stop();
});

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

describe.skipIf(!present)('/docs in headless Chromium', () => {
  it('renders every operation of the OpenAPI document and tries GET /me with a lab token', async () => {
    const doc = (await (await fetch(`${lab.url}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
      webhooks?: Record<string, Record<string, unknown>>;
    };
    // Operations of the paths and of the webhooks section (the event bodies, rendered under their
    // event kind). A path item also holds non-operations (`servers` of /nic/update, outside /api/v1).
    const documented = [...Object.entries(doc.paths), ...Object.entries(doc.webhooks ?? {})]
      .flatMap(([p, item]) =>
        Object.keys(item)
          .filter((k) => HTTP_METHODS.has(k))
          .map((m) => `${m.toUpperCase()} ${p}`),
      )
      .sort();
    expect(documented).toContain('POST zone.changed');
    expect(documented.length).toBeGreaterThan(20);

    await page.goto(`${lab.url}/docs`);
    await page.waitForSelector('body[data-docs-ready="true"]', { timeout: 15_000 });
    await page.waitForSelector('.opblock', { timeout: 15_000 });
    const rendered = await page.$$eval('.opblock', (blocks) =>
      blocks.map(
        (b) => `${b.querySelector('.opblock-summary-method')?.textContent?.trim()} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`,
      ),
    );
    expect(rendered.sort()).toEqual(documented);

    // The problem catalogue stays on the page: every problem's `type` points at its row.
    expect(await page.locator('#problem-validation_failed').count()).toBe(1);

    // Authorize with the reseller's lab token, then try GET /me.
    await page.click('.auth-wrapper button.authorize');
    await page.fill('.modal-ux input[type="text"]', lab.tokens.reseller);
    await page.click('.modal-ux .auth-btn-wrapper button.authorize');
    await page.click('.modal-ux button.btn-done');

    const me = page.locator('.opblock.opblock-get:has(.opblock-summary-path[data-path="/me"])');
    await me.locator('.opblock-summary').first().click();
    await me.locator('button.try-out__btn').click();
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${lab.url}/api/v1/me` && r.request().method() === 'GET'),
      me.locator('button.execute').click(),
    ]);
    expect(response.status()).toBe(200);
    expect(response.request().headers().authorization).toBe(`Bearer ${lab.tokens.reseller}`);
    const status = me.locator('.live-responses-table .response .response-col_status').first();
    await expect.poll(() => status.textContent(), { timeout: 10_000 }).toContain('200');
    const shown = await me.locator('.live-responses-table .response-col_description pre').first().textContent();
    expect(shown).toContain(lab.tokens.tenants.reseller);

    expect(outside, 'requests off this machine').toEqual([]);
    expect(consoleErrors, 'console errors (CSP violations included)').toEqual([]);
    // About 10 s here; room for a CI machine busy with the rest of the suite.
  }, 60_000);
});

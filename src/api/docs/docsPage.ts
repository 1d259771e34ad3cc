// The human docs page at /docs: Swagger UI (the npm package swagger-ui-dist, served from its own
// files — no CDN, works offline) reading /api/v1/openapi.json, with "Try it out" against this
// service and a Bearer token entered under "Authorize"; below it the problem catalogue, rendered
// here so that every problem's `type` (/docs#problem-<code>) lands on its row.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { errorCatalogue } from '../../domain/errors.js';

type Json = Record<string, any>;

export const DOCS_ASSET_BASE = '/docs/assets';

const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * The page's own script: a file, not inline, so the Content-Security-Policy can say
 * `script-src 'self'`. No validator (Swagger UI would send the document to an outside service)
 * and the hash left to the problem anchors rather than deep links.
 */
export function docsInitScript(openApiUrl: string): string {
  const options = {
    url: openApiUrl,
    dom_id: '#swagger-ui',
    validatorUrl: null,
    deepLinking: false,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
    showExtensions: true,
    showCommonExtensions: true,
    persistAuthorization: false,
    tryItOutEnabled: false,
  };
  return `"use strict";
window.addEventListener('DOMContentLoaded', function () {
  window.ui = SwaggerUIBundle(Object.assign(${JSON.stringify(options)}, {
    onComplete: function () { document.body.setAttribute('data-docs-ready', 'true'); }
  }));
});
`;
}

/** The files of swagger-ui-dist that the page uses, by the name they are served under. */
const ASSET_TYPES: Record<string, string> = {
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

export interface DocsAsset {
  type: string;
  body: Buffer;
}

/** Reads the package's files once, at start: a missing or renamed file fails the start, not a visitor. */
export function loadDocsAssets(): Map<string, DocsAsset> {
  const dir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  return new Map(Object.entries(ASSET_TYPES).map(([name, type]) => [name, { type, body: fs.readFileSync(path.join(dir, name)) }]));
}

export function renderDocsPage(doc: Json, openApiUrl: string): string {
  const problems = Object.entries(errorCatalogue)
    .map(
      ([c, e]) =>
        `<tr id="problem-${esc(c)}"><td><code>${esc(c)}</code></td><td>${e.status}</td><td>${esc(e.title.en)}</td><td lang="de">${esc(e.title.de)}</td></tr>`,
    )
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(doc.info.title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" type="image/png" href="${DOCS_ASSET_BASE}/favicon-32x32.png">
<link rel="stylesheet" href="${DOCS_ASSET_BASE}/swagger-ui.css">
<style>
body{margin:0}#problems{font:14px/1.5 sans-serif;max-width:1460px;margin:2rem auto;padding:0 20px;color:#3b4151}
#problems table{border-collapse:collapse;width:100%}#problems td,#problems th{border:1px solid #ddd;padding:.25rem .5rem;text-align:left}
#problems tr:target{background:#fff5c2}
</style></head><body>
<noscript><p>The interactive reference needs JavaScript; the machine-readable document is <a href="${esc(openApiUrl)}">${esc(openApiUrl)}</a>.</p></noscript>
<div id="swagger-ui"></div>
<section id="problems">
<h2>Problem codes</h2>
<p>Errors are RFC 7807 <code>application/problem+json</code> documents; branch on <code>code</code>. Titles and details follow <code>Accept-Language</code> (<code>en</code>, <code>de</code>).</p>
<table><tr><th>code</th><th>status</th><th>title (en)</th><th>title (de)</th></tr>${problems}</table>
</section>
<script src="${DOCS_ASSET_BASE}/swagger-ui-bundle.js"></script>
<script src="${DOCS_ASSET_BASE}/docs-init.js"></script>
</body></html>`;
}

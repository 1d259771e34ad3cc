// The human docs page at /docs: rendered once from the OpenAPI document into one self-contained
// HTML file (no scripts, no CDN), so it works offline.
import { errorCatalogue } from '../../domain/errors.js';

type Json = Record<string, any>;

const esc = (s: unknown) =>
  String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const code = (s: string) => esc(s).replace(/`([^`]+)`/g, '<code>$1</code>');

function operationHtml(path: string, method: string, op: Json): string {
  const params = (op.parameters as Json[])
    .map((p) => `<tr><td><code>${esc(p.name)}</code></td><td>${esc(p.in)}</td><td>${p.required ? 'yes' : ''}</td><td>${code(p.description ?? '')}</td><td><code>${esc(JSON.stringify(p.schema))}</code></td></tr>`)
    .join('');
  const body = op.requestBody
    ? `<h4>Request body</h4><pre>${esc(JSON.stringify(op.requestBody.content['application/json'].schema, null, 2))}</pre>`
    : '';
  const responses = Object.entries(op.responses as Json)
    .map(([status, r]) => {
      const schema = r.content && Object.values(r.content as Json)[0]?.schema;
      const shown = schema && !schema.$ref ? `<details><summary>schema</summary><pre>${esc(JSON.stringify(schema, null, 2))}</pre></details>` : '';
      return `<li><strong>${esc(status)}</strong> ${code(r.description)}${shown}</li>`;
    })
    .join('');
  const scopes = (op['x-required-scopes'] as string[]).map((s) => `<code>${esc(s)}</code>`).join(' and ') || 'any valid token';
  return `<section class="op" id="${esc(op.operationId)}">
<h3><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span> <code>/api/v1${esc(path)}</code></h3>
<p>${code(op.summary)}</p>${op.description ? `<p>${code(op.description)}</p>` : ''}
<p>Scopes: ${scopes}</p>
<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>required</th><th>description</th><th>schema</th></tr>${params}</table>
${body}<h4>Responses</h4><ul>${responses}</ul></section>`;
}

export function renderDocsPage(doc: Json): string {
  const byTag = new Map<string, string[]>();
  const toc = new Map<string, string[]>();
  for (const [path, methods] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(methods as Json)) {
      const tag = (op.tags as string[])[0]!;
      byTag.set(tag, [...(byTag.get(tag) ?? []), operationHtml(path, method, op)]);
      toc.set(tag, [...(toc.get(tag) ?? []), `<li><a href="#${esc(op.operationId)}">${esc(method.toUpperCase())} ${esc(path)}</a></li>`]);
    }
  }
  const problems = Object.entries(errorCatalogue)
    .map(([c, e]) => `<tr id="problem-${esc(c)}"><td><code>${esc(c)}</code></td><td>${e.status}</td><td>${esc(e.title.en)}</td><td>${esc(e.title.de)}</td></tr>`)
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(doc.info.title)}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem;color:#222}
code,pre{font:13px ui-monospace,monospace;background:#f4f4f4}pre{padding:.6rem;overflow:auto}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ddd;padding:.25rem .5rem;text-align:left;vertical-align:top}
.op{border-top:1px solid #ccc;margin-top:1.5rem}.m{padding:.1rem .4rem;border-radius:3px;color:#fff;background:#555}
.get{background:#2b7a2b}.post{background:#1f5fa8}.patch{background:#a86b1f}.delete{background:#a82b2b}.put{background:#6b1fa8}
</style></head><body>
<h1>${esc(doc.info.title)} <small>${esc(doc.info.version)}</small></h1>
<p>${esc(doc.info.description)}</p>
<p>Machine-readable: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI 3.1). Every request to <code>/api/v1</code> carries <code>Authorization: Bearer &lt;token&gt;</code>.</p>
<nav><h2>Operations</h2>${[...toc].map(([tag, items]) => `<h3>${esc(tag)}</h3><ul>${items.join('')}</ul>`).join('')}<p><a href="#problems">Problem codes</a></p></nav>
${[...byTag].map(([tag, ops]) => `<h2>${esc(tag)}</h2>${ops.join('')}`).join('')}
<h2 id="problems">Problem codes</h2>
<p>Errors are RFC 7807 <code>application/problem+json</code> documents; branch on <code>code</code>.</p>
<table><tr><th>code</th><th>status</th><th>title (en)</th><th>title (de)</th></tr>${problems}</table>
</body></html>`;
}

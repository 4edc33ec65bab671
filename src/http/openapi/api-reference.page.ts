import { createHash } from 'node:crypto';

type JsonObject = Record<string, unknown>;

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:70rem;margin:0 auto;padding:1rem;color:#1a1a1a}
code,pre{font:14px ui-monospace,monospace}pre{background:#f4f4f5;padding:.75rem;overflow:auto;border-radius:6px}
.op{border:1px solid #ddd;border-radius:8px;padding:.5rem 1rem;margin:1rem 0}
.m{display:inline-block;min-width:4.5rem;font-weight:700;text-transform:uppercase}
.get{color:#05668d}.post{color:#2a7d2e}.delete{color:#b00020}.patch,.put{color:#8a5a00}
summary{cursor:pointer}table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.25rem .5rem;text-align:left}
`;

/**
 * The page's Content-Security-Policy: nothing may load or run but its own inline style (allowed by
 * hash), and no one may frame it.
 */
export const API_REFERENCE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * A self-contained, readable API reference rendered from the OpenAPI document on the server: no
 * script, no CDN, works offline and with a screen reader.
 */
export function renderApiReference(doc: JsonObject): string {
  const info = doc.info as { title: string; version: string; description?: string };
  const paths = doc.paths as Record<string, Record<string, JsonObject>>;
  const byTag = new Map<string, Array<{ method: string; path: string; op: JsonObject }>>();
  for (const [path, methods] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const tag = ((op.tags as string[] | undefined) ?? ['Other'])[0] ?? 'Other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)?.push({ method, path, op });
    }
  }
  const sections = [...byTag.entries()]
    .map(([tag, ops]) => {
      const items = ops.map(({ method, path, op }) => renderOperation(method, path, op)).join('\n');
      return `<section aria-labelledby="tag-${escapeHtml(tag)}"><h2 id="tag-${escapeHtml(tag)}">${escapeHtml(tag)}</h2>${items}</section>`;
    })
    .join('\n');
  const toc = [...byTag.entries()]
    .map(([tag, ops]) => `<li><a href="#tag-${escapeHtml(tag)}">${escapeHtml(tag)}</a> (${ops.length})</li>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(info.title)} reference</title>
<style>${STYLE}</style></head><body>
<header><h1>${escapeHtml(info.title)} <small>v${escapeHtml(info.version)}</small></h1>
<p>${escapeHtml(info.description ?? '')}</p>
<p>Machine-readable: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI 3.1). Authenticate with <code>Authorization: Bearer &lt;API_KEY&gt;</code>.</p>
<nav aria-label="Sections"><ul>${toc}</ul></nav></header>
<main>${sections}</main></body></html>`;
}

function renderOperation(method: string, path: string, op: JsonObject): string {
  const security = (op.security as Array<Record<string, unknown>> | undefined) ?? [];
  const auth = security.length === 0 ? 'public' : Object.keys(security[0] ?? {}).join(', ');
  const params = (op.parameters as Array<{ name: string; in: string; required: boolean; schema: JsonObject; description?: string }> | undefined) ?? [];
  const paramTable = params.length
    ? `<table><caption>Parameters</caption><thead><tr><th scope="col">Name</th><th scope="col">In</th><th scope="col">Required</th><th scope="col">Schema</th></tr></thead><tbody>${params
        .map((p) => `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${escapeHtml(p.in)}</td><td>${p.required ? 'yes' : 'no'}</td><td><code>${escapeHtml(JSON.stringify(p.schema))}</code></td></tr>`)
        .join('')}</tbody></table>`
    : '';
  const body = (op.requestBody as { content: Record<string, { schema: unknown }> } | undefined)?.content['application/json']?.schema;
  const bodyBlock = body ? `<details><summary>Request body</summary><pre>${escapeHtml(JSON.stringify(body, null, 2))}</pre></details>` : '';
  const responses = Object.entries((op.responses as Record<string, { description: string; content?: Record<string, { schema: unknown }> }>) ?? {})
    .map(([status, r]) => {
      const schema = r.content ? Object.values(r.content)[0]?.schema : undefined;
      return `<li><strong>${escapeHtml(status)}</strong> ${escapeHtml(r.description)}${schema ? `<details><summary>Schema</summary><pre>${escapeHtml(JSON.stringify(schema, null, 2))}</pre></details>` : ''}</li>`;
    })
    .join('');
  return `<article class="op" id="${escapeHtml(String(op.operationId ?? ''))}">
<h3><span class="m ${escapeHtml(method)}">${escapeHtml(method)}</span> <code>${escapeHtml(path)}</code></h3>
<p>${escapeHtml(String(op.summary ?? ''))}</p>${op.description ? `<p>${escapeHtml(String(op.description))}</p>` : ''}
<p>Authentication: ${escapeHtml(auth)}</p>${paramTable}${bodyBlock}<h4>Responses</h4><ul>${responses}</ul></article>`;
}

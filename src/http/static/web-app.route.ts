import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config/config.types.ts';
import { AppError } from '../../domain/errors.ts';
import type { NotFoundPage } from '../error-handler.ts';
import { setPageSecurityHeaders } from './security-headers.ts';

/** Where scripts/build-web.ts writes the dashboard. */
export const WEB_DIST_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../web/dist');

/** Paths of the dashboard (client-side routes): each answers with index.html. */
export const DASHBOARD_PATHS = [
  '/',
  '/login',
  '/login/link',
  '/signup',
  '/keys',
  '/generations',
  '/generations/:id',
  '/playground',
  '/models',
  '/chat',
  '/agent',
  '/agent/new',
  '/agent/c/:id',
  '/webhooks',
  '/account',
  '/billing',
  '/projects',
  '/projects/:id',
  '/storage',
  '/admin',
  '/organizations',
  '/organizations/join',
  '/organizations/:id',
];

/** Files at the root of the build (copied from web/public). */
const ROOT_FILES = ['/favicon.svg', '/robots.txt'];

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
};
const COMPRESSIBLE = new Set(['.js', '.css', '.svg', '.json', '.txt']);
const ASSET_NAME = /^[A-Za-z0-9_.-]{1,200}$/;

/**
 * The page itself: scripts and styles only from this origin (the bundle holds no inline script and no
 * secret), files from anywhere (results may live on a public bucket), connections to this origin and
 * to the storage that takes attachment uploads (a presigned S3 PUT in scale-out), no framing.
 */
function pageCsp(uploadOrigins: string[]): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob: https: http:",
    "media-src 'self' blob: https: http:",
    `connect-src 'self'${uploadOrigins.map((o) => ` ${o}`).join('')}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Switchboard</title>
<p>The dashboard is not built yet. <code>npm start</code> builds it; or run <code>node scripts/build-web.ts</code>.</p>
<p>The API works without it: see <a href="/docs">/docs</a>.</p>`;

/** Attachments upload straight to S3 in scale-out: the page may connect there. */
export function webUploadOrigins(config: Pick<Config, 's3'>): string[] {
  return config.s3 ? [new URL(config.s3.endpoint).origin] : [];
}

/** Paths that are never the dashboard's: an unknown one under them keeps the API's JSON 404. */
const NOT_DASHBOARD = /^\/(api|admin\/v1|files|docs|assets|metrics|healthz|readyz)(\/|$)/;

/** The page (index.html) with its headers, with the status given: 200 for a dashboard path, 404 for an unknown one. */
function pageSender(distDir: string, uploadOrigins: string[]) {
  const csp = pageCsp(uploadOrigins);
  let page: { html: Buffer; mtimeMs: number } | undefined;
  const indexFile = join(distDir, 'index.html');
  return async (reply: FastifyReply, status: 200 | 404) => {
    setPageSecurityHeaders(reply, csp);
    reply.header('cache-control', 'no-cache');
    const info = await stat(indexFile).catch(() => undefined);
    if (!info) return reply.code(status === 404 ? 404 : 503).type('text/html; charset=utf-8').send(NOT_BUILT);
    if (!page || page.mtimeMs !== info.mtimeMs) page = { html: await readFile(indexFile), mtimeMs: info.mtimeMs };
    return reply.code(status).type('text/html; charset=utf-8').send(page.html);
  };
}

/**
 * For the error handler's not-found hook: a browser navigating to an unknown path (a GET that accepts
 * HTML, outside the API, files, docs and probes) gets the dashboard with status 404, and the dashboard
 * shows its own not-found page; anything else keeps the API's JSON 404.
 */
export function dashboardNotFoundPage(uploadOrigins: string[] = [], distDir: string = WEB_DIST_DIR): NotFoundPage {
  const send = pageSender(distDir, uploadOrigins);
  return (request, reply) => {
    if (request.method !== 'GET') return undefined;
    if (!String(request.headers.accept ?? '').includes('text/html')) return undefined;
    if (NOT_DASHBOARD.test(request.url.split('?')[0] ?? '')) return undefined;
    return send(reply, 404);
  };
}

/**
 * Serves the built dashboard (web/dist): index.html for every dashboard path (no-cache, so a new
 * deployment is picked up at once), content-hashed files under /assets immutable for a year, gzip
 * copies made at build time when the client accepts them.
 */
export function registerWebApp(app: FastifyInstance, distDir: string = WEB_DIST_DIR, uploadOrigins: string[] = []): void {
  const send = pageSender(distDir, uploadOrigins);
  const sendPage = (_request: FastifyRequest, reply: FastifyReply) => send(reply, 200);
  for (const path of DASHBOARD_PATHS) app.get(path, sendPage);

  const sendFile = async (request: FastifyRequest, reply: FastifyReply, relative: string, cacheControl: string) => {
    const file = join(distDir, relative);
    const ext = extname(file);
    const acceptsGzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
    const gz = COMPRESSIBLE.has(ext) && acceptsGzip ? await stat(`${file}.gz`).catch(() => undefined) : undefined;
    const info = gz ?? (await stat(file).catch(() => undefined));
    if (!info?.isFile()) throw new AppError('not_found', 'no such file');
    reply.header('content-type', CONTENT_TYPES[ext] ?? 'application/octet-stream');
    reply.header('cache-control', cacheControl);
    reply.header('x-content-type-options', 'nosniff');
    if (COMPRESSIBLE.has(ext)) reply.header('vary', 'accept-encoding');
    if (gz) reply.header('content-encoding', 'gzip');
    reply.header('content-length', String(info.size));
    return reply.send(createReadStream(gz ? `${file}.gz` : file));
  };

  app.get('/assets/:name', async (request, reply) => {
    const { name } = request.params as { name: string };
    if (!ASSET_NAME.test(name) || name.startsWith('.')) throw new AppError('not_found', 'no such file');
    // Names carry a content hash: a name never gets other content.
    return sendFile(request, reply, join('assets', name), 'public, max-age=31536000, immutable');
  });
  for (const path of ROOT_FILES) {
    app.get(path, (request, reply) => sendFile(request, reply, path.slice(1), 'public, max-age=86400'));
  }
}

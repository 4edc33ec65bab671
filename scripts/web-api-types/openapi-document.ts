/**
 * The gateway's OpenAPI document, built the way the server builds it (every route registered on a
 * Fastify app) but without listening: services on an embedded store in a temporary directory, from a
 * fixed environment, so the document does not depend on the caller's configuration.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../../src/config/load-config.ts';
import { buildServices } from '../../src/gateway.ts';
import { buildHttpApp } from '../../src/http/app.ts';
import type { AppServices } from '../../src/http/app-services.ts';
import type { JsonSchema } from './schema-to-ts.ts';

/** What the types are made from; the server URL and version in the document do not reach them. */
const SERVER_URL = 'http://127.0.0.1:8080';
const VERSION = '1.0';

async function closeServices(services: AppServices): Promise<void> {
  await services.chat.close();
  await services.agent.aborts.stop();
  await services.agent.hub.close();
  await services.chat.router.close();
  await services.bus.close();
  await services.rateLimiter.close();
  await services.mediaProviders.close();
  await services.outbound.close();
  await services.cpu.close();
  await services.database.close();
}

export async function buildOpenApiDocument(): Promise<JsonSchema> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-openapi-'));
  try {
    const config = loadConfig({ DATA_DIR: dataDir, SWITCHBOARD_DEMO_USER: '0', LOG_LEVEL: 'silent' });
    const services = await buildServices(config, pino({ level: 'silent' }));
    try {
      const { app, openapi } = buildHttpApp(services);
      await app.ready();
      const document = openapi.document(SERVER_URL, VERSION);
      await app.close();
      return document;
    } finally {
      await closeServices(services);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

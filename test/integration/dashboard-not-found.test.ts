/**
 * Unknown paths (issue 21, item 14): a browser navigating to one gets the dashboard's page with status
 * 404 (the page then shows its own not-found view), never the API's JSON; API clients, other methods
 * and the API's own prefixes keep the JSON 404 envelope.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('unknown paths: the dashboard for a browser, JSON for the API', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway('embedded');
  });
  after(async () => {
    await gw?.close();
  });

  test('a browser navigation gets the page with 404 and the page headers', async () => {
    for (const path of ['/nonexistent', '/keys/extra/segments', '/models/unknown?x=1']) {
      const res = await fetch(gw.url + path, { headers: { accept: HTML } });
      assert.equal(res.status, 404, path);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/, path);
      assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'self'/, path);
      assert.equal(res.headers.get('cache-control'), 'no-cache', path);
      assert.match(await res.text(), /<!doctype html>/i, path);
    }
  });

  test('API clients, other methods and the API prefixes keep the JSON 404', async () => {
    const cases: Array<[string, string, string]> = [
      ['GET', '/nonexistent', 'application/json'],
      ['GET', '/nonexistent', '*/*'],
      ['POST', '/nonexistent', HTML],
      ['GET', '/api/v1/nonexistent', HTML],
      ['GET', '/admin/v1/nonexistent', HTML],
      ['GET', '/files/nonexistent', HTML],
      ['GET', '/docs/nonexistent', HTML],
      ['GET', '/assets/', HTML],
      ['GET', '/metrics/extra', HTML],
    ];
    for (const [method, path, accept] of cases) {
      const res = await fetch(gw.url + path, { method, headers: { accept } });
      const where = `${method} ${path} (${accept})`;
      assert.equal(res.status, 404, where);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/, where);
      const body = (await res.json()) as { code?: number; error?: { code?: string } } & Record<string, unknown>;
      assert.ok(JSON.stringify(body).includes('not_found'), `${where}: ${JSON.stringify(body)}`);
    }
  });
});

import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError } from '../../../src/domain/config-error.ts';
import { loadConfig } from '../../../src/config/load-config.ts';

/** `${NAME}` as the operator writes it in the file. */
const envRef = (name: string) => `$${'{'}${name}}`;

const dir = mkdtempSync(join(tmpdir(), 'sb-config-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function refusal(env: Record<string, string>, field: string | RegExp): void {
  assert.throws(
    () => loadConfig(env, dir),
    (error: unknown) => error instanceof ConfigError && (typeof field === 'string' ? error.field === field : field.test(error.field)),
  );
}

test('defaults describe the embedded mode', () => {
  const config = loadConfig({}, dir);
  assert.equal(config.port, 8080);
  assert.equal(config.role, 'all');
  assert.equal(config.databaseUrl, undefined);
  assert.equal(config.redisUrl, undefined);
  assert.equal(config.s3, undefined);
  assert.equal(config.dataDir, join(dir, 'data'));
  assert.equal(config.fileRetentionMs, 3 * 24 * 3600 * 1000);
  assert.deepEqual(Object.keys(config.providers), ['local']);
});

test('bad environment values are refused with the variable named', () => {
  refusal({ PORT: 'eighty' }, 'PORT');
  refusal({ PORT: '70000' }, 'PORT');
  refusal({ ROLE: 'boss' }, 'ROLE');
  refusal({ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL');
  refusal({ REDIS_URL: 'http://x' }, 'REDIS_URL');
  refusal({ SWITCHBOARD_ALLOW_PRIVATE_URLS: 'maybe' }, 'SWITCHBOARD_ALLOW_PRIVATE_URLS');
  refusal({ S3_ENDPOINT: 'http://127.0.0.1:9000' }, 'S3_BUCKET');
  refusal({ LOG_LEVEL: 'loud' }, 'LOG_LEVEL');
  refusal({ SWITCHBOARD_LOCAL_FAILURE_RATE: '2' }, 'SWITCHBOARD_LOCAL_FAILURE_RATE');
});

test('a YAML file with providers, routes and environment-variable secrets is read', () => {
  const path = file(
    'ok.yaml',
    `providers:\n  kie-main:\n    type: kie\n    baseUrl: https://api.kie.ai\n    apiKey: ${envRef('KIE_KEY')}\nroutes:\n  sora-2: [kie-main, local]\n  nano-banana-2:\n    - provider: kie-main\n      model: google/nano-banana-2\nworker:\n  concurrency: 10\n`,
  );
  const config = loadConfig({ SWITCHBOARD_CONFIG: path, KIE_KEY: 'secret-1' }, dir);
  assert.equal(config.providers['kie-main']?.apiKey, 'secret-1');
  assert.deepEqual(config.routes['sora-2'], [
    { provider: 'kie-main', model: 'sora-2' },
    { provider: 'local', model: 'sora-2' },
  ]);
  assert.deepEqual(config.routes['nano-banana-2'], [{ provider: 'kie-main', model: 'google/nano-banana-2' }]);
  assert.equal(config.worker.concurrency, 10);
});

test('a bad file names the field', () => {
  refusal({ SWITCHBOARD_CONFIG: join(dir, 'missing.json') }, 'SWITCHBOARD_CONFIG');
  refusal({ SWITCHBOARD_CONFIG: file('bad.json', '{"providers": {"x": {"type": "kie"}}}') }, 'providers.x.baseUrl');
  refusal({ SWITCHBOARD_CONFIG: file('bad2.json', '{"routes": {"sora-2": ["nowhere"]}}') }, 'routes.sora-2[0]');
  refusal({ SWITCHBOARD_CONFIG: file('bad3.json', '{"providres": {}}') }, 'providres');
  refusal({ SWITCHBOARD_CONFIG: file('bad4.json', JSON.stringify({ providers: { x: { type: 'kie', baseUrl: 'https://a', apiKey: envRef('NOPE') } } })) }, 'providers.x.apiKey');
  refusal({ SWITCHBOARD_CONFIG: file('bad5.json', '{"models": {"sora-2": {"pricing": [{"key": "default", "price": "1.2345678"}]}}}') }, 'models.sora-2.pricing[0].price');
  refusal({ SWITCHBOARD_CONFIG: file('bad6.json', '{"worker": {"concurrency": 0}}') }, 'worker.concurrency');
  refusal({ SWITCHBOARD_CONFIG: file('bad7.yaml', 'providers: [oops') }, 'SWITCHBOARD_CONFIG');
});

test('an ADMIN_TOKEN shorter than 32 characters stops the start, with a message that says how to make one', () => {
  const short = 'test-admin-token-0123456789';
  assert.throws(
    () => loadConfig({ ADMIN_TOKEN: short }, dir),
    (error: unknown) => error instanceof ConfigError && error.field === 'ADMIN_TOKEN' && /at least 32/.test(error.message) && !error.message.includes(short),
  );
  assert.equal(loadConfig({ ADMIN_TOKEN: 'x'.repeat(32) }, dir).adminToken, 'x'.repeat(32));
  assert.equal(loadConfig({}, dir).adminToken, undefined, 'unset: the admin API is off');
});

test('abuse limits and webhook ports have defaults, and the config file and environment change them', () => {
  const defaults = loadConfig({}, dir);
  assert.deepEqual(defaults.webhooks, { ports: [80, 443], allowHttp: false });
  assert.deepEqual(defaults.limits.redeemPerKey, { max: 10, windowMs: 600_000 });
  assert.equal(defaults.limits.eventStreamsPerUser, 20);
  const path = file('limits.json', JSON.stringify({ limits: { checkoutsPerUser: { max: 3, windowSeconds: 60 }, eventStreamsPerUser: 4 } }));
  const config = loadConfig({ SWITCHBOARD_CONFIG: path, SWITCHBOARD_WEBHOOK_PORTS: '443, 8443', SWITCHBOARD_ALLOW_HTTP_WEBHOOKS: '1' }, dir);
  assert.deepEqual(config.limits.checkoutsPerUser, { max: 3, windowMs: 60_000 });
  assert.deepEqual(config.limits.redeemPerAccount, defaults.limits.redeemPerAccount, 'what is not named keeps its default');
  assert.equal(config.limits.eventStreamsPerUser, 4);
  assert.deepEqual(config.webhooks, { ports: [443, 8443], allowHttp: true });
  assert.equal(loadConfig({ SWITCHBOARD_WEBHOOK_PORTS: 'any' }, dir).webhooks.ports, 'any');
  refusal({ SWITCHBOARD_WEBHOOK_PORTS: '443,https' }, 'SWITCHBOARD_WEBHOOK_PORTS');
  refusal({ SWITCHBOARD_ALLOW_HTTP_WEBHOOKS: 'maybe' }, 'SWITCHBOARD_ALLOW_HTTP_WEBHOOKS');
  assert.deepEqual(defaults.webhookSending, { slots: 64, timeoutMs: 10_000 });
  assert.deepEqual(loadConfig({ SWITCHBOARD_WEBHOOK_CONCURRENCY: '16', SWITCHBOARD_WEBHOOK_TIMEOUT_MS: '3000' }, dir).webhookSending, { slots: 16, timeoutMs: 3_000 });
  refusal({ SWITCHBOARD_WEBHOOK_CONCURRENCY: '0' }, 'SWITCHBOARD_WEBHOOK_CONCURRENCY');
  refusal({ SWITCHBOARD_WEBHOOK_TIMEOUT_MS: '500' }, 'SWITCHBOARD_WEBHOOK_TIMEOUT_MS');
  refusal({ SWITCHBOARD_CONFIG: file('bad-limit.json', JSON.stringify({ limits: { redeemPerKey: { max: 0 } } })) }, 'limits.redeemPerKey.max');
  refusal({ SWITCHBOARD_CONFIG: file('bad-name.json', JSON.stringify({ limits: { guesses: 3 } })) }, 'limits.guesses');
});

test('the limits wait 150 ms for Redis unless SWITCHBOARD_REDIS_TIMEOUT_MS says otherwise, within 10 ms to 5 s', () => {
  assert.equal(loadConfig({}, dir).redisCommandTimeoutMs, 150);
  assert.equal(loadConfig({ SWITCHBOARD_REDIS_TIMEOUT_MS: '1000' }, dir).redisCommandTimeoutMs, 1000);
  refusal({ SWITCHBOARD_REDIS_TIMEOUT_MS: '5' }, 'SWITCHBOARD_REDIS_TIMEOUT_MS');
  refusal({ SWITCHBOARD_REDIS_TIMEOUT_MS: 'soon' }, 'SWITCHBOARD_REDIS_TIMEOUT_MS');
});

test('added text models and overrides take cache-write and web-search prices; a 1 h price needs the 5 min one', () => {
  const ok = file('cache-prices.yaml', [
    'chatModels:',
    '  - { id: opus-5, inputPrice: "5", outputPrice: "25", cacheWritePrice: "6.25", cacheWrite1hPrice: "10", webSearchPrice: "10" }',
    'models:',
    '  claude-haiku-4-5: { cacheWritePrice: "1.5" }',
  ].join('\n'));
  const config = loadConfig({ SWITCHBOARD_CONFIG: ok }, dir);
  const added = config.addedChatModels[0];
  assert.deepEqual([added?.cacheWritePrice, added?.cacheWrite1hPrice, added?.webSearchPrice], ['6.25', '10', '10']);
  assert.equal(config.models['claude-haiku-4-5']?.cacheWritePrice, '1.5');
  refusal({ SWITCHBOARD_CONFIG: file('one-hour-only.yaml', 'chatModels:\n  - { id: x, inputPrice: "1", outputPrice: "1", cacheWrite1hPrice: "2" }\n') }, 'chatModels[0].cacheWrite1hPrice');
  refusal({ SWITCHBOARD_CONFIG: file('bad-write.yaml', 'chatModels:\n  - { id: x, inputPrice: "1", outputPrice: "1", cacheWritePrice: "cheap" }\n') }, 'chatModels[0].cacheWritePrice');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../../src/config/load-config.ts';
import { ConfigError } from '../../../src/domain/config-error.ts';

test('single sign-on providers: presets from the environment, a generic one, sorted by name', () => {
  const config = loadConfig({
    SWITCHBOARD_OIDC_GOOGLE_CLIENT_ID: 'g-id',
    SWITCHBOARD_OIDC_GOOGLE_CLIENT_SECRET: 'g-secret',
    SWITCHBOARD_OIDC_GITHUB_CLIENT_ID: 'gh-id',
    SWITCHBOARD_OIDC_GITHUB_CLIENT_SECRET: 'gh-secret',
    SWITCHBOARD_OIDC_MY_CORP_ISSUER: 'https://login.corp.example/',
    SWITCHBOARD_OIDC_MY_CORP_CLIENT_ID: 'corp-id',
    SWITCHBOARD_OIDC_MY_CORP_LABEL: 'Corp',
  });
  assert.deepEqual(config.sso.map((p) => [p.name, p.type, p.label, p.issuer]), [
    ['github', 'github', 'GitHub', 'https://github.com'],
    ['google', 'oidc', 'Google', 'https://accounts.google.com'],
    ['my-corp', 'oidc', 'Corp', 'https://login.corp.example'],
  ]);
  assert.equal(config.sso[2]?.clientSecret, undefined, 'a public client');
  assert.deepEqual(config.sso[1]?.scopes, ['openid', 'email', 'profile']);
  assert.deepEqual(config.sso[0]?.github?.apiBaseUrl, 'https://api.github.com');
  assert.deepEqual(loadConfig({}).sso, []);
});

test('a bad provider stops the start with the field named', () => {
  assert.throws(() => loadConfig({ SWITCHBOARD_OIDC_CORP_CLIENT_ID: 'x' }), (e: unknown) => e instanceof ConfigError && /SWITCHBOARD_OIDC_CORP_ISSUER/.test(e.message));
  assert.throws(() => loadConfig({ SWITCHBOARD_OIDC_CORP_ISSUER: 'http://login.corp.example', SWITCHBOARD_OIDC_CORP_CLIENT_ID: 'x' }), /https/);
  assert.throws(() => loadConfig({ SWITCHBOARD_OIDC_GITHUB_CLIENT_ID: 'x' }), /clientSecret|CLIENT_SECRET/);
});

test('the config file names providers under oidc.providers; the environment wins field by field', async () => {
  const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'sb-oidc-'));
  try {
    const file = join(dir, 'switchboard.yaml');
    writeFileSync(file, 'oidc:\n  providers:\n    corp:\n      issuer: https://login.corp.example\n      clientId: corp-id\n      clientSecret: $' + '{CORP_SECRET}\n      label: Corp SSO\n');
    const config = loadConfig({ SWITCHBOARD_CONFIG: file, CORP_SECRET: 's3cret', SWITCHBOARD_OIDC_CORP_LABEL: 'Corp' });
    assert.deepEqual(config.sso.map((p) => [p.name, p.label, p.clientId, p.clientSecret]), [['corp', 'Corp', 'corp-id', 's3cret']]);
    writeFileSync(file, 'oidc:\n  providers:\n    corp:\n      clientID: x\n');
    assert.throws(() => loadConfig({ SWITCHBOARD_CONFIG: file }), /oidc\.providers\.corp\.clientID/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

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

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OutboundUrlError } from '../../../src/adapters/outbound/outbound-url-error.ts';
import { assertPublicUrl } from '../../../src/adapters/outbound/url-policy.ts';

function reasonOf(url: string, allowPrivate = false): string {
  try {
    assertPublicUrl(url, allowPrivate);
    return 'ok';
  } catch (error) {
    assert.ok(error instanceof OutboundUrlError, String(error));
    assert.equal(error.url, url);
    return error.reason;
  }
}

describe('assertPublicUrl', () => {
  test('public http and https URLs pass and come back parsed', () => {
    assert.equal(assertPublicUrl('https://example.com/a.png?x=1', false).pathname, '/a.png');
    assert.equal(reasonOf('http://93.184.215.14:8080/'), 'ok');
    assert.equal(reasonOf('https://[2606:4700:4700::1111]/'), 'ok');
  });

  test('other schemes and malformed URLs are refused', () => {
    assert.equal(reasonOf('ftp://example.com/file'), 'scheme');
    assert.equal(reasonOf('file:///etc/passwd'), 'scheme');
    assert.equal(reasonOf('gopher://127.0.0.1:6379/_INFO'), 'scheme');
    assert.equal(reasonOf('javascript:alert(1)'), 'scheme');
    assert.equal(reasonOf('data:image/png;base64,AAAA'), 'scheme');
    assert.equal(reasonOf('not a url'), 'invalid_url');
    assert.equal(reasonOf('/relative/path'), 'invalid_url');
    assert.equal(reasonOf('https://user:secret@example.com/'), 'invalid_url');
  });

  test('literal private, loopback and metadata addresses are refused in all their spellings', () => {
    for (const url of [
      'http://127.0.0.1/',
      'http://127.1/',
      'http://0x7f000001/',
      'http://2130706433/',
      'http://0177.0.0.1/',
      'http://0/',
      'http://10.0.0.1/',
      'http://192.168.0.1:8080/admin',
      'http://169.254.169.254/latest/meta-data/',
      'http://100.64.0.1/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://[fd00:ec2::254]/',
      'http://[fe80::1]/',
      'http://[64:ff9b::a9fe:a9fe]/',
      'http://localhost:3000/',
      'http://api.localhost/',
      'http://LOCALHOST./',
    ]) {
      assert.equal(reasonOf(url), 'private_address', url);
    }
  });

  test('the operator switch opens private ranges but never unspecified or multicast', () => {
    assert.equal(reasonOf('http://127.0.0.1:8080/', true), 'ok');
    assert.equal(reasonOf('http://localhost/', true), 'ok');
    assert.equal(reasonOf('http://[::1]/', true), 'ok');
    assert.equal(reasonOf('http://169.254.169.254/', true), 'ok');
    assert.equal(reasonOf('http://0.0.0.0/', true), 'private_address');
    assert.equal(reasonOf('http://224.0.0.1/', true), 'private_address');
    assert.equal(reasonOf('http://255.255.255.255/', true), 'private_address');
  });

  test('names are not resolved here: a name passes and the client checks it at connect time', () => {
    assert.equal(reasonOf('http://internal.example.com/'), 'ok');
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { classifyAddress, isAddressAllowed, parseIPv6 } from '../../../src/adapters/outbound/ip-ranges.ts';

describe('classifyAddress', () => {
  test('ordinary public addresses are allowed', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '93.184.215.14', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:8.8.8.8', '[2001:4860:4860::8888]']) {
      assert.deepEqual(classifyAddress(address), { allowed: true }, address);
    }
  });

  test('private, loopback, link-local, metadata, CGNAT and documentation ranges are private', () => {
    const cases: Array<[string, RegExp]> = [
      ['127.0.0.1', /loopback/u],
      ['127.255.255.254', /loopback/u],
      ['10.1.2.3', /10\.0\.0\.0\/8/u],
      ['172.16.0.1', /172\.16\.0\.0\/12/u],
      ['172.31.255.255', /172\.16\.0\.0\/12/u],
      ['192.168.1.1', /192\.168/u],
      ['169.254.169.254', /metadata/u],
      ['100.64.0.1', /carrier-grade/u],
      ['100.127.255.255', /carrier-grade/u],
      ['192.0.0.170', /IETF/u],
      ['192.0.2.10', /documentation/u],
      ['198.51.100.7', /documentation/u],
      ['203.0.113.9', /documentation/u],
      ['198.18.0.1', /benchmarking/u],
      ['::1', /loopback/u],
      ['fe80::1', /link-local/u],
      ['fd00:ec2::254', /unique local/u],
      ['fc00::1', /unique local/u],
      ['64:ff9b::a9fe:a9fe', /NAT64/u],
      ['64:ff9b:1::1', /NAT64/u],
      ['::127.0.0.1', /IPv4-compatible/u],
      ['2001:db8::1', /documentation/u],
      ['2001::1', /Teredo/u],
      ['2002:c0a8:0101::1', /6to4/u],
      ['fec0::1', /site-local/u],
      ['100::1', /discard/u],
    ];
    for (const [address, range] of cases) {
      const verdict = classifyAddress(address);
      assert.equal(verdict.allowed, false, address);
      if (!verdict.allowed) {
        assert.equal(verdict.kind, 'private', address);
        assert.match(verdict.range, range, address);
      }
    }
  });

  test('IPv4-mapped IPv6 is judged by its IPv4 part, in every spelling', () => {
    for (const address of ['::ffff:127.0.0.1', '::ffff:7f00:1', '0:0:0:0:0:ffff:7f00:0001', '::FFFF:169.254.169.254', '::ffff:a9fe:a9fe']) {
      const verdict = classifyAddress(address);
      assert.equal(verdict.allowed, false, address);
      if (!verdict.allowed) assert.match(verdict.range, /^IPv4-mapped/u, address);
    }
  });

  test('unspecified, multicast and broadcast are never destinations, even with private allowed', () => {
    for (const address of ['0.0.0.0', '0.1.2.3', '224.0.0.1', '239.255.255.250', '255.255.255.255', '240.0.0.1', '::', 'ff02::1', '::ffff:0.0.0.0']) {
      const verdict = classifyAddress(address);
      assert.equal(verdict.allowed, false, address);
      if (!verdict.allowed) assert.equal(verdict.kind, 'never', address);
      assert.equal(isAddressAllowed(address, true), false, address);
    }
    assert.equal(isAddressAllowed('127.0.0.1', true), true);
    assert.equal(isAddressAllowed('127.0.0.1', false), false);
    assert.equal(isAddressAllowed('fd00::1', true), true);
  });

  test('text that is not an address is refused', () => {
    assert.deepEqual(classifyAddress('example.com'), { allowed: false, range: 'not an IP address', kind: 'never' });
    assert.equal(classifyAddress('1.2.3').allowed, false);
  });
});

describe('parseIPv6', () => {
  test('expands every textual form to the same 16 bytes', () => {
    const hex = (text: string): string => Buffer.from(parseIPv6(text) ?? []).toString('hex');
    assert.equal(hex('::1'), '00000000000000000000000000000001');
    assert.equal(hex('::ffff:1.2.3.4'), '00000000000000000000ffff01020304');
    assert.equal(hex('::ffff:0102:0304'), hex('::ffff:1.2.3.4'));
    assert.equal(hex('2001:db8::8:800:200c:417a'), '20010db80000000000080800200c417a');
    assert.equal(hex('fe80::1%eth0'), 'fe800000000000000000000000000001');
    assert.equal(parseIPv6('1.2.3.4'), undefined);
    assert.equal(parseIPv6('1::2::3'), undefined);
  });
});

/** A delivery's recorded error as the Settings page shows it: in words, never with an address. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeDeliveryError } from '../../../src/services/agent/events/delivery-error-words.ts';

test('HTTP answers, socket errors, refusals and time-outs read as words', () => {
  assert.equal(describeDeliveryError(null), null);
  assert.equal(describeDeliveryError('HTTP 503'), 'the receiver answered HTTP 503');
  assert.equal(describeDeliveryError('HTTP 503; gave up after 8 attempts'), 'the receiver answered HTTP 503; gave up after 8 attempts');
  assert.equal(describeDeliveryError('request failed: connect ECONNREFUSED 127.0.0.1:9'), 'the receiver refused the connection (nothing listens on that port?)');
  assert.equal(describeDeliveryError('connect: read ECONNRESET; gave up after 8 attempts'), 'the receiver closed the connection before answering; gave up after 8 attempts');
  assert.equal(describeDeliveryError('timeout: no complete answer within 15000 ms'), 'the receiver did not answer in time');
  assert.match(describeDeliveryError('destination refused: the address 10.0.0.7 is not allowed: private') ?? '', /^the destination was refused/);
});

test('no IPv4 or IPv6 address survives, whatever the text', () => {
  for (const raw of [
    'destination refused: the address 192.168.1.20 is not allowed: private',
    'request failed: connect EHOSTUNREACH fd00::1:443',
    'something odd at [2001:db8::5]:8443 and 172.16.0.1',
    'connect: something unforeseen from 100.64.0.1',
  ]) {
    const words = describeDeliveryError(raw) ?? '';
    for (const address of ['192.168.1.20', 'fd00::1', '2001:db8::5', '172.16.0.1', '100.64.0.1']) assert.equal(words.includes(address), false, `${raw} → ${words}`);
  }
});

import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { test } from 'node:test';
import { pino } from 'pino';
import { AddressConnectionCap } from '../../../src/http/address-connection-cap.ts';

// Issue 29, item 13: the per-address cap counts an IPv6 /64 as one address and leaves the trusted proxies alone.

class FakeSocket extends EventEmitter {
  destroyed = false;
  readonly remoteAddress: string;
  constructor(address: string) {
    super();
    this.remoteAddress = address;
  }
  destroy(): void {
    this.destroyed = true;
    this.emit('close');
  }
}

function capped(max: number, trustProxy: string[] | false): (address: string) => FakeSocket {
  const server = new EventEmitter();
  new AddressConnectionCap(max, trustProxy, pino({ level: 'silent' })).attach(server as unknown as Server);
  return (address) => {
    const socket = new FakeSocket(address);
    server.emit('connection', socket as unknown as Socket);
    return socket;
  };
}

test('an IPv6 /64 is one address; an IPv4-mapped address counts as its IPv4 address; a close frees a slot', () => {
  const accept = capped(2, false);
  assert.equal(accept('2001:db8:1:2::1').destroyed, false);
  assert.equal(accept('2001:db8:1:2:ffff::9').destroyed, false);
  assert.equal(accept('2001:db8:1:2:abcd::7').destroyed, true, 'the third of one /64 is refused');
  assert.equal(accept('2001:db8:1:3::1').destroyed, false, 'the next /64 is another address');
  const first = accept('192.0.2.7');
  accept('::ffff:192.0.2.7');
  assert.equal(accept('192.0.2.7').destroyed, true);
  first.destroy();
  assert.equal(accept('192.0.2.7').destroyed, false);
});

test('the TRUST_PROXY addresses (an address, a CIDR, a keyword) are not capped', () => {
  const accept = capped(1, ['198.51.100.4', '10.1.0.0/16', 'loopback']);
  for (const address of ['198.51.100.4', '10.1.2.3', '127.0.0.1', '::1']) {
    for (let i = 0; i < 3; i++) assert.equal(accept(address).destroyed, false, address);
  }
  accept('203.0.113.1');
  assert.equal(accept('203.0.113.1').destroyed, true);
});

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { MemoryEventBus } from '../../src/adapters/bus/memory-event-bus.ts';
import { RedisEventBus } from '../../src/adapters/bus/redis-event-bus.ts';
import type { EventBus } from '../../src/ports/event-bus.port.ts';
import { serviceSkipReason, TEST_REDIS_URL } from '../support/services.ts';

const next = (bus: EventBus, topic: string) =>
  new Promise<{ payload: string; off: () => Promise<void> }>((resolve) => {
    let off: () => Promise<void> = async () => {};
    void bus.subscribe(topic, (payload) => resolve({ payload, off })).then((o) => {
      off = o;
    });
  });

for (const kind of ['memory', 'redis'] as const) {
  describe(`event bus [${kind}]`, async () => {
    const skip = kind === 'redis' ? await serviceSkipReason('Redis', TEST_REDIS_URL) : undefined;
    const make = (): EventBus => (kind === 'memory' ? new MemoryEventBus() : new RedisEventBus(TEST_REDIS_URL, { prefix: `sbtest:${randomBytes(4).toString('hex')}:` }));

    test('delivers to every subscriber of the topic and not to others', { skip }, async () => {
      const bus = make();
      const got: string[] = [];
      const offA = await bus.subscribe('t1', (p) => got.push(`a:${p}`));
      const offB = await bus.subscribe('t1', (p) => got.push(`b:${p}`));
      const offC = await bus.subscribe('t2', (p) => got.push(`c:${p}`));
      await bus.publish('t1', 'hello');
      const deadline = Date.now() + 2000;
      while (got.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(got.sort(), ['a:hello', 'b:hello']);
      await offA();
      await offB();
      await offC();
      await bus.close();
    });

    test('an unsubscribed handler gets nothing more', { skip }, async () => {
      const bus = make();
      const got: string[] = [];
      const off = await bus.subscribe('t3', (p) => got.push(p));
      await off();
      const probe = next(bus, 't3');
      await new Promise((r) => setTimeout(r, 10));
      await bus.publish('t3', 'late');
      assert.equal((await probe).payload, 'late');
      assert.deepEqual(got, []);
      await bus.close();
    });
  });
}

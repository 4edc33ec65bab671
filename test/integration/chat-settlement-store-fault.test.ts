/**
 * A settlement that meets a fault of the store is tried again, so the request is charged exactly
 * rather than left to the chat_settle job (which releases the hold whole: the answer would be free).
 * The fault is PostgreSQL's own: a trigger on the hold row raises a serialization failure (40001) the
 * first `n` times the settlement deletes it, counted by a sequence, which no rollback undoes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { SETTLE_RETRY_DELAYS_MS } from '../../src/services/chat/chat.service.ts';
import { assertSettled, expectedCost, heldMicro, latestRow, openAiClient, prices, startChatFakes } from '../support/chat-gateway.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { serviceSkipReason, TEST_DATABASE_URL, TEST_REDIS_URL } from '../support/services.ts';

const skip = (await serviceSkipReason('PostgreSQL', TEST_DATABASE_URL)) ?? (await serviceSkipReason('Redis', TEST_REDIS_URL));

describe('chat settlement through a store fault [scaleout]', { skip }, () => {
  let gw: TestGateway;
  const fakes = { value: undefined as Awaited<ReturnType<typeof startChatFakes>> | undefined };

  before(async () => {
    fakes.value = await startChatFakes();
    gw = await startTestGateway('scaleout', { configFile: fakes.value.config });
  });
  after(async () => {
    await gw?.close();
    await fakes.value?.close();
  });

  /** The next `failures` deletions of a hold row fail with SQLSTATE 40001, then they pass. */
  async function failSettlements(failures: number): Promise<void> {
    const db = gw.gateway.services.database.db;
    await sql`DROP TRIGGER IF EXISTS hold_delete_fault ON chat_holds`.execute(db);
    await sql`DROP SEQUENCE IF EXISTS hold_delete_faults`.execute(db);
    await sql`CREATE SEQUENCE hold_delete_faults`.execute(db);
    await sql.raw(`CREATE OR REPLACE FUNCTION hold_delete_fault() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF nextval('hold_delete_faults') <= ${failures} THEN
          RAISE EXCEPTION 'injected serialization failure' USING ERRCODE = '40001';
        END IF;
        RETURN OLD;
      END $$`).execute(db);
    await sql`CREATE TRIGGER hold_delete_fault BEFORE DELETE ON chat_holds FOR EACH ROW EXECUTE FUNCTION hold_delete_fault()`.execute(db);
  }

  test('a serialization failure at settlement is retried: the request is charged exactly once and its hold released', async () => {
    const { key, userId } = await gw.createUser(100);
    await failSettlements(2);
    fakes.value?.openai.enqueue({ text: 'One two three.', usage: { input: 40, output: 7 } });
    const answer = await openAiClient(gw, key).chat.completions.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'Count.' }] });
    assert.equal(answer.choices[0]?.message.content, 'One two three.');
    const row = await latestRow(gw, userId, 10_000);
    await assertSettled(gw, userId, row.id, expectedCost(await prices(gw, key, 'gpt-5.4-mini'), { input: 40, output: 7 }));
    assert.equal(row.status, 'succeeded');
    assert.equal(await heldMicro(gw, userId), 0);
  });

  test('a stream settles through the same fault before its last event: the client reads [DONE] with its charge final', async () => {
    const { key, userId } = await gw.createUser(100);
    await failSettlements(1);
    fakes.value?.openai.enqueue({ text: 'Four five.', usage: { input: 30, output: 5 }, fragment: true });
    const stream = await openAiClient(gw, key).chat.completions.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'More.' }], stream: true });
    let text = '';
    let id = '';
    for await (const chunk of stream) {
      id = chunk.id;
      text += chunk.choices[0]?.delta.content ?? '';
    }
    assert.equal(text, 'Four five.');
    // Settled before the last event went out, so the hold is gone as soon as the stream ends.
    assert.equal(await heldMicro(gw, userId), 0);
    await assertSettled(gw, userId, id, expectedCost(await prices(gw, key, 'gpt-5.4-mini'), { input: 30, output: 5 }));
  });

  test('a fault that outlasts the retries leaves the hold to the chat_settle job, and the answer still reaches the client', async () => {
    const { key, userId } = await gw.createUser(100);
    await failSettlements(SETTLE_RETRY_DELAYS_MS.length + 1);
    fakes.value?.openai.enqueue({ text: 'Six.', usage: { input: 20, output: 2 } });
    const answer = await openAiClient(gw, key).chat.completions.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'Last.' }] });
    assert.equal(answer.choices[0]?.message.content, 'Six.', 'money had not moved: the answer is not turned into an error');
    const tries = async () => Number((await sql<{ last_value: string }>`SELECT last_value FROM hold_delete_faults`.execute(gw.gateway.services.database.db)).rows[0]?.last_value);
    const deadline = Date.now() + 10_000;
    while ((await tries()) < SETTLE_RETRY_DELAYS_MS.length + 1) {
      assert.ok(Date.now() < deadline, 'every try was made');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Longer than the longest wait between tries: a further try would have passed (the trigger lets the next one through).
    await new Promise((resolve) => setTimeout(resolve, 2 * Math.max(...SETTLE_RETRY_DELAYS_MS)));
    assert.equal(await tries(), SETTLE_RETRY_DELAYS_MS.length + 1, 'one try and its retries, then no more');
    assert.ok((await heldMicro(gw, userId)) > 0, 'the hold waits for the chat_settle job, nothing charged');
    await failSettlements(0);
  });
});

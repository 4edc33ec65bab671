/**
 * The bound on count_tokens' text (issue 29, item 8): more than 8 MiB of characters is a 400 in
 * Anthropic's error shape naming `messages`, with no row, hold or charge; a large prompt within it is
 * counted right, by the local model's tokenizer and by the approximate count, in the CPU pool (the
 * pool's count of answered tasks); a small one is counted on the loop. SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { balanceMicro, heldMicro } from '../support/chat-gateway.ts';
import { describeEachMode } from '../support/gateway.ts';

const config = {
  // An OpenAI-style upstream has no count endpoint (never called for a count): the gateway estimates.
  providers: { oa: { type: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-unused', timeoutMs: 1000 } },
  routes: { 'claude-haiku-4-5': [{ provider: 'oa', model: 'haiku-on-openai' }] },
};

const MIB = 1024 * 1024;

describeEachMode(
  'count_tokens: the bound on text, large prompts counted in the CPU pool',
  (ctx) => {
    test('more than 8 MiB of text is refused in Anthropic\'s shape, naming messages, and changes nothing', async () => {
      const { key, userId } = await ctx.gw.createUser(0);
      for (const model of ['claude-sonnet-4-6', 'claude-haiku-4-5']) {
        const body = { model, system: 'be brief', messages: [{ role: 'user', content: 'a'.repeat(8 * MIB - 7) }] };
        const res = await ctx.gw.api(key, 'POST', '/api/v1/messages/count_tokens', body);
        assert.equal(res.status, 400, model);
        const error = res.body as { type: string; error: { type: string; code: string; message: string } };
        assert.deepEqual([error.type, error.error.type, error.error.code], ['error', 'invalid_request_error', 'invalid_input'], model);
        assert.match(error.error.message, /8388609 characters of text; the gateway counts at most 8388608/);
      }
      const rows = await ctx.gw.gateway.services.database.db.selectFrom('chat_requests').select('id').where('user_id', '=', userId).execute();
      assert.deepEqual(rows, []);
      assert.equal(await balanceMicro(ctx.gw, userId), 0);
      assert.equal(await heldMicro(ctx.gw, userId), 0);
    });

    test('a large prompt is counted exactly by the local model and estimated, both in the CPU pool; a small one on the loop', async () => {
      const { key } = await ctx.gw.createUser(0);
      const cpu = ctx.gw.gateway.services.cpu;
      // 'word, ' is two local tokens (a word and a mark); one message adds 4.
      const words = 100_000;
      const large = { messages: [{ role: 'user', content: 'word, '.repeat(words) }] };
      const before = cpu.answered('countPromptTokens');
      const local = await ctx.gw.api(key, 'POST', '/api/v1/messages/count_tokens', { model: 'claude-sonnet-4-6', ...large });
      assert.equal(local.status, 200);
      assert.deepEqual(local.body, { input_tokens: 2 * words + 4 });
      assert.equal(local.headers.get('x-switchboard-token-count'), 'counted');
      const estimated = await ctx.gw.api(key, 'POST', '/api/v1/messages/count_tokens', { model: 'claude-haiku-4-5', ...large });
      assert.equal(estimated.status, 200);
      // The estimate: a short word one token, a comma one, spaces none; 3 per message.
      assert.deepEqual(estimated.body, { input_tokens: 2 * words + 3, estimated: true });
      assert.equal(cpu.answered('countPromptTokens'), before + 2, 'both counted in the pool');
      const small = await ctx.gw.api(key, 'POST', '/api/v1/messages/count_tokens', { model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'word, '.repeat(100) }] });
      assert.deepEqual(small.body, { input_tokens: 204 });
      assert.equal(cpu.answered('countPromptTokens'), before + 2, 'a small prompt stays on the loop');
    });
  },
  { configFile: config },
);

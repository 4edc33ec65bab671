/**
 * The key door on embeddings and count_tokens (issue 29, item 2), in both modes: a model outside the
 * key's allow-list is refused (403, nothing held) and both count towards the key's requests per minute.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachMode } from '../support/gateway.ts';
import { assertBooks, balanceMicro, createLimitedKey } from '../support/limited-keys.ts';

const countBody = (model: string) => ({ model, messages: [{ role: 'user', content: 'how many tokens is this?' }] });

describeEachMode('the key door on embeddings and count_tokens', (ctx) => {
  test('embeddings and count_tokens: a model outside the allow-list is 403 in the protocol\'s shape, nothing held', async () => {
    const { key: owner, userId } = await ctx.gw.createUser(1_000);
    const before = await balanceMicro(ctx.gw, userId);
    const limited = await createLimitedKey(ctx.gw, owner, { allowedModels: ['text-embedding-3-small', 'claude-sonnet-4-6'] });

    const embed = await ctx.gw.api(limited.key, 'POST', '/api/v1/embeddings', { model: 'bge-m3', input: 'not this model' });
    assert.equal(embed.status, 403, JSON.stringify(embed.body));
    assert.equal((embed.body as { error: { code: string; param: string } }).error.code, 'forbidden');
    assert.equal((embed.body as { error: { param: string } }).error.param, 'model');
    const allowed = await ctx.gw.api(limited.key, 'POST', '/api/v1/embeddings', { model: 'text-embedding-3-small', input: 'this one' });
    assert.equal(allowed.status, 200, JSON.stringify(allowed.body));

    const count = await ctx.gw.api(limited.key, 'POST', '/api/v1/messages/count_tokens', countBody('claude-opus-4-7'));
    assert.equal(count.status, 403, JSON.stringify(count.body));
    assert.equal((count.body as { type: string; error: { type: string } }).type, 'error', 'the Anthropic error object');
    assert.equal((count.body as { error: { type: string } }).error.type, 'permission_error');

    const requests = await ctx.gw.gateway.services.database.db.selectFrom('chat_requests').select('model').where('api_key_id', '=', limited.id).execute();
    assert.deepEqual(requests.map((r) => r.model), ['text-embedding-3-small'], 'the refused embedding held nothing');
    assert.ok((await balanceMicro(ctx.gw, userId)) <= before);
    await assertBooks(ctx.gw);
  });

  test('embeddings and count_tokens count towards the key\'s requests per minute', async () => {
    const { key: owner } = await ctx.gw.createUser(1_000);
    const limited = await createLimitedKey(ctx.gw, owner, { requestsPerMinute: 2 });
    const embed = await ctx.gw.api(limited.key, 'POST', '/api/v1/embeddings', { model: 'text-embedding-3-small', input: 'one' });
    assert.equal(embed.status, 200, JSON.stringify(embed.body));
    const count = await ctx.gw.api(limited.key, 'POST', '/api/v1/messages/count_tokens', countBody('claude-opus-4-7'));
    assert.equal(count.status, 200, JSON.stringify(count.body));
    const third = await ctx.gw.api(limited.key, 'POST', '/api/v1/embeddings', { model: 'text-embedding-3-small', input: 'three' });
    assert.equal(third.status, 429, JSON.stringify(third.body));
    assert.ok(Number(third.headers.get('retry-after')) >= 1);
    const fourth = await ctx.gw.api(limited.key, 'POST', '/api/v1/messages/count_tokens', countBody('claude-opus-4-7'));
    assert.equal(fourth.status, 429, JSON.stringify(fourth.body));
  });
});

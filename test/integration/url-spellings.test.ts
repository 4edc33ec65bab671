/**
 * Issue 29, item 7 and the /files/ part of item 15: the address policy looks at what the URL parser
 * makes of a URL, and what is forwarded is the parser's href. Spellings the parser repairs (a leading
 * space or tab, backslashes, one slash or none after the scheme) used to skip the check and travel on
 * verbatim; a /files/ URL of the gateway skipped it before its dot segments were resolved.
 * The gateways here run without SWITCHBOARD_ALLOW_PRIVATE_URLS, as production does.
 */
import assert from 'node:assert/strict';
import { after, beforeEach, test } from 'node:test';
import { startChatFakes, upstreamBody } from '../support/chat-gateway.ts';
import { describeEachMode } from '../support/gateway.ts';

const fakes = await startChatFakes();
after(() => fakes.close());

const METADATA_SPELLINGS = [
  ' http://169.254.169.254/latest/meta-data/',
  '\thttp://169.254.169.254/latest/meta-data/',
  'http:\\\\169.254.169.254\\latest\\meta-data\\',
  'http:/169.254.169.254/latest/meta-data/',
  'http:169.254.169.254/latest/meta-data/',
  'HTTP://169.254.169.254/latest/meta-data/',
];

describeEachMode(
  'URLs are checked and forwarded as parsed',
  (ctx) => {
    beforeEach(() => fakes.reset());
    const TOKEN = 'abcdefghijklmnopqrstuvwxyz234567';

    async function create(key: string, input: Record<string, unknown>, webhook?: string) {
      const res = await fetch(`${ctx.gw.url}/api/v1/generation/create`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: 'nano-banana-2', input: { prompt: 'a fox', ...input }, ...(webhook ? { webhook } : {}) }),
      });
      return { status: res.status, body: (await res.json()) as { data?: { taskId: string }; error?: { param?: string; message: string } } };
    }

    async function storedTask(taskId: string): Promise<{ input: { urls?: string[] }; webhook: string | null }> {
      const row = await ctx.gw.gateway.services.database.db.selectFrom('tasks').select(['input_json', 'webhook_url']).where('id', '=', taskId).executeTakeFirstOrThrow();
      return { input: JSON.parse(row.input_json) as { urls?: string[] }, webhook: row.webhook_url };
    }

    test('media input: every spelling of a private address is refused, naming the field', async () => {
      const { key } = await ctx.gw.createUser(1000);
      for (const url of METADATA_SPELLINGS) {
        const res = await create(key, { urls: ['https://example.com/ok.png', url] });
        assert.equal(res.status, 400, JSON.stringify(url));
        assert.equal(res.body.error?.param, 'input.urls[1]', JSON.stringify(res.body));
        assert.match(res.body.error?.message ?? '', /169\.254\.169\.254 is not allowed/);
      }
      for (const webhook of [' http://10.0.0.5/hook', 'http:\\\\10.0.0.5\\hook', 'http:10.0.0.5/hook']) {
        const res = await create(key, {}, webhook);
        assert.equal(res.status, 400, JSON.stringify(webhook));
        assert.equal(res.body.error?.param, 'webhook');
      }
    });

    test('media input: a public URL in a repaired spelling is forwarded as the parser writes it', async () => {
      const { key } = await ctx.gw.createUser(1000);
      const res = await create(key, { urls: [' https://example.com/fox.png', 'https:\\\\Example.COM\\a b.png', 'https:example.com/x/../y.png'] }, ' https://example.com/hook');
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const task = await storedTask(res.body.data?.taskId ?? '');
      assert.deepEqual(task.input.urls, ['https://example.com/fox.png', 'https://example.com/a%20b.png', 'https://example.com/y.png']);
      assert.equal(task.webhook, 'https://example.com/hook');
    });

    test("the gateway's own /files/ URLs pass only as file URLs: dot segments are resolved before the check", async () => {
      const { key } = await ctx.gw.createUser(1000);
      for (const url of [
        `${ctx.gw.url}/files/x/../../admin/v1/users`,
        `${ctx.gw.url}/files/%2e%2e/admin/v1/users`,
        `${ctx.gw.url}/files/${TOKEN}/..%2f..%2fadmin`,
        `${ctx.gw.url}/files/${TOKEN}/ref.png?next=/admin/v1/users`,
      ]) {
        const res = await create(key, { urls: [url] });
        assert.equal(res.status, 400, `${url}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.error?.param, 'input.urls[0]');
      }
      const own = await create(key, { urls: [`${ctx.gw.url}/files/${TOKEN}/ref.png`] });
      assert.equal(own.status, 200, JSON.stringify(own.body));
    });

    test('chat: image and document URLs are checked as parsed and reach the upstream as parsed', async () => {
      const { key } = await ctx.gw.createUser(100);
      const anthropic = (block: Record<string, unknown>) =>
        ctx.gw.api(key, 'POST', '/api/v1/messages', { model: 'claude-haiku-4-5', max_tokens: 50, messages: [{ role: 'user', content: [block, { type: 'text', text: 'what is this?' }] }] });
      for (const url of [...METADATA_SPELLINGS, `${ctx.gw.url}/files/x/../../admin/v1/users`]) {
        const image = await anthropic({ type: 'image', source: { type: 'url', url } });
        assert.equal(image.status, 400, JSON.stringify(url));
        const document = await anthropic({ type: 'document', source: { type: 'url', url } });
        assert.equal(document.status, 400, JSON.stringify(url));
      }
      const openai = await ctx.gw.api(key, 'POST', '/api/v1/chat/completions', {
        model: 'gpt-5.4-mini',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url: `${ctx.gw.url}/files/x/../../admin/v1/users` } }] }],
      });
      assert.equal(openai.status, 400, JSON.stringify(openai.body));
      assert.equal(fakes.openai.requests.length, 0, 'nothing reached an upstream');

      fakes.openai.enqueue({ text: 'a cat' });
      const ok = await anthropic({ type: 'image', source: { type: 'url', url: 'https:\\\\example.com\\cat.png' } });
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      const sent = upstreamBody<{ messages: Array<{ content: Array<{ type: string; image_url?: { url: string } }> }> }>(fakes.openai, 0);
      const image = sent.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).find((part) => part.type === 'image_url');
      assert.equal(image?.image_url?.url, 'https://example.com/cat.png');
    });
  },
  { env: { SWITCHBOARD_ALLOW_PRIVATE_URLS: '0' }, configFile: fakes.config },
);

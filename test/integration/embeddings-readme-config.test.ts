/**
 * The README's example configuration, as written there, and the embedded default (no configuration):
 * embeddings and count_tokens answer offline from the local provider, with no upstream credentials.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { anthropicClient, openAiClient } from '../support/chat-gateway.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

function readmeExampleConfig(): string {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Upstream providers'));
  const match = /```yaml\n([\s\S]*?)```/.exec(section);
  assert.ok(match?.[1], 'the README has an example configuration');
  return match[1];
}

const gateways: TestGateway[] = [];

before(async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'sb-readme-')), 'switchboard.yaml');
  writeFileSync(file, readmeExampleConfig());
  const placeholders = { KIE_API_KEY: 'kie-unused', FAL_KEY: 'fal-unused', GEMINI_API_KEY: 'gemini-unused' };
  gateways.push(await startTestGateway('embedded', { env: { SWITCHBOARD_CONFIG: file, ...placeholders } }));
  gateways.push(await startTestGateway('embedded'));
});

after(async () => {
  for (const gw of gateways) await gw.close();
});

test('every embedding model answers offline under the README config and the default', async () => {
  for (const gw of gateways) {
    const { key } = await gw.createUser(100);
    const client = openAiClient(gw, key);
    for (const model of ['text-embedding-3-small', 'text-embedding-3-large', 'bge-m3']) {
      const response = await client.embeddings.create({ model, input: 'offline works' });
      assert.equal(response.data.length, 1, model);
      assert.ok((response.data[0]?.embedding.length ?? 0) >= 1024, model);
      assert.equal(response.usage.prompt_tokens, 2, model);
    }
    const rows = await gw.gateway.services.database.db.selectFrom('chat_requests').select(['provider', 'status']).where('protocol', '=', 'embeddings').execute();
    assert.deepEqual(new Set(rows.map((r) => `${r.provider}:${r.status}`)), new Set(['local:succeeded']));
    const count = await anthropicClient(gw, key).messages.countTokens({ model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'offline works' }] });
    assert.deepEqual(count, { input_tokens: 6 });
  }
});

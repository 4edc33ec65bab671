/**
 * What the chat integration tests share: the fake upstreams (started once per test file, before the
 * gateways, so their addresses can go into the gateway's configuration), the routes that point the
 * models at them, and readers of the money side (rows, ledger, balance) with the billing formula
 * written out independently of the implementation.
 */
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import type { Selectable } from 'kysely';
import OpenAI from 'openai';
import type { ChatRequestsTable } from '../../src/adapters/db/tables/chat.tables.ts';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import { AnthropicMessagesFake } from '../fakes/anthropic-messages.fake.ts';
import { OpenAiChatFake } from '../fakes/openai-chat.fake.ts';
import type { TestGateway } from './gateway.ts';

export interface ChatFakes {
  openai: OpenAiChatFake;
  anthropic: AnthropicMessagesFake;
  /** The gateway configuration: providers at the fakes and the routes of the tested models. */
  config: Record<string, unknown>;
  reset(): void;
  close(): Promise<void>;
}

/** Output cap of the test gateways, so the holds stay small. */
export const TEST_MAX_OUTPUT_TOKENS = 4096;

export async function startChatFakes(): Promise<ChatFakes> {
  const openai = await OpenAiChatFake.start();
  const anthropic = await AnthropicMessagesFake.start();
  const oa = { type: 'openai', baseUrl: openai.baseUrl, apiKey: openai.apiKey, timeoutMs: 5000 };
  const an = { type: 'anthropic', baseUrl: anthropic.baseUrl, apiKey: anthropic.apiKey, timeoutMs: 5000 };
  return {
    openai,
    anthropic,
    config: {
      chat: { maxOutputTokens: TEST_MAX_OUTPUT_TOKENS },
      providers: { oa, an, 'oa-primary': oa, 'oa-backup': oa, 'an-primary': an, 'an-backup': an },
      routes: {
        // OpenAI client → OpenAI fake; the upstream's name differs from ours.
        'gpt-5.4-mini': [{ provider: 'oa', model: 'gpt-upstream-mini' }],
        // Claude on the Anthropic fake (OpenAI clients are translated).
        'claude-sonnet-4-6': [{ provider: 'an', model: 'claude-upstream-sonnet' }],
        // Claude routed to an OpenAI-style upstream (Anthropic clients are translated).
        'claude-haiku-4-5': [{ provider: 'oa', model: 'haiku-on-openai' }],
        // Failover: two routes on one fake, told apart by the upstream model name.
        'gpt-5.4': [
          { provider: 'oa-primary', model: 'gpt-primary' },
          { provider: 'oa-backup', model: 'gpt-backup' },
        ],
        'claude-opus-4-7': [
          { provider: 'an-primary', model: 'opus-primary' },
          { provider: 'oa-backup', model: 'opus-backup' },
        ],
      },
    },
    reset() {
      openai.reset();
      anthropic.reset();
    },
    async close() {
      await openai.close();
      await anthropic.close();
    },
  };
}

/** The JSON body of the fake's `index`-th request. */
export function upstreamBody<T>(fake: { requests: Array<{ body: unknown }> }, index: number): T {
  const request = fake.requests[index];
  assert.ok(request, `upstream request ${index} was made`);
  return request.body as T;
}

export function openAiClient(gw: TestGateway, key: string): OpenAI {
  return new OpenAI({ baseURL: `${gw.url}/api/v1`, apiKey: key, maxRetries: 0 });
}

export function anthropicClient(gw: TestGateway, key: string): Anthropic {
  return new Anthropic({ baseURL: `${gw.url}/api`, apiKey: key, maxRetries: 0 });
}

export type ChatRow = Selectable<ChatRequestsTable>;

export async function chatRow(gw: TestGateway, id: string): Promise<ChatRow> {
  const row = await gw.gateway.services.database.db.selectFrom('chat_requests').selectAll().where('id', '=', id).executeTakeFirst();
  assert.ok(row, `chat request ${id} recorded`);
  return row;
}

/**
 * The request's row: it is written when the request settles (streams as they end, a whole answer
 * just after it was sent, a departed client a moment later), so this waits for it.
 */
export async function settledRow(gw: TestGateway, id: string, timeoutMs = 5000): Promise<ChatRow> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await gw.gateway.services.database.db.selectFrom('chat_requests').selectAll().where('id', '=', id).executeTakeFirst();
    if (row) return row;
    if (Date.now() > deadline) assert.fail(`chat request ${id} not settled after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The user's latest request, once none of theirs is still running. */
export async function latestRow(gw: TestGateway, userId: string, timeoutMs = 5000): Promise<ChatRow> {
  const db = gw.gateway.services.database.db;
  const deadline = Date.now() + timeoutMs;
  while ((await db.selectFrom('chat_holds').select('id').where('user_id', '=', userId).executeTakeFirst()) !== undefined) {
    if (Date.now() > deadline) assert.fail(`a chat request of ${userId} still running after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const row = await db.selectFrom('chat_requests').selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('id', 'desc').executeTakeFirst();
  assert.ok(row, 'a chat request was recorded');
  return row;
}

/** The money the user has (the sum of their ledger entries). */
export async function balanceMicro(gw: TestGateway, userId: string): Promise<number> {
  const row = await gw.gateway.services.database.db.selectFrom('users').select('balance_micro').where('id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.balance_micro);
}

/** What running requests of the user hold. */
export async function heldMicro(gw: TestGateway, userId: string): Promise<number> {
  const row = await gw.gateway.services.database.db.selectFrom('users').select('held_micro').where('id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.held_micro);
}

/** `switchboard_ledger_entries_total` for one kind, as /metrics shows it (0 before the first). */
export async function ledgerEntriesMetric(gw: TestGateway, kind: string): Promise<number> {
  const text = await gw.gateway.services.metrics.text();
  const match = new RegExp(`^switchboard_ledger_entries_total\\{kind="${kind}"\\} (\\d+)$`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}

export interface LedgerLine {
  kind: string;
  reference: string;
  amount: number;
}

export async function chatLedger(gw: TestGateway, userId: string): Promise<LedgerLine[]> {
  const rows = await gw.gateway.services.database.db
    .selectFrom('ledger_entries')
    .select(['kind', 'reference', 'amount_micro'])
    .where('user_id', '=', userId)
    .where('kind', 'in', ['chat_charge', 'chat_hold', 'chat_release'])
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ kind: r.kind, reference: r.reference, amount: Number(r.amount_micro) }));
}

/** Published prices as integer micro-USD: per 1M tokens, and per 1,000 searches. */
export interface PublishedPrices {
  input: bigint;
  output: bigint;
  cached: bigint;
  cacheWrite: bigint;
  cacheWrite1h: bigint;
  priority?: { input: bigint; output: bigint; cached: bigint };
  webSearchPer1k?: bigint;
}

function usdMicro(usd: string): bigint {
  const [whole, fraction = ''] = usd.split('.');
  return BigInt(whole ?? '0') * 1_000_000n + BigInt((fraction + '000000').slice(0, 6));
}

/** The model's prices from the public model list (what a client can read). */
export async function prices(gw: TestGateway, key: string, model: string): Promise<PublishedPrices> {
  const res = await gw.api(key, 'GET', '/api/v1/models');
  type Published = {
    input: string;
    output: string;
    cached_input: string;
    cache_write: string;
    cache_write_1h: string;
    priority?: { input: string; output: string; cached_input: string };
    web_search_per_1k?: string;
  };
  const entry = (res.body as { data: Array<{ id: string; pricing: Published }> }).data.find((m) => m.id === model);
  assert.ok(entry, `${model} is listed`);
  const p = entry.pricing;
  return {
    input: usdMicro(p.input),
    output: usdMicro(p.output),
    cached: usdMicro(p.cached_input),
    cacheWrite: usdMicro(p.cache_write),
    cacheWrite1h: usdMicro(p.cache_write_1h),
    ...(p.priority ? { priority: { input: usdMicro(p.priority.input), output: usdMicro(p.priority.output), cached: usdMicro(p.priority.cached_input) } } : {}),
    ...(p.web_search_per_1k === undefined ? {} : { webSearchPer1k: usdMicro(p.web_search_per_1k) }),
  };
}

/**
 * The documented formula: (plain prompt × input + cache reads × cached input + 5-minute writes ×
 * cache write + one-hour writes × one-hour cache write + output × output) / 1,000,000 + searches ×
 * the per-search price, rounded up once; at the priority prices when `tier` is priority (writes at
 * its input price). `input` counts every prompt token (cache reads and writes included).
 */
export function expectedCost(
  p: PublishedPrices,
  usage: { input: number; output: number; cached?: number; writes?: number; writes1h?: number; searches?: number; tier?: 'priority' },
): number {
  const cached = BigInt(usage.cached ?? 0);
  const writes = BigInt(usage.writes ?? 0);
  const writes1h = BigInt(usage.writes1h ?? 0);
  const tier = usage.tier === 'priority' ? p.priority : undefined;
  if (usage.tier === 'priority') assert.ok(tier, 'priority prices are published');
  const input = tier?.input ?? p.input;
  const total =
    (BigInt(usage.input) - cached - writes) * input +
    cached * (tier?.cached ?? p.cached) +
    (writes - writes1h) * (tier ? input : p.cacheWrite) +
    writes1h * (tier ? input : p.cacheWrite1h) +
    BigInt(usage.output) * (tier?.output ?? p.output) +
    // USD per 1,000 searches: one search is a thousandth of it, times 1,000,000 for the common divisor.
    BigInt(usage.searches ?? 0) * (p.webSearchPer1k ?? 0n) * 1000n;
  return Number((total + 999_999n) / 1_000_000n);
}

/**
 * The request's money is consistent: its hold is gone, one `chat_charge` of the expected cost (none
 * when it cost nothing), the row's cost the expected one, and the whole ledger balanced.
 */
export async function assertSettled(gw: TestGateway, userId: string, id: string, cost: number): Promise<ChatRow> {
  const row = await settledRow(gw, id);
  assert.equal(row.cost_micro, cost, 'cost on the row');
  const db = gw.gateway.services.database.db;
  assert.equal(await db.selectFrom('chat_holds').select('id').where('id', '=', id).executeTakeFirst(), undefined, 'the hold is released');
  const lines = (await chatLedger(gw, userId)).filter((l) => l.reference === id);
  assert.deepEqual(
    lines.map((l) => [l.kind, l.amount]),
    cost > 0 ? [['chat_charge', -cost]] : [],
    'one charge of the cost',
  );
  assert.deepEqual(await verifyLedger(db), []);
  return row;
}

/**
 * What a settlement writes, computed from the exchange: the usage bounded by what the request allowed,
 * the charge, the request's record and the anomalies to report; and the estimate charged when that
 * computation failed.
 */
import { billedServiceTier, costMicro } from '../../domain/chat/chat-billing.ts';
import { type BoundedUsage, boundCharge, boundChatUsage } from '../../domain/chat/usage-bounds.ts';
import { groupPriceMicro } from '../../domain/pricing/customer-groups.ts';
import { chatUpstreamCostMicro } from '../../domain/routing/route-cost.ts';
import type { ChatRequestOutcome } from '../../ports/ledger.port.ts';
import type { UpstreamAnomaly } from '../../ports/upstream-anomalies.port.ts';
import type { Settlement } from './chat-call.types.ts';
import type { ChatExchange } from './chat-exchange.ts';
import { endUpstreamSpan } from './chat-spans.ts';
import { NO_USAGE } from './chat-usage.ts';

/**
 * The usage bounded by what the request allowed (usage-bounds.ts), the charge (never above the hold,
 * nor the caller's cap) and the request's record; `exchange.billedUsage` is set for the client's answer.
 */
export function billedOutcome(exchange: ChatExchange, s: Settlement): { outcome: ChatRequestOutcome; anomalies: UpstreamAnomaly[] } {
  const { model } = exchange;
  const now = Date.now();
  const bounded: BoundedUsage = s.usage
    ? boundChatUsage(s.usage, { promptTokens: exchange.promptTokens, maxOutputTokens: exchange.maxOutputTokens, webSearches: exchange.maxWebSearches, outputSeen: s.outputSeen ?? 0 })
    : { usage: NO_USAGE, anomalies: [] };
  const usage = bounded.usage;
  // The group price of the list charge (customer-groups.ts), at the multiplier fixed at the hold.
  const cost = s.usage ? Math.min(boundCharge(groupPriceMicro(costMicro(model, usage), exchange.priceMultiplierPpm), exchange.holdMicro, bounded.anomalies), exchange.maxChargeMicro) : 0;
  if (s.usage) exchange.billedUsage = billedServiceTier(model, usage);
  const route = exchange.route;
  const outcome: ChatRequestOutcome = {
    status: s.status,
    provider: route?.provider ?? null,
    upstreamModel: route?.model ?? null,
    attempts: exchange.attempts,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cachedTokens: usage.cachedInputTokens,
    cacheCreationTokens: usage.cacheCreationTokens,
    usageEstimated: usage.estimated === true,
    costMicro: cost,
    upstreamCostMicro: chatUpstreamCostMicro(route?.cost, s.usage, usage),
    stopReason: s.stopReason ?? null,
    latencyMs: now - exchange.startedAt,
    firstByteMs: exchange.firstByteAt === undefined ? null : exchange.firstByteAt - exchange.startedAt,
    errorCode: s.error?.code ?? null,
    errorMessage: s.error?.message ?? null,
    finishedAt: now,
  };
  endUpstreamSpan(exchange.upstreamSpan, { status: s.status, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, costMicro: cost, errorMessage: s.error?.message });
  const anomalies = bounded.anomalies.map((a) => ({
    provider: route?.provider ?? null,
    model: model.id,
    upstreamModel: route?.model ?? null,
    protocol: exchange.protocol,
    reference: exchange.id,
    userId: exchange.userId,
    field: a.field,
    kind: a.kind,
    reported: a.reported,
    billed: a.billed,
  }));
  return { outcome, anomalies };
}

/**
 * What a request whose charge could not be computed is charged: the prompt estimate and the output
 * seen (at most max_tokens) at the account's group prices, never above the hold; nothing when nothing was to
 * be billed.
 */
export function estimateMicro(exchange: ChatExchange, s: Settlement): number {
  if (!s.usage) return 0;
  try {
    const output = Math.min(s.outputSeen ?? exchange.maxOutputTokens, exchange.maxOutputTokens);
    const estimate = costMicro(exchange.model, { inputTokens: exchange.promptTokens, outputTokens: output, cachedInputTokens: 0, cacheCreationTokens: 0 });
    return Math.min(groupPriceMicro(estimate, exchange.priceMultiplierPpm), exchange.holdMicro);
  } catch {
    return exchange.holdMicro;
  }
}

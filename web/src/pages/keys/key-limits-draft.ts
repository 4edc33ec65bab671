import type { ApiKey } from '../../api/index.ts';
import { exactDollarsToMicro, microToExactDollars } from '../../format.ts';

type Limits = ApiKey['limits'];

/** The form's text fields: empty means "no limit". The expiry is a UTC wall time, as the dashboard shows every time. */
export interface LimitsDraft {
  capUsd: string;
  period: 'total' | 'month';
  expires: string;
  models: string;
  rpm: string;
  tpm: string;
  concurrency: string;
}

export type LimitsField = 'capUsd' | 'expires' | 'models' | 'rpm' | 'tpm' | 'concurrency';

/** What the server takes (PATCH /api/v1/keys/:id `limits`): every limit sent, empty fields as null (removed). */
export interface LimitsBody {
  spendCapMicroUsd: number | null;
  spendCapPeriod: 'total' | 'month' | null;
  expiresAt: string | null;
  allowedModels: string[] | null;
  requestsPerMinute: number | null;
  tokensPerMinute: number | null;
  concurrentGenerations: number | null;
}

const MAX_WHOLE = 1_000_000;
/** Tokens per minute run higher than requests (vendors sell millions). */
const MAX_TOKENS = 1_000_000_000;
/** As many as the server takes. */
const MAX_MODELS = 200;
/** Dollars with at most six decimals (the book is in micro-USD). */
const USD = /^\d{1,9}(\.\d{1,6})?$/;
const WHOLE = /^\d{1,10}$/;

export function draftOf(limits: Limits): LimitsDraft {
  return {
    capUsd: limits.spendCapMicroUsd === null ? '' : microToExactDollars(limits.spendCapMicroUsd),
    period: limits.spendCapPeriod === 'month' ? 'month' : 'total',
    // The ISO instant's own date and time are UTC: they go into the field as they are.
    expires: limits.expiresAt ? limits.expiresAt.slice(0, 16) : '',
    models: (limits.allowedModels ?? []).join(', '),
    rpm: limits.requestsPerMinute === null ? '' : String(limits.requestsPerMinute),
    tpm: limits.tokensPerMinute === null ? '' : String(limits.tokensPerMinute),
    concurrency: limits.concurrentGenerations === null ? '' : String(limits.concurrentGenerations),
  };
}

/**
 * The draft checked the way the server checks it, in words a person reads: the body to send, or the
 * first problem of each field. `now` is the instant an expiry must be after.
 */
export function checkDraft(draft: LimitsDraft, now: number): { ok: true; body: LimitsBody } | { ok: false; problems: Partial<Record<LimitsField, string>> } {
  const problems: Partial<Record<LimitsField, string>> = {};
  const cap = draft.capUsd.trim().replace(/^\$/, '');
  if (cap !== '' && !USD.test(cap)) {
    problems.capUsd = cap.startsWith('-') ? 'A spend cap cannot be negative. Leave it empty for no cap.' : 'Enter the cap in US dollars, for example 25 or 2.50.';
  }
  const whole = (text: string, what: string, field: LimitsField, max = MAX_WHOLE) => {
    const t = text.trim();
    if (t === '') return null;
    if (!WHOLE.test(t) || Number(t) < 1 || Number(t) > max) {
      problems[field] = `${what} must be a whole number from 1 to ${max.toLocaleString('en')}. Leave it empty for no limit.`;
      return null;
    }
    return Number(t);
  };
  const rpm = whole(draft.rpm, 'Requests per minute', 'rpm');
  const tpm = whole(draft.tpm, 'Tokens per minute', 'tpm', MAX_TOKENS);
  const concurrency = whole(draft.concurrency, 'Concurrent generations', 'concurrency');
  let expiresAt: string | null = null;
  if (draft.expires !== '') {
    const at = Date.parse(`${draft.expires}Z`);
    if (Number.isNaN(at)) problems.expires = 'Enter a date and time, or leave it empty for a key that never expires.';
    else if (at <= now) problems.expires = 'That moment has passed: choose a later date and time (UTC).';
    else expiresAt = new Date(at).toISOString();
  }
  const models = draft.models
    .split(',')
    .map((m) => m.trim())
    .filter((m) => m !== '');
  const distinct = [...new Set(models)];
  if (distinct.length > MAX_MODELS) problems.models = `At most ${MAX_MODELS} models; leave it empty to allow every model.`;
  if (Object.keys(problems).length > 0) return { ok: false, problems };
  return {
    ok: true,
    body: {
      spendCapMicroUsd: cap === '' ? null : exactDollarsToMicro(cap),
      spendCapPeriod: cap === '' ? null : draft.period,
      expiresAt,
      allowedModels: distinct.length === 0 ? null : distinct,
      requestsPerMinute: rpm,
      tokensPerMinute: tpm,
      concurrentGenerations: concurrency,
    },
  };
}

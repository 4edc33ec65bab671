import { AppError } from '../domain/errors.ts';
import type { ErrorFormat } from './request-context.ts';

export type ErrorRenderer = (error: AppError, requestId: string) => unknown;

/** The service envelope of SPEC.md: `{code, error: {message, type, code}}`, plus the request id. */
export function renderEnvelopeError(error: AppError, requestId: string): unknown {
  return {
    code: error.status,
    error: { message: error.message, type: error.type, code: error.code, ...(error.param ? { param: error.param } : {}) },
    requestId,
  };
}

/**
 * Renderers by route format. The chat protocols register theirs at start, so that /chat/completions
 * answers with the OpenAI error object and /messages with the Anthropic one.
 */
export class ErrorRenderers {
  private readonly renderers = new Map<ErrorFormat, ErrorRenderer>([['envelope', renderEnvelopeError]]);
  /** The page where a user adds money: every 402 says where it is, in every wire format. */
  private readonly billingUrl: (() => string) | undefined;

  constructor(billingUrl?: () => string) {
    this.billingUrl = billingUrl;
  }

  register(format: ErrorFormat, renderer: ErrorRenderer): void {
    this.renderers.set(format, renderer);
  }

  render(format: ErrorFormat, error: AppError, requestId: string): unknown {
    const shown = error.code === 'insufficient_balance' && this.billingUrl ? withBillingHint(error, this.billingUrl()) : error;
    return (this.renderers.get(format) ?? renderEnvelopeError)(shown, requestId);
  }
}

/**
 * `insufficient balance for this request: add funds at <url>` (a message that ends a sentence gets
 * ` Add funds at <url>.`); the code and status stay as they were.
 */
export function withBillingHint(error: AppError, billingUrl: string): AppError {
  if (error.message.includes(billingUrl)) return error;
  const message = /[.!?]$/u.test(error.message) ? `${error.message} Add funds at ${billingUrl}.` : `${error.message}: add funds at ${billingUrl}`;
  return new AppError(error.code, message, {
    status: error.status,
    ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}),
    ...(error.param !== undefined ? { param: error.param } : {}),
    cause: error,
  });
}

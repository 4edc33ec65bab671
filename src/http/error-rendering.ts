import type { AppError } from '../domain/errors.ts';
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

  register(format: ErrorFormat, renderer: ErrorRenderer): void {
    this.renderers.set(format, renderer);
  }

  render(format: ErrorFormat, error: AppError, requestId: string): unknown {
    return (this.renderers.get(format) ?? renderEnvelopeError)(error, requestId);
  }
}

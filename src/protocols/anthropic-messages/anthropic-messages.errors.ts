/**
 * Errors in Anthropic's shape: `{type: 'error', error: {type, message}}`, with Anthropic's error type
 * names (the SDK maps them to its exception classes). Our closed code rides along as `error.code`,
 * which Anthropic clients ignore and SPEC.md clients match on.
 */
import type { AppError } from '../../domain/errors.ts';
import type { ChatStreamError } from '../../domain/chat/chat-response.types.ts';
import { chatErrorCodeForStatus } from '../../domain/chat/chat-wire.helpers.ts';

export interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string; code?: string };
  request_id?: string;
}

/** Anthropic's error type for an HTTP status (its documented list, 402 being `billing_error`). */
export function anthropicErrorType(status: number): string {
  switch (status) {
    case 400:
    case 409:
    case 422:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 402:
      return 'billing_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 503:
    case 529:
      return 'overloaded_error';
    case 504:
      return 'timeout_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

/** The HTTP status an Anthropic error type stands for (for errors that arrive inside a stream). */
export function statusForAnthropicErrorType(type: string | undefined): number {
  switch (type) {
    case 'invalid_request_error':
      return 400;
    case 'authentication_error':
      return 401;
    case 'billing_error':
      return 402;
    case 'permission_error':
      return 403;
    case 'not_found_error':
      return 404;
    case 'request_too_large':
      return 413;
    case 'rate_limit_error':
      return 429;
    case 'overloaded_error':
      return 529;
    case 'timeout_error':
      return 504;
    default:
      return 500;
  }
}

export function renderAnthropicError(error: AppError, requestId?: string): AnthropicErrorBody {
  const body: AnthropicErrorBody = { type: 'error', error: { type: anthropicErrorType(error.status), message: error.message, code: error.code } };
  if (requestId !== undefined) body.request_id = requestId;
  return body;
}

export function renderAnthropicStreamError(error: ChatStreamError): AnthropicErrorBody {
  return { type: 'error', error: { type: anthropicErrorType(error.status), message: error.message, code: chatErrorCodeForStatus(error.status) } };
}

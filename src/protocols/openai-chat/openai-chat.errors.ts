/**
 * Errors in OpenAI's shape: `{error: {message, type, param, code}}`. `code` carries our closed error
 * code (what SPEC.md tells clients to match on); `type` is the OpenAI family name, which the OpenAI
 * SDKs surface as `error.type`.
 */
import type { AppError } from '../../domain/errors.ts';
import type { ChatStreamError } from '../../domain/chat/chat-response.types.ts';
import { chatErrorCodeForStatus } from '../../domain/chat/chat-wire.helpers.ts';

export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** OpenAI's error type for an HTTP status. */
export function openAiErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 402) return 'insufficient_quota';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

export function renderOpenAiError(error: AppError): OpenAiErrorBody {
  return { error: { message: error.message, type: openAiErrorType(error.status), param: error.param ?? null, code: error.code } };
}

/** The body of the error frame that ends a broken stream (type from the status: the upstream's own type may be another vendor's word). */
export function renderOpenAiStreamError(error: ChatStreamError): OpenAiErrorBody {
  return {
    error: { message: error.message, type: openAiErrorType(error.status), param: null, code: chatErrorCodeForStatus(error.status) },
  };
}

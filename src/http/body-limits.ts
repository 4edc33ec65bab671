import { AppError } from '../domain/errors.ts';

/**
 * Request body limits: 1 MiB unless a route needs more. Text requests and generations may carry
 * pictures as base64; sign-in and sign-up, the only routes that read a body before they know the
 * caller, take little. Protected routes authenticate before reading any body (onRequest hooks).
 */
export const BODY_LIMIT = 1024 * 1024;
export const LARGE_BODY_LIMIT = 32 * 1024 * 1024;
export const AUTH_BODY_LIMIT = 64 * 1024;

/** A body over its route's limit, as both paths answer it (413). */
export function payloadTooLarge(): AppError {
  return new AppError('payload_too_large', 'request body is too large');
}

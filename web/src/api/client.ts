/**
 * The dashboard talks to the same public API as the SDKs, authenticated by the session cookie (sent by
 * the browser, never readable here). Unsafe requests carry the session's CSRF token. No secret is part
 * of the bundle: the token arrives at run time from GET /api/v1/auth/session.
 */
import { describeApiError } from './error-words.ts';
let csrfToken: string | undefined;
let onSessionEnded: (() => void) | undefined;

export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** Called when a request finds the session gone (401), so the app can show the sign-in page. */
export function setSessionEndedHandler(handler: (() => void) | undefined): void {
  onSessionEnded = handler;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly param: string | undefined;

  constructor(status: number, code: string, message: string, param?: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.param = param;
  }

  /** The endpoint does not exist on this gateway (yet), as opposed to a missing record. */
  get isMissingEndpoint(): boolean {
    return this.status === 404 && this.code === 'not_found' && this.message.startsWith('no route for');
  }
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function requestHeaders(method: string, extra: Record<string, string> = {}): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json', ...extra };
  if (UNSAFE.has(method) && csrfToken) headers['x-csrf-token'] = csrfToken;
  return headers;
}

/** Reads any of our error bodies (envelope, OpenAI or Anthropic shape) into an ApiError. */
export async function errorFromResponse(response: Response): Promise<ApiError> {
  let code = `http_${response.status}`;
  let message = `${response.status} ${response.statusText}`;
  let param: string | undefined;
  try {
    const body = (await response.json()) as { error?: { message?: string; code?: string | null; type?: string; param?: string | null } };
    if (body.error) {
      message = body.error.message ?? message;
      code = body.error.code ?? body.error.type ?? code;
      param = body.error.param ?? undefined;
    }
  } catch {
    // Not JSON: keep the status line.
  }
  return new ApiError(response.status, code, message, param);
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Do not treat a 401 as the end of the session (the sign-in form itself). */
  quiet401?: boolean;
}

/** A JSON request; the parsed body on 2xx, an ApiError otherwise. */
export async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers = requestHeaders(method, options.headers);
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, 'network_error', 'The gateway could not be reached. Check your connection and try again.');
  }
  if (!response.ok) {
    const error = await errorFromResponse(response);
    if (response.status === 401 && !options.quiet401) onSessionEnded?.();
    throw error;
  }
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** Endpoints that answer `{code, data}`: returns `data`. */
export async function requestData<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const body = await request<{ code: number; data: T }>(method, path, options);
  return body.data;
}

/** What a person is told about a failed request (error-words.ts); the API's own message stays on the ApiError. */
export function errorMessage(error: unknown, context?: 'admin'): string {
  if (error instanceof ApiError) return describeApiError(error, context);
  if (error instanceof Error) return error.message;
  return String(error);
}

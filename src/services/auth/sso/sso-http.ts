import { SsoRefusal } from './sso-refusal.ts';

/** Every call to a provider ends within this (discovery, token exchange, user info, JWKS). */
export const SSO_FETCH_TIMEOUT_MS = 10_000;
/** A provider's answer is a small JSON document; a larger one is refused unread. */
const MAX_ANSWER_BYTES = 256 * 1024;

export type SsoFetch = typeof fetch;

/**
 * One JSON exchange with a provider, bounded in time and size. A failure is a refusal with the
 * reason given, and a detail naming the URL and status only (never the body, which may echo a code).
 */
export async function fetchProviderJson(
  doFetch: SsoFetch,
  url: string,
  init: RequestInit,
  reason: 'provider_unavailable' | 'code',
): Promise<{ status: number; body: unknown }> {
  let response: Response;
  try {
    response = await doFetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(SSO_FETCH_TIMEOUT_MS) });
  } catch (error) {
    throw new SsoRefusal('provider_unavailable', `${init.method ?? 'GET'} ${url} failed: ${(error as Error).name}`);
  }
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > MAX_ANSWER_BYTES) {
    await response.body?.cancel();
    throw new SsoRefusal('provider_unavailable', `${url} answered ${declared} bytes, more than ${MAX_ANSWER_BYTES}`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body ?? []) {
      size += chunk.byteLength;
      if (size > MAX_ANSWER_BYTES) throw new SsoRefusal('provider_unavailable', `${url} answered more than ${MAX_ANSWER_BYTES} bytes`);
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof SsoRefusal) throw error;
    throw new SsoRefusal('provider_unavailable', `${url} broke off its answer: ${(error as Error).name}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new SsoRefusal(response.ok ? 'provider_unavailable' : reason, `${url} answered ${response.status} without JSON`);
  }
  if (!response.ok) {
    const code = body !== null && typeof body === 'object' && typeof (body as { error?: unknown }).error === 'string' ? (body as { error: string }).error.slice(0, 60) : 'no error code';
    throw new SsoRefusal(response.status >= 500 ? 'provider_unavailable' : reason, `${url} answered ${response.status} (${code})`);
  }
  return { status: response.status, body };
}

/** HTTPS, or plain HTTP to a loopback address (a provider on this machine): what a provider's endpoint may be. */
export function isProviderUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    const loopback = url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]';
    return url.protocol === 'https:' || (url.protocol === 'http:' && loopback);
  } catch {
    return false;
  }
}

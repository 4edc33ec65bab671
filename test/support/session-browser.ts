/** A minimal browser for the dashboard's session endpoints: keeps the session cookie and sends the CSRF token. */
import assert from 'node:assert/strict';

export interface Reply {
  status: number;
  body: { code?: number; data?: Record<string, unknown>; error?: { code: string; param?: string; message?: string } } & Record<string, unknown>;
  headers: Headers;
}

export interface Browser {
  cookie: string | undefined;
  csrf: string | undefined;
}

export interface SignedUp extends Browser {
  email: string;
  password: string;
  userId: string;
}

let counter = 0;
export const uniqueEmail = (name: string) => `${name}.${process.pid}.${Date.now()}.${counter++}@example.com`;

export async function call(
  gw: { url: string },
  browser: Browser | undefined,
  method: string,
  path: string,
  body?: unknown,
  options: { csrf?: string | false; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (browser?.cookie) headers.cookie = browser.cookie;
  const csrf = options.csrf === false ? undefined : (options.csrf ?? browser?.csrf);
  if (csrf) headers['x-csrf-token'] = csrf;
  const response = await fetch(gw.url + path, { method, headers, redirect: 'manual', ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await response.text();
  const setCookie = response.headers.get('set-cookie');
  if (browser && setCookie) {
    const value = /^sb_session=([^;]*)/.exec(setCookie)?.[1];
    browser.cookie = value ? `sb_session=${value}` : undefined;
  }
  let parsed: Reply['body'] = {};
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {}
  return { status: response.status, body: parsed, headers: response.headers };
}

export async function signup(gw: { url: string }, email = uniqueEmail('user'), password = 'correct horse battery'): Promise<SignedUp> {
  const browser: Browser = { cookie: undefined, csrf: undefined };
  const res = await call(gw, browser, 'POST', '/api/v1/auth/signup', { email, password });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const data = res.body.data as { csrfToken: string; user: { id: string } };
  browser.csrf = data.csrfToken;
  return { ...browser, email, password, userId: data.user.id };
}

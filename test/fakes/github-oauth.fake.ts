import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeGithubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
}

export interface FakeGithubUser {
  id: number;
  emails: FakeGithubEmail[];
}

export interface FakeGithub {
  url: string;
  clientId: string;
  clientSecret: string;
  /** Who authorizes at the next visit of the authorize page. */
  signInAs(user: FakeGithubUser): void;
  close(): Promise<void>;
}

/**
 * GitHub's OAuth web flow as its documentation describes it: the authorize page sends the browser
 * back with a code at once; the token endpoint (form body, JSON answer with `Accept: application/json`,
 * a refused code answered 200 with an `error`) checks the client, the redirect URI and the PKCE
 * verifier and gives each code once; `/user` and `/user/emails` answer the token's user.
 */
export async function startFakeGithub(): Promise<FakeGithub> {
  let next: FakeGithubUser = { id: 0, emails: [] };
  const codes = new Map<string, { user: FakeGithubUser; redirectUri: string; challenge: string }>();
  const tokens = new Map<string, FakeGithubUser>();
  const clientId = 'Iv1.fakegithubclient';
  const clientSecret = 'fake-github-secret-0123456789';
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/login/oauth/authorize') {
      const q = url.searchParams;
      if (q.get('client_id') !== clientId || q.get('code_challenge_method') !== 'S256') return json(400, { error: 'bad authorize request' });
      const code = randomBytes(10).toString('hex');
      codes.set(code, { user: next, redirectUri: q.get('redirect_uri') ?? '', challenge: q.get('code_challenge') ?? '' });
      const back = new URL(q.get('redirect_uri') ?? '');
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state') ?? '');
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }
    if (url.pathname === '/login/oauth/access_token' && req.method === 'POST') {
      let text = '';
      for await (const chunk of req) text += String(chunk);
      const form = new URLSearchParams(text);
      const grant = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret) return json(200, { error: 'incorrect_client_credentials' });
      if (!grant || grant.redirectUri !== form.get('redirect_uri') || createHash('sha256').update(verifier).digest('base64url') !== grant.challenge) return json(200, { error: 'bad_verification_code' });
      const token = `gho_${randomBytes(12).toString('hex')}`;
      tokens.set(token, grant.user);
      return json(200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
    }
    const user = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (!user) return json(401, { message: 'Bad credentials' });
    if (url.pathname === '/api/user') return json(200, { id: user.id, login: `user${user.id}` });
    if (url.pathname === '/api/user/emails') return json(200, user.emails.map((e) => ({ ...e, visibility: null })));
    return json(404, { message: 'Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    clientId,
    clientSecret,
    signInAs(user) {
      next = user;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import Provider from 'oidc-provider';

/** A person at the provider: the claims its user info and id tokens give. */
export interface FakeOidcAccount {
  sub: string;
  email: string;
  email_verified: boolean;
}

/**
 * What the token endpoint's answer gets on its way back (a small proxy in front of the real one):
 * `resign` signs the id token again with a key the provider never published (same key id),
 * `none` strips its signature (`alg: none`), `nonce` re-signs it with the provider's own key but
 * another nonce (what a replayed id token of another sign-in looks like).
 */
export type IdTokenTamper = 'resign' | 'none' | 'nonce';

export interface FakeOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** People the provider knows, by subject. */
  accounts: Map<string, FakeOidcAccount>;
  /** Who signs in at the next interaction (the subject of an account above). */
  signInAs(sub: string): void;
  /** Registers our callback URL (the gateway's port is known only once it listens); a new URL restarts the provider's state. */
  useRedirectUri(uri: string): void;
  tamper: IdTokenTamper | undefined;
  /** Token requests answered, refused ones included. */
  tokenRequests: number;
  close(): Promise<void>;
}

/**
 * panva's oidc-provider (an OpenID Certified server) on 127.0.0.1, with one confidential client
 * (client_secret_basic), PKCE required, and interactions completed in code: the login and consent
 * pages sign in whoever signInAs names and grant the scopes asked. It keeps email claims out of the
 * id token for the code flow (conformIdTokenClaims, its default), so our client reads them from the
 * user info, as it must from such providers.
 */
export async function startFakeOidcProvider(): Promise<FakeOidcProvider> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const signing: JWK = { ...(await exportJWK(privateKey)), kid: 'fake-key-1', alg: 'RS256', use: 'sig' };
  const stranger = (await generateKeyPair('RS256', { extractable: true })).privateKey;
  void publicKey;
  const accounts = new Map<string, FakeOidcAccount>();
  let nextSub = '';
  let provider: Provider | undefined;
  let redirectUri = '';
  let handler: ((req: IncomingMessage, res: import('node:http').ServerResponse) => void) | undefined;

  const server: Server = createServer((req, res) => {
    void route(req, res).catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const fake: FakeOidcProvider = {
    issuer,
    clientId: 'switchboard-test',
    clientSecret: 'a-client-secret-for-tests-only-0123456789',
    accounts,
    signInAs(sub) {
      nextSub = sub;
    },
    useRedirectUri(uri) {
      if (uri === redirectUri) return;
      redirectUri = uri;
      provider = new Provider(issuer, {
        clients: [
          {
            client_id: fake.clientId,
            client_secret: fake.clientSecret,
            redirect_uris: [uri],
            grant_types: ['authorization_code'],
            response_types: ['code'],
            token_endpoint_auth_method: 'client_secret_basic',
          },
        ],
        jwks: { keys: [signing] },
        cookies: { keys: ['fake-oidc-cookie-key-0123456789abcdef'] },
        pkce: { required: () => true },
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
        features: { devInteractions: { enabled: false } },
        interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
        findAccount: (_ctx: unknown, id: string) => {
          const account = accounts.get(id);
          return account ? { accountId: id, claims: () => ({ ...account }) } : undefined;
        },
      });
      handler = provider.callback();
    },
    tamper: undefined,
    tokenRequests: 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };

  async function route(req: IncomingMessage, res: import('node:http').ServerResponse): Promise<void> {
    if (!provider || !handler) {
      res.statusCode = 503;
      res.end('no redirect URI registered yet');
      return;
    }
    const path = new URL(req.url ?? '/', issuer).pathname;
    if (path.startsWith('/interaction/')) {
      const details = await provider.interactionDetails(req, res);
      const clientId = String(details.params.client_id);
      const grant = (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ?? new provider.Grant({ accountId: nextSub, clientId });
      grant.addOIDCScope(String(details.params.scope));
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { login: { accountId: nextSub }, consent: { grantId } }, { mergeWithLastSubmission: false });
      return;
    }
    if (path === '/token' && req.method === 'POST') fake.tokenRequests++;
    if (path === '/token' && req.method === 'POST' && fake.tamper && req.headers['x-untampered'] === undefined) {
      await tamperedToken(req, res, fake.tamper);
      return;
    }
    handler(req, res);
  }

  /** Forwards the token request to the real endpoint and alters the id token of its answer. */
  async function tamperedToken(req: IncomingMessage, res: import('node:http').ServerResponse, how: IdTokenTamper): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const upstream = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': String(req.headers['content-type']), authorization: String(req.headers.authorization ?? ''), 'x-untampered': '1' },
      body: Buffer.concat(chunks),
    });
    const body = (await upstream.json()) as { id_token?: string };
    if (upstream.ok && typeof body.id_token === 'string') {
      const claims = decodeJwt(body.id_token);
      const header = decodeProtectedHeader(body.id_token);
      if (how === 'none') {
        const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
        body.id_token = `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
      } else {
        const key = how === 'resign' ? stranger : privateKey;
        body.id_token = await new SignJWT({ ...claims, ...(how === 'nonce' ? { nonce: 'another-sign-ins-nonce' } : {}) })
          .setProtectedHeader({ alg: 'RS256', kid: header.kid ?? 'fake-key-1', typ: 'JWT' })
          .sign(key);
      }
    }
    res.statusCode = upstream.status;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(body));
  }

  return fake;
}

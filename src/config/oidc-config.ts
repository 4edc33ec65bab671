import { ConfigError } from '../domain/config-error.ts';
import type { ConfigReader } from './config-reader.ts';

type Env = Record<string, string | undefined>;

/**
 * How a provider signs people in: `oidc` is any OpenID Connect provider (discovery, id token);
 * `github` is GitHub's OAuth 2 (no id token: the user and its verified emails from its API).
 */
export type SsoProviderType = 'oidc' | 'github';

/** One single sign-on provider the sign-in page offers (docs/decisions.md, "Single sign-on"). */
export interface SsoProviderConfig {
  /** In the URLs: /api/v1/auth/oidc/{name}/start. Lower-case letters, digits and -. */
  name: string;
  /** On the button: "Continue with {label}". */
  label: string;
  type: SsoProviderType;
  /** OIDC: discovery is read from `${issuer}/.well-known/openid-configuration`. GitHub: `https://github.com`, the identities' issuer. */
  issuer: string;
  clientId: string;
  /** Undefined: a public client (PKCE alone). */
  clientSecret: string | undefined;
  /** Asked for at the provider; `openid email profile` for OIDC, `read:user user:email` for GitHub. */
  scopes: string[];
  /** GitHub only (a GitHub Enterprise server, or a test double): the OAuth pages and the API. */
  github?: { authorizeUrl: string; tokenUrl: string; apiBaseUrl: string };
}

const NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;
const FIELDS = ['type', 'issuer', 'clientId', 'clientSecret', 'label', 'scopes', 'authorizeUrl', 'tokenUrl', 'apiBaseUrl'] as const;
type Field = (typeof FIELDS)[number];
const ENV_SUFFIX: Record<string, Field> = {
  TYPE: 'type',
  ISSUER: 'issuer',
  CLIENT_ID: 'clientId',
  CLIENT_SECRET: 'clientSecret',
  LABEL: 'label',
  SCOPES: 'scopes',
  AUTHORIZE_URL: 'authorizeUrl',
  TOKEN_URL: 'tokenUrl',
  API_BASE_URL: 'apiBaseUrl',
};
const ENV_KEY = new RegExp(`^SWITCHBOARD_OIDC_([A-Z0-9_]+?)_(${Object.keys(ENV_SUFFIX).join('|')})$`);

/** The presets: a provider named `google` or `github` needs only its client id and secret. */
const PRESETS: Record<string, { type: SsoProviderType; label: string; issuer: string }> = {
  google: { type: 'oidc', label: 'Google', issuer: 'https://accounts.google.com' },
  github: { type: 'github', label: 'GitHub', issuer: 'https://github.com' },
};

/**
 * Single sign-on providers from the environment (`SWITCHBOARD_OIDC_<NAME>_CLIENT_ID`, `_CLIENT_SECRET`,
 * `_ISSUER`, `_LABEL`, `_TYPE`, `_SCOPES`) and the config file's `oidc.providers` section (name →
 * the same fields in camelCase). The environment wins field by field. Sorted by name.
 */
export function parseSsoProviders(section: ConfigReader | undefined, env: Env): SsoProviderConfig[] {
  const raw = new Map<string, { fields: Partial<Record<Field, string | string[]>>; where: (f: Field) => string }>();
  const providers = section?.object('providers');
  section?.onlyKeys(['providers']);
  for (const name of providers?.keys() ?? []) {
    const p = providers?.object(name);
    if (!p) throw new ConfigError(`oidc.providers.${name}`, 'must be an object');
    p.onlyKeys(FIELDS);
    const fields: Partial<Record<Field, string | string[]>> = {};
    for (const f of FIELDS) {
      const value = f === 'scopes' ? p.stringArray(f) : p.string(f);
      if (value !== undefined) fields[f] = value;
    }
    raw.set(name, { fields, where: (f) => p.field(f) });
  }
  for (const [key, value] of Object.entries(env)) {
    const match = ENV_KEY.exec(key);
    if (!match || value === undefined || value === '') continue;
    const name = (match[1] ?? '').toLowerCase().replaceAll('_', '-');
    const field = ENV_SUFFIX[match[2] ?? ''] as Field;
    const entry = raw.get(name) ?? { fields: {}, where: (f: Field) => `SWITCHBOARD_OIDC_${(match[1] ?? '')}_${Object.entries(ENV_SUFFIX).find(([, v]) => v === f)?.[0]}` };
    entry.fields[field] = field === 'scopes' ? value.split(/[\s,]+/).filter((s) => s !== '') : value;
    raw.set(name, entry);
  }
  const out: SsoProviderConfig[] = [];
  for (const [name, { fields, where }] of [...raw].sort(([a], [b]) => a.localeCompare(b))) {
    if (!NAME.test(name)) throw new ConfigError(where('clientId'), 'provider names are lower-case letters, digits and - (at most 32)');
    out.push(providerOf(name, fields, where));
  }
  return out;
}

function providerOf(name: string, fields: Partial<Record<Field, string | string[]>>, where: (f: Field) => string): SsoProviderConfig {
  const text = (f: Field): string | undefined => {
    const v = fields[f];
    return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
  };
  const preset = PRESETS[name];
  const type = (text('type') ?? preset?.type ?? 'oidc') as SsoProviderType;
  if (type !== 'oidc' && type !== 'github') throw new ConfigError(where('type'), `must be oidc or github, got ${JSON.stringify(fields.type)}`);
  const clientId = text('clientId');
  if (!clientId) throw new ConfigError(where('clientId'), `is required for the sign-in provider ${name}`);
  const issuer = text('issuer') ?? (preset?.type === type ? preset.issuer : undefined) ?? (type === 'github' ? 'https://github.com' : undefined);
  if (!issuer) throw new ConfigError(where('issuer'), `is required for the sign-in provider ${name} (its OpenID Connect issuer URL)`);
  checkUrl(where('issuer'), issuer);
  const scopes = Array.isArray(fields.scopes) ? fields.scopes : type === 'github' ? ['read:user', 'user:email'] : ['openid', 'email', 'profile'];
  if (type === 'oidc' && !scopes.includes('openid')) throw new ConfigError(where('scopes'), 'must include openid');
  const provider: SsoProviderConfig = {
    name,
    label: text('label') ?? preset?.label ?? name,
    type,
    issuer: issuer.replace(/\/+$/, ''),
    clientId,
    clientSecret: text('clientSecret'),
    scopes,
  };
  if (type === 'github') {
    const github = {
      authorizeUrl: text('authorizeUrl') ?? 'https://github.com/login/oauth/authorize',
      tokenUrl: text('tokenUrl') ?? 'https://github.com/login/oauth/access_token',
      apiBaseUrl: (text('apiBaseUrl') ?? 'https://api.github.com').replace(/\/+$/, ''),
    };
    checkUrl(where('authorizeUrl'), github.authorizeUrl);
    checkUrl(where('tokenUrl'), github.tokenUrl);
    checkUrl(where('apiBaseUrl'), github.apiBaseUrl);
    if (!provider.clientSecret) throw new ConfigError(where('clientSecret'), `is required for the GitHub sign-in provider ${name}`);
    provider.github = github;
  }
  return provider;
}

/** HTTPS, or plain HTTP to a loopback address only (a provider run on the same machine, tests). */
function checkUrl(field: string, value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(field, `must be a URL, got ${JSON.stringify(value)}`);
  }
  const loopback = url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) throw new ConfigError(field, 'must be an https:// URL (plain http only to a loopback address)');
  if (url.search !== '' || url.hash !== '') throw new ConfigError(field, 'must have no query or fragment');
}

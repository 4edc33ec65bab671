import { createHash, randomBytes } from 'node:crypto';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { AccountStore, UserRow } from '../../ports/account-store.port.ts';
import type { AuthStore } from '../../ports/auth-store.port.ts';
import type { EventBus } from '../../ports/event-bus.port.ts';
import type { StoreTransaction } from '../../ports/store-transaction.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import { createUser, normalizeEmail } from '../accounts/accounts.service.ts';
import { publishRevoked } from '../accounts/credential-revocations.ts';
import { addressGroup } from './address-group.ts';
import { BackoffLimiter, type BackoffSteps } from './backoff-limiter.ts';
import { AttemptLimiter } from './attempt-limiter.ts';
import { hashPassword, verifyPassword } from './password-hash.ts';

/** What the HTTP layer needs to know about the session behind a cookie. */
export interface SessionIdentity {
  sessionId: string;
  userId: string;
  isAdmin: boolean;
  csrfToken: string;
  expiresAt: number;
  absoluteExpiresAt: number;
}

export interface IssuedSession {
  /** The cookie value: shown to the browser once, stored only as its SHA-256. */
  token: string;
  session: SessionIdentity;
  user: UserRow;
}

export interface ClientInfo {
  ip: string;
  userAgent: string | undefined;
}

export interface SessionPolicy {
  /** A session unused this long ends (sliding). */
  idleTtlMs: number;
  /** A session ends this long after sign-in, used or not. */
  absoluteTtlMs: number;
  /** The sliding expiry is written at most this often (a read per request, a write per interval). */
  renewEveryMs: number;
}

export const DEFAULT_SESSION_POLICY: SessionPolicy = {
  idleTtlMs: 7 * 24 * 3600_000,
  absoluteTtlMs: 30 * 24 * 3600_000,
  renewEveryMs: 5 * 60_000,
};

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const MINUTE = 60_000;
/** Failures of one account (across addresses) in an hour before its pairs get the strict schedule. */
const ACCOUNT_FREE_FAILURES = 20;
/**
 * The pair schedule of an account that is being guessed: one free failure per address, then 30 s,
 * 1 min, 2 min, … at most 15 min. An address gets about eight guesses an hour at it instead of
 * seventeen, and the very first attempt from an address is always checked, so the owner's right
 * password from a new address signs in at once, whatever the guessing elsewhere.
 */
const UNDER_ATTACK_PAIR: BackoffSteps = { free: 1, baseMs: 30_000, maxMs: 15 * MINUTE };
const TRY_A_LINK = 'or ask for a sign-in link by email';

export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** What sign-in is built on: users, sessions and links, and their transactions. */
export interface AuthPorts {
  accounts: AccountStore;
  auth: AuthStore;
  uow: UnitOfWork;
}

export interface AuthServiceOptions {
  policy?: SessionPolicy;
  /** Where ended sessions are announced, so that their open event streams close (none in the CLI). */
  bus?: EventBus;
}

/**
 * Accounts in the browser: sign-up and sign-in with email and password (Argon2id), server-side
 * sessions behind an HttpOnly cookie, sign-out, password change (which signs out every other
 * browser), and the admin flag. Failed sign-ins slow down per (address, email) pair with a growing wait
 * and are capped per address (an IPv6 address counts as its /64); across addresses an account that
 * draws many failures makes each address's failures at it cost more, never the ones it signed in
 * from, and never a first attempt. Nobody can lock another person's account, and the right password
 * from a new address is never refused because of guessing elsewhere.
 */
export class AuthService {
  private readonly ports: AuthPorts;
  private readonly accounts: AccountStore;
  /** Sessions, sign-in links and passwords. */
  private readonly credentials: AuthStore;
  /** Each statement here commits on its own. */
  private readonly db: StoreTransaction;
  private readonly policy: SessionPolicy;
  private readonly bus: EventBus | undefined;
  private readonly failuresByPair = new BackoffLimiter({ free: 5, baseMs: 1_000, maxMs: 15 * MINUTE, forgetMs: 60 * MINUTE });
  private readonly failuresByIp = new AttemptLimiter({ max: 50, windowMs: 15 * MINUTE });
  /**
   * Failures per account across addresses. Past ACCOUNT_FREE_FAILURES the account is being guessed
   * from many addresses, and its pairs get the strict schedule (UNDER_ATTACK_PAIR): it is never a
   * wait of the account itself, which would hold the owner's right password at the door.
   */
  private readonly failuresByAccount = new BackoffLimiter({ free: ACCOUNT_FREE_FAILURES, baseMs: 1_000, maxMs: 30_000, forgetMs: 60 * MINUTE });
  /** Wrong current passwords on a password change (only a signed-in owner can make them). */
  private readonly wrongCurrentPasswords = new AttemptLimiter({ max: 10, windowMs: 15 * MINUTE });
  private readonly signupsByIp = new AttemptLimiter({ max: 20, windowMs: 60 * MINUTE });
  private dummyHash: Promise<string> | undefined;
  private lastSweep = 0;

  constructor(ports: AuthPorts, options: AuthServiceOptions = {}) {
    this.ports = ports;
    this.accounts = ports.accounts;
    this.credentials = ports.auth;
    this.db = ports.uow.direct;
    this.policy = options.policy ?? DEFAULT_SESSION_POLICY;
    this.bus = options.bus;
  }

  async signup(emailInput: string, password: string, client: ClientInfo, now: number = Date.now()): Promise<IssuedSession> {
    const email = normalizeEmail(emailInput);
    validateNewPassword(password, 'password');
    const ipKey = `ip:${addressGroup(client.ip)}`;
    this.refuseWhileLimited(this.signupsByIp, ipKey, 'too many sign-ups from this address; try again later', now);
    this.signupsByIp.record(ipKey, now);
    const passwordHash = await hashPassword(password);
    // A new account starts with balance 0: the operator credits it (docs/decisions.md). An email
    // taken meanwhile by a concurrent sign-up is a conflict too (the store says so).
    const user = await createUser(this.ports, { email, passwordHash }, now);
    return this.issue(user, client, now);
  }

  async login(emailInput: string, password: string, client: ClientInfo, now: number = Date.now()): Promise<IssuedSession> {
    const email = normalizeEmail(emailInput);
    if (typeof password !== 'string' || password.length === 0 || password.length > PASSWORD_MAX) {
      throw new AppError('unauthorized', 'wrong email or password');
    }
    const group = addressGroup(client.ip);
    const pairKey = `${group}|${email}`;
    const ipKey = `ip:${group}`;
    const pairWait = (wait: number) =>
      new AppError('rate_limited', `too many failed sign-ins for this email from this address; try again in ${wait} s, ${TRY_A_LINK}`, { retryAfter: wait });
    const wait = this.failuresByPair.retryAfter(pairKey, now);
    if (wait > 0) throw pairWait(wait);
    this.refuseWhileLimited(this.failuresByIp, ipKey, `too many failed sign-ins from this address; try again later, ${TRY_A_LINK}`, now);

    const user = await this.accounts.findUserByEmail(this.db, email);
    // An account guessed from many addresses: this address's own failures at it count more (never
    // the account's as a whole), except from an address the account signed in from (its owner's).
    // Unknown emails are treated alike, so the schedule tells nothing about who has an account.
    if (this.failuresByAccount.failures(email, now) >= ACCOUNT_FREE_FAILURES) {
      const strict = this.failuresByPair.retryAfter(pairKey, now, UNDER_ATTACK_PAIR);
      if (strict > 0 && !(user && (await this.signedInFrom(user.id, group)))) throw pairWait(strict);
    }
    // Unknown users cost the same hash as known ones, so timing does not tell which emails exist.
    const check = await verifyPassword(password, user?.password_hash ?? (await this.dummy()));
    if (!user?.password_hash || !check.ok) {
      this.failuresByPair.recordFailure(pairKey, now);
      this.failuresByIp.record(ipKey, now);
      this.failuresByAccount.recordFailure(email, now);
      throw new AppError('unauthorized', 'wrong email or password');
    }
    this.failuresByPair.reset(pairKey);
    if (check.needsRehash) await this.credentials.setPasswordHash(this.db, user.id, await hashPassword(password));
    await this.sweepExpired(now);
    return this.issue(user, client, now);
  }

  /**
   * A link that signs `userId` in once (the demo user at first start): the token is returned, only
   * its hash is stored; it expires after `ttlMs`.
   */
  async createSignInLink(userId: string, ttlMs: number, now: number = Date.now()): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.credentials.addSignInLink(this.db, { token_hash: hashSessionToken(token), user_id: userId, created_at: now, expires_at: now + ttlMs });
    return token;
  }

  /** Uses a sign-in link (once, before it expires) and opens a session for its user. */
  async redeemSignInLink(token: string, client: ClientInfo, now: number = Date.now()): Promise<IssuedSession> {
    const userId = typeof token === 'string' && token.length > 0 && token.length <= 200 ? await this.credentials.consumeSignInLink(this.db, hashSessionToken(token), now) : undefined;
    const user = userId ? await this.accounts.findUser(this.db, userId) : undefined;
    if (!user) throw new AppError('unauthorized', 'this sign-in link was used already or has expired');
    return this.issue(user, client, now);
  }

  /**
   * Opens a session for a user whose identity was proven elsewhere (single sign-on: a provider
   * vouched for the verified email): the same session and cookie as a password sign-in.
   */
  async signInVerified(user: UserRow, client: ClientInfo, now: number = Date.now()): Promise<IssuedSession> {
    await this.sweepExpired(now);
    return this.issue(user, client, now);
  }

  /** The session behind a cookie token, sliding its expiry; undefined when unknown or expired. */
  async resolve(token: string, now: number = Date.now()): Promise<SessionIdentity | undefined> {
    if (!TOKEN.test(token)) return undefined;
    const row = await this.credentials.findSessionByTokenHash(this.db, hashSessionToken(token));
    if (!row || row.expires_at <= now || row.absolute_expires_at <= now) return undefined;
    let expiresAt = row.expires_at;
    if (now - row.last_seen_at >= this.policy.renewEveryMs) {
      expiresAt = Math.min(now + this.policy.idleTtlMs, row.absolute_expires_at);
      await this.credentials.renewSession(this.db, row.id, now, expiresAt);
    }
    return {
      sessionId: row.id,
      userId: row.user_id,
      isAdmin: row.is_admin === 1,
      csrfToken: row.csrf_token,
      expiresAt,
      absoluteExpiresAt: row.absolute_expires_at,
    };
  }

  async logout(sessionId: string): Promise<void> {
    await this.credentials.endSession(this.db, sessionId);
    if (this.bus) await publishRevoked(this.bus, { apiKeyIds: [], sessionIds: [sessionId] });
  }

  /**
   * Changes the password, which requires the current one; a user who has none (signed up by a link)
   * sets a first one without it. Either way every other session of the user ends.
   */
  async changePassword(userId: string, keepSessionId: string | undefined, current: string | undefined, next: string): Promise<{ otherSessionsEnded: number }> {
    validateNewPassword(next, 'newPassword');
    const user = await this.accounts.findUser(this.db, userId);
    if (!user) throw new AppError('user_not_found', 'user not found');
    if (user.password_hash === null) {
      if (current !== undefined && current !== '') throw invalidInput('this account has no password yet: leave currentPassword out to set one', 'currentPassword');
      // Guarded: of two first passwords set at once, one wins and the other is told to change it.
      if (!(await this.credentials.setFirstPasswordHash(this.db, userId, await hashPassword(next)))) throw new AppError('conflict', 'a password was set meanwhile; change it with the current password', { param: 'currentPassword' });
      return this.endOtherSessions(userId, keepSessionId);
    }
    // No current password for an account that has one: a first password set meanwhile (another
    // session won the race), or a client that forgot the field; the same answer either way.
    if (current === undefined || current === '') throw new AppError('conflict', 'this account has a password: give currentPassword to change it', { param: 'currentPassword' });
    const now = Date.now();
    const key = `user:${userId}`;
    this.refuseWhileLimited(this.wrongCurrentPasswords, key, 'too many wrong passwords; try again later', now);
    const check = await verifyPassword(current, user.password_hash);
    if (!check.ok) {
      this.wrongCurrentPasswords.record(key, now);
      throw new AppError('forbidden', 'the current password is wrong', { param: 'currentPassword' });
    }
    if (current === next) throw invalidInput('the new password must differ from the current one', 'newPassword');
    await this.credentials.setPasswordHash(this.db, userId, await hashPassword(next));
    return this.endOtherSessions(userId, keepSessionId);
  }

  private async endOtherSessions(userId: string, keepSessionId: string | undefined): Promise<{ otherSessionsEnded: number }> {
    const ended = await this.credentials.endOtherSessions(this.db, userId, keepSessionId);
    if (this.bus) await publishRevoked(this.bus, { apiKeyIds: [], sessionIds: ended });
    return { otherSessionsEnded: ended.length };
  }

  /** Makes a user an admin (or not) by id or email; their sessions get the admin API at once. */
  async setAdmin(userIdOrEmail: string, isAdmin: boolean): Promise<UserRow> {
    const user = await this.userByIdOrEmail(userIdOrEmail);
    await this.credentials.setAdminFlag(this.db, user.id, isAdmin);
    return { ...user, is_admin: isAdmin ? 1 : 0 };
  }

  /** A new one-time sign-in link for a user named by id or email (the operator's way back in for a user without a password). */
  async createSignInLinkFor(userIdOrEmail: string, ttlMs: number, now: number = Date.now()): Promise<{ user: UserRow; token: string; expiresAt: number }> {
    const user = await this.userByIdOrEmail(userIdOrEmail);
    if (user.kind === 'organization') throw new AppError('forbidden', 'an organization has no sign-in of its own: hand a link to one of its members');
    return { user, token: await this.createSignInLink(user.id, ttlMs, now), expiresAt: now + ttlMs };
  }

  private async userByIdOrEmail(userIdOrEmail: string): Promise<UserRow> {
    const user = userIdOrEmail.includes('@') ? await this.accounts.findUserByEmail(this.db, normalizeEmail(userIdOrEmail)) : await this.accounts.findUser(this.db, userIdOrEmail);
    if (!user) throw new AppError('user_not_found', `user ${userIdOrEmail} not found`);
    return user;
  }

  private async issue(user: UserRow, client: ClientInfo, now: number): Promise<IssuedSession> {
    // An organization is reached through its members' sessions; nobody signs in as one.
    if (user.kind === 'organization') throw new AppError('forbidden', 'an organization has no sign-in of its own: sign in as one of its members');
    const token = randomBytes(32).toString('base64url');
    const session = {
      id: newId('ses', now),
      user_id: user.id,
      token_hash: hashSessionToken(token),
      csrf_token: randomBytes(24).toString('base64url'),
      created_at: now,
      last_seen_at: now,
      expires_at: now + Math.min(this.policy.idleTtlMs, this.policy.absoluteTtlMs),
      absolute_expires_at: now + this.policy.absoluteTtlMs,
      user_agent: client.userAgent?.slice(0, 300) ?? null,
      ip: client.ip.slice(0, 100),
    };
    await this.credentials.addSession(this.db, session);
    return {
      token,
      user,
      session: {
        sessionId: session.id,
        userId: user.id,
        isAdmin: user.is_admin === 1,
        csrfToken: session.csrf_token,
        expiresAt: session.expires_at,
        absoluteExpiresAt: session.absolute_expires_at,
      },
    };
  }

  private refuseWhileLimited(limiter: AttemptLimiter, key: string, message: string, now: number): void {
    const retryAfter = limiter.retryAfter(key, now);
    if (retryAfter > 0) throw new AppError('rate_limited', message, { retryAfter });
  }

  /** Whether the account has a session opened from this address group (its owner's usual address). */
  private async signedInFrom(userId: string, group: string): Promise<boolean> {
    return (await this.credentials.listSessionAddresses(this.db, userId)).some((ip) => addressGroup(ip) === group);
  }

  private dummy(): Promise<string> {
    this.dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
    return this.dummyHash;
  }

  /** Expired sessions are deleted now and then (at most hourly per process), on a sign-in. */
  private async sweepExpired(now: number): Promise<void> {
    if (now - this.lastSweep < 60 * MINUTE) return;
    this.lastSweep = now;
    await this.credentials.deleteExpiredSessions(this.db, now);
  }
}

function validateNewPassword(password: unknown, field: string): asserts password is string {
  if (typeof password !== 'string') throw invalidInput(`${field} must be a string`, field);
  const length = [...password].length;
  if (length < PASSWORD_MIN) throw invalidInput(`${field} must be at least ${PASSWORD_MIN} characters`, field);
  if (length > PASSWORD_MAX) throw invalidInput(`${field} must be at most ${PASSWORD_MAX} characters`, field);
}

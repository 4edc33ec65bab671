import type { Logger } from 'pino';
import { AppError } from '../../domain/errors.ts';
import type { AccountStore } from '../../ports/account-store.port.ts';
import type { Mailer } from '../../ports/mailer.port.ts';
import { type RateLimit, type RateLimiter, retryAfterSeconds } from '../../ports/rate-limiter.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import { normalizeEmail } from '../accounts/accounts.service.ts';
import { addressGroup } from './address-group.ts';
import type { AuthService, ClientInfo } from './auth.service.ts';

/** An emailed link is short-lived: it travels through mailboxes and may be forwarded. */
export const EMAILED_LINK_TTL_MS = 15 * 60_000;

export interface EmailedSignInLinksDeps {
  accounts: AccountStore;
  uow: UnitOfWork;
  auth: AuthService;
  mailer: Mailer;
  limiter: RateLimiter;
  /** Per client address (an IPv6 /64 counts as one), and per mailbox whoever asks. */
  limits: { perAddress: RateLimit; perMailbox: RateLimit };
  publicBaseUrl: () => string;
  logger: Logger;
}

/**
 * "Email me a sign-in link": the way back in for a user who signed in by link and has no password,
 * or forgot it, without the operator's CLI. The answer is the same whether the address has an
 * account or not, and it comes before the mail is sent (in the background), so neither the words nor
 * the timing tell a guesser which addresses have accounts.
 */
export class EmailedSignInLinks {
  readonly #deps: EmailedSignInLinksDeps;
  readonly #sending = new Set<Promise<void>>();

  constructor(deps: EmailedSignInLinksDeps) {
    this.#deps = deps;
  }

  async request(emailInput: string, client: ClientInfo, now: number = Date.now()): Promise<void> {
    const email = normalizeEmail(emailInput);
    for (const [key, limit] of [
      [`signin-link:addr:${addressGroup(client.ip)}`, this.#deps.limits.perAddress],
      [`signin-link:mail:${email}`, this.#deps.limits.perMailbox],
    ] as const) {
      const verdict = await this.#deps.limiter.hit(key, limit);
      if (!verdict.allowed) throw new AppError('rate_limited', 'too many sign-in links asked for; try again later', { retryAfter: retryAfterSeconds(verdict) });
    }
    const user = await this.#deps.accounts.findUserByEmail(this.#deps.uow.direct, email);
    if (!user) return;
    const token = await this.#deps.auth.createSignInLink(user.id, EMAILED_LINK_TTL_MS, now);
    const url = `${this.#deps.publicBaseUrl()}/api/v1/auth/link?token=${token}`;
    const sending = this.#deps.mailer
      .send({
        to: email,
        subject: 'Your Switchboard sign-in link',
        text: [
          'Someone (we hope you) asked for a link to sign in to Switchboard.',
          '',
          `Open it within 15 minutes to sign in; it works once: ${url}`,
          '',
          'Signed in, you can set a password under Account.',
          'If you did not ask for it, ignore this message: nothing changes without the link.',
        ].join('\n'),
      })
      .catch((error: unknown) => this.#deps.logger.error({ err: error, userId: user.id, mailer: this.#deps.mailer.describe }, 'sign-in link mail failed'))
      .finally(() => this.#sending.delete(sending));
    this.#sending.add(sending);
  }

  /** Waits for the mails under way (at shut-down, and in tests). */
  async settled(): Promise<void> {
    await Promise.all([...this.#sending]);
  }
}

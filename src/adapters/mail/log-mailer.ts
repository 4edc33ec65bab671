import type { Logger } from 'pino';
import type { MailMessage, Mailer } from '../../ports/mailer.port.ts';

/**
 * The mailer of a gateway without SMTP (the embedded default): each message is one log line, so an
 * operator can read a user's sign-in link from the log and pass it on. Nothing leaves the machine.
 */
export class LogMailer implements Mailer {
  readonly describe = 'log';
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  async send(message: MailMessage): Promise<void> {
    this.#logger.info({ mail: { to: message.to, subject: message.subject } }, `mail not sent (no SMTP_URL configured); its text:\n${message.text}`);
  }

  async close(): Promise<void> {}
}

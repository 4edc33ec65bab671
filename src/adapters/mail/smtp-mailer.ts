import { createTransport, type Transporter } from 'nodemailer';
import type { MailMessage, Mailer } from '../../ports/mailer.port.ts';

export interface SmtpMailerOptions {
  /** `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465` (TLS from the start). */
  url: string;
  /** The From address, e.g. `Switchboard <no-reply@example.com>`. */
  from: string;
  /** Bounds on connecting and on each server reply, so a dead server cannot hold a send for ever. */
  timeoutMs?: number;
}

/** Sends through an SMTP server (nodemailer), one pooled connection reused between messages. */
export class SmtpMailer implements Mailer {
  readonly describe: string;
  readonly #transport: Transporter;
  readonly #from: string;

  constructor(options: SmtpMailerOptions) {
    const url = new URL(options.url);
    const secure = url.protocol === 'smtps:';
    const port = url.port ? Number(url.port) : secure ? 465 : 587;
    this.describe = `${url.protocol}//${url.hostname}:${port}`;
    const timeout = options.timeoutMs ?? 15_000;
    this.#transport = createTransport({
      host: url.hostname,
      port,
      secure,
      auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
      pool: true,
      maxConnections: 2,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
    });
    this.#from = options.from;
  }

  async send(message: MailMessage): Promise<void> {
    await this.#transport.sendMail({ from: this.#from, to: message.to, subject: message.subject, text: message.text });
  }

  async close(): Promise<void> {
    this.#transport.close();
  }
}

/**
 * Sends an email. Used for sign-in links (a user who signed in by link and forgot it, or never set a
 * password, gets back in without the operator). Scale-out and production: SMTP. Embedded without
 * SMTP: the message is written to the log, so the operator of a single machine can still pass it on.
 */
export interface MailMessage {
  to: string;
  subject: string;
  /** Plain text; no HTML, so nothing in it is rendered. */
  text: string;
}

export interface Mailer {
  /** Where messages go, for the start-up log (`smtp://host:port` or `log`); never a password. */
  readonly describe: string;
  /** Resolves when the server accepted the message; rejects when it did not. */
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}

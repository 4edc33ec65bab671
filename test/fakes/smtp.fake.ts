import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';

/** A message as the fake SMTP server received it. */
export interface ReceivedMail {
  from: string;
  to: string[];
  /** The DATA section: headers, a blank line, the body (dot-stuffing undone). */
  data: string;
}

/** The body of a mail with quoted-printable undone (nodemailer folds long lines that way). */
export function mailText(mail: ReceivedMail): string {
  const [head = '', ...rest] = mail.data.split('\r\n\r\n');
  const body = rest.join('\r\n\r\n');
  return /quoted-printable/i.test(head) ? body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))) : body;
}

/**
 * An SMTP server on 127.0.0.1 that speaks the part of RFC 5321 a submission client uses without TLS
 * or authentication (EHLO/HELO, MAIL, RCPT, DATA, RSET, NOOP, QUIT) and keeps what it receives.
 * Commands out of order get 503, unknown ones 500, as a real server answers; a recipient put in
 * `failOnceFor` has its next message refused after DATA with a 451, for the path where the mail
 * cannot go out.
 */
export class FakeSmtpServer {
  readonly received: ReceivedMail[] = [];
  readonly failOnceFor = new Set<string>();
  readonly #server: Server;
  readonly #waiters: Array<() => void> = [];
  readonly #sockets = new Set<Socket>();

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(): Promise<FakeSmtpServer> {
    const fake = new FakeSmtpServer(createServer());
    fake.#server.on('connection', (socket) => fake.#session(socket));
    fake.#server.listen(0, '127.0.0.1');
    await once(fake.#server, 'listening');
    return fake;
  }

  get url(): string {
    const address = this.#server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening');
    return `smtp://127.0.0.1:${address.port}`;
  }

  /** The messages to `address`, once `count` of them have arrived (tests share one server). */
  async mailsTo(address: string, count = 1, timeoutMs = 10_000): Promise<ReceivedMail[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const mails = this.received.filter((m) => m.to.includes(address));
      if (mails.length >= count) return mails;
      if (Date.now() > deadline) throw new Error(`expected ${count} mails to ${address}, got ${mails.length}`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }

  async close(): Promise<void> {
    this.#server.close();
    for (const socket of this.#sockets) socket.destroy();
  }

  #session(socket: Socket): void {
    this.#sockets.add(socket);
    socket.on('close', () => this.#sockets.delete(socket));
    let greeted = false;
    let from: string | undefined;
    let to: string[] = [];
    let inData = false;
    let data: string[] = [];
    let buffer = '';
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply('220 fake-smtp ESMTP ready');
    socket.setEncoding('utf8');
    socket.on('error', () => {});
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\r\n'); end !== -1; end = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            const failing = to.find((address) => this.failOnceFor.has(address));
            if (failing !== undefined) {
              this.failOnceFor.delete(failing);
              reply('451 4.3.0 try again later');
            } else {
              this.received.push({ from: from ?? '', to, data: data.join('\r\n') });
              for (const wake of this.#waiters.splice(0)) wake();
              reply('250 2.0.0 queued');
            }
            from = undefined;
            to = [];
            data = [];
          } else {
            data.push(line.startsWith('..') ? line.slice(1) : line);
          }
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO') {
          greeted = true;
          socket.write('250-fake-smtp\r\n250-8BITMIME\r\n250-SMTPUTF8\r\n250 SIZE 10485760\r\n');
        } else if (verb === 'HELO') {
          greeted = true;
          reply('250 fake-smtp');
        } else if (verb === 'MAIL') {
          const address = /^MAIL FROM:\s*<([^>]*)>/i.exec(line)?.[1];
          if (!greeted) reply('503 5.5.1 EHLO first');
          else if (address === undefined) reply('501 5.5.4 syntax: MAIL FROM:<address>');
          else {
            from = address;
            to = [];
            reply('250 2.1.0 ok');
          }
        } else if (verb === 'RCPT') {
          const address = /^RCPT TO:\s*<([^>]+)>/i.exec(line)?.[1];
          if (from === undefined) reply('503 5.5.1 MAIL first');
          else if (address === undefined) reply('501 5.5.4 syntax: RCPT TO:<address>');
          else {
            to.push(address);
            reply('250 2.1.5 ok');
          }
        } else if (verb === 'DATA') {
          if (to.length === 0) reply('503 5.5.1 RCPT first');
          else {
            inData = true;
            reply('354 end data with <CR><LF>.<CR><LF>');
          }
        } else if (verb === 'RSET') {
          from = undefined;
          to = [];
          reply('250 2.0.0 ok');
        } else if (verb === 'NOOP') {
          reply('250 2.0.0 ok');
        } else if (verb === 'QUIT') {
          reply('221 2.0.0 bye');
          socket.end();
        } else {
          reply('500 5.5.2 command not recognized');
        }
      }
    });
  }
}

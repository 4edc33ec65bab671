/**
 * A fake Stripe for top-ups, following Stripe's public API for what the gateway calls: `POST
 * /v1/checkout/sessions` (form-encoded, `Authorization: Bearer sk_…`, `Idempotency-Key` replays the
 * first answer and refuses other parameters), Stripe's error objects, a hosted payment page, and
 * webhook deliveries signed as Stripe signs them (`Stripe-Signature: t=…,v1=<HMAC-SHA256 of "t.body">`).
 *
 *   const stripe = await StripeFake.start();
 *   // STRIPE_API_BASE=stripe.url STRIPE_SECRET_KEY=stripe.secretKey STRIPE_WEBHOOK_SECRET=stripe.webhookSecret
 *   stripe.webhookUrl = `${gatewayUrl}/api/v1/billing/webhooks/stripe`;
 *   await stripe.pay(sessionId); // checkout.session.completed, delivered and signed
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stripeSignatureHeader } from '../../src/providers/payments/stripe/stripe-signature.ts';

export interface FakeCheckoutSession {
  id: string;
  object: 'checkout.session';
  mode: 'payment';
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid';
  amount_total: number;
  currency: string;
  client_reference_id: string | null;
  customer_email: string | null;
  metadata: Record<string, string>;
  success_url: string;
  cancel_url: string;
  url: string | null;
  created: number;
  livemode: false;
  line_items_name: string;
}

export interface Delivery {
  status: number;
  body: string;
}

/**
 * API versions this fake answers for: the one stripe-node 23.1.0 pins (esm/apiVersion.js, read
 * 2026-11-25). Without the header Stripe uses the account's default version.
 */
const STRIPE_VERSIONS = ['2026-10-28.endive'];

const REQUIRED = ['mode', 'success_url', 'cancel_url', 'line_items[0][price_data][currency]', 'line_items[0][price_data][unit_amount]', 'line_items[0][price_data][product_data][name]', 'line_items[0][quantity]'];

export class StripeFake {
  readonly secretKey = `sk_test_fake${randomBytes(8).toString('hex')}`;
  readonly webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
  readonly sessions = new Map<string, FakeCheckoutSession>();
  /** Every create request as received (form fields and headers), for assertions. */
  readonly creates: Array<{ form: URLSearchParams; idempotencyKey: string | undefined; stripeVersion: string | undefined }> = [];
  /** Where events are delivered (the gateway's webhook endpoint). */
  webhookUrl = '';
  url = '';
  readonly #idempotent = new Map<string, { params: string; status: number; body: unknown }>();
  readonly #server: Server;

  private constructor() {
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch((error: unknown) => send(res, 500, { error: { type: 'api_error', message: String(error) } }));
    });
  }

  static async start(): Promise<StripeFake> {
    const fake = new StripeFake();
    await new Promise<void>((resolve) => fake.#server.listen(0, '127.0.0.1', resolve));
    fake.url = `http://127.0.0.1:${(fake.#server.address() as AddressInfo).port}`;
    return fake;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** The event Stripe sends for a session (`checkout.session.completed` unless told otherwise). */
  event(sessionId: string, type = 'checkout.session.completed'): Record<string, unknown> {
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`no session ${sessionId}`);
    const { line_items_name: _name, ...object } = session;
    return {
      id: `evt_${randomBytes(12).toString('hex')}`,
      object: 'event',
      api_version: STRIPE_VERSIONS[0],
      created: Math.floor(Date.now() / 1000),
      type,
      livemode: false,
      pending_webhooks: 1,
      data: { object },
    };
  }

  /** Marks the session paid (as the hosted page does) and delivers `checkout.session.completed`. */
  async pay(sessionId: string): Promise<Delivery> {
    this.#complete(sessionId, 'paid');
    return this.deliver(this.event(sessionId));
  }

  /** Delivers an event to `webhookUrl`, signed as Stripe does; `options` forge what an attacker would. */
  async deliver(event: unknown, options: { timestamp?: number; secret?: string; signatureHeader?: string; rawBody?: string } = {}): Promise<Delivery> {
    const body = options.rawBody ?? JSON.stringify(event, null, 2);
    const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
    const header = options.signatureHeader ?? stripeSignatureHeader(options.secret ?? this.webhookSecret, timestamp, body);
    const response = await fetch(this.webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': header, 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' },
      body,
    });
    return { status: response.status, body: await response.text() };
  }

  #complete(sessionId: string, payment: 'paid' | 'unpaid'): void {
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`no session ${sessionId}`);
    session.status = 'complete';
    session.payment_status = payment;
    session.url = null;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const body = await readBody(req);
    if (req.method === 'POST' && path === '/v1/checkout/sessions') {
      this.#createSession(req, res, body);
      return;
    }
    const page = /^\/c\/pay\/(cs_test_[A-Za-z0-9]+)$/.exec(path);
    const session = page?.[1] ? this.sessions.get(page[1]) : undefined;
    if (page && session && req.method === 'GET') return sendHtml(res, hostedPage(session));
    if (page && session && req.method === 'POST') {
      // The payer pressed Pay: Stripe completes the session, sends the webhook and returns the payer.
      if (session.status === 'open') {
        this.#complete(session.id, 'paid');
        if (this.webhookUrl) await this.deliver(this.event(session.id));
      }
      res.writeHead(303, { location: session.success_url.replace('{CHECKOUT_SESSION_ID}', session.id) }).end();
      return;
    }
    send(res, 404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${path}).` } });
  }

  #createSession(req: IncomingMessage, res: ServerResponse, body: string): ServerResponse {
    if (req.headers.authorization !== `Bearer ${this.secretKey}`) {
      return send(res, 401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_****' } });
    }
    if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      return send(res, 400, { error: { type: 'invalid_request_error', message: 'Invalid request: expected application/x-www-form-urlencoded' } });
    }
    const version = typeof req.headers['stripe-version'] === 'string' ? req.headers['stripe-version'] : undefined;
    if (version !== undefined && !STRIPE_VERSIONS.includes(version)) {
      // As Stripe answers a version it does not know.
      return send(res, 400, { error: { type: 'invalid_request_error', message: `Invalid Stripe API version: ${version}` } });
    }
    const form = new URLSearchParams(body);
    const key = typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : undefined;
    this.creates.push({ form, idempotencyKey: key, stripeVersion: version });
    if (key) {
      const earlier = this.#idempotent.get(key);
      if (earlier && earlier.params !== body) {
        return send(res, 400, { error: { type: 'idempotency_error', message: 'Keys for idempotent requests can only be used with the same parameters they were first used with.' } });
      }
      if (earlier) return send(res, earlier.status, earlier.body, { 'idempotent-replayed': 'true' });
    }
    const answer = this.#validate(form) ?? this.#newSession(form);
    if (key) this.#idempotent.set(key, { params: body, ...answer });
    return send(res, answer.status, answer.body);
  }

  #validate(form: URLSearchParams): { status: number; body: unknown } | undefined {
    const missing = REQUIRED.find((name) => !form.get(name));
    if (missing) return { status: 400, body: { error: { type: 'invalid_request_error', code: 'parameter_missing', param: missing, message: `Missing required param: ${missing}.` } } };
    if (form.get('mode') !== 'payment') return invalid('mode', 'Invalid mode: this fake supports payment only');
    const amount = form.get('line_items[0][price_data][unit_amount]') ?? '';
    if (!/^\d+$/.test(amount) || Number(amount) < 50) return invalid('line_items[0][price_data][unit_amount]', 'Invalid integer: amount must be at least 50 cents');
    if (!/^\d+$/.test(form.get('line_items[0][quantity]') ?? '')) return invalid('line_items[0][quantity]', 'Invalid integer');
    for (const url of ['success_url', 'cancel_url']) if (!/^https?:\/\//.test(form.get(url) ?? '')) return invalid(url, 'Not a valid URL');
    return undefined;
  }

  #newSession(form: URLSearchParams): { status: number; body: unknown } {
    const id = `cs_test_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'a')}`;
    const metadata: Record<string, string> = {};
    for (const [name, value] of form) {
      const m = /^metadata\[([^\]]+)\]$/.exec(name);
      if (m?.[1]) metadata[m[1]] = value;
    }
    const session: FakeCheckoutSession = {
      id,
      object: 'checkout.session',
      mode: 'payment',
      status: 'open',
      payment_status: 'unpaid',
      amount_total: Number(form.get('line_items[0][price_data][unit_amount]')) * Number(form.get('line_items[0][quantity]')),
      currency: form.get('line_items[0][price_data][currency]') ?? 'usd',
      client_reference_id: form.get('client_reference_id'),
      customer_email: form.get('customer_email'),
      metadata,
      success_url: form.get('success_url') ?? '',
      cancel_url: form.get('cancel_url') ?? '',
      url: `${this.url}/c/pay/${id}`,
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      line_items_name: form.get('line_items[0][price_data][product_data][name]') ?? '',
    };
    this.sessions.set(id, session);
    const { line_items_name: _name, ...object } = session;
    return { status: 200, body: object };
  }
}

function invalid(param: string, message: string): { status: number; body: unknown } {
  return { status: 400, body: { error: { type: 'invalid_request_error', param, message } } };
}

function hostedPage(session: FakeCheckoutSession): string {
  const dollars = (session.amount_total / 100).toFixed(2);
  const html = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pay · Fake Stripe Checkout</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:2rem;border:1px solid #ddd;border-radius:12px}button{font-size:1.1rem;padding:.6rem 1.4rem;background:#635bff;color:#fff;border:0;border-radius:6px}</style></head>
<body><p>Fake Stripe Checkout (test mode)</p><h1>${html(session.line_items_name)}</h1><p data-testid="amount">US$${dollars}</p>
<p>${html(session.customer_email ?? '')}</p>
${session.status === 'open' ? `<form method="post"><button type="submit">Pay US$${dollars}</button></form>` : '<p>This session is complete.</p>'}
<p><a href="${html(session.cancel_url)}">Back</a></p></body></html>`;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): ServerResponse {
  return res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${randomBytes(7).toString('hex')}`, ...headers }).end(JSON.stringify(body));
}

function sendHtml(res: ServerResponse, html: string): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

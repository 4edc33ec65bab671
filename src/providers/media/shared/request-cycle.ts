/**
 * The request cycle every media style shares: its settings (base URL, key, the HTTP pool, poll
 * pacing), requests signed the vendor's way, and the fixed rules of submit and poll (docs/
 * media-providers.md "Errors"): a refused option is not sent; a submit without an answer failed or is
 * unknown; a poll without an answer, or with a transient one, looks again later. What differs from
 * vendor to vendor is its `VendorMapping` (how a request is signed and addressed, how long a transient
 * answer asks us to wait) and the error reading it passes to `submit` and `poll`; request bodies,
 * status words and result extraction stay in each vendor's mapping files.
 */
import type { HttpMethod, UpstreamHttpClient, UpstreamRequest, UpstreamResponse } from '../../../adapters/outbound/upstream-http-client.ts';
import type { MediaJob, MediaProviderFactoryOptions, PollOutcome, ProviderError, RouteRefusal, SubmitOutcome } from '../media-provider.ts';
import { isTransientStatus, submitWithoutAnswer } from './provider-errors.ts';
import { commonSettings } from './provider-options.ts';

export interface VendorMapping {
  /** The vendor's name, as its messages begin (`fal: …`). */
  vendor: string;
  /** The public base URL, when the vendor has one; the poll delay when the config gives none. */
  defaultBaseUrl: string | undefined;
  defaultPollMs: number;
  /** The headers of a request (our key, and what the request's body needs). */
  headers(apiKey: string, request: Partial<UpstreamRequest>): Record<string, string>;
  /** The URL of a path (default: the base URL followed by the path). */
  url?(baseUrl: string, path: string): string;
  /** The wait after a transient answer to a poll (429, 5xx); default: the configured retry delay. */
  transientDelayMs?(response: UpstreamResponse, retryPollMs: number): number;
}

/** An answer to read, or an outcome the cycle already decided (no answer, an error answer). */
export type CycleAnswer<Outcome> = { kind: 'answer'; response: UpstreamResponse } | { kind: 'settled'; outcome: Outcome };

/** What a vendor makes of an error answer (an HTTP status of 300 or more). */
export type ErrorReading = (response: UpstreamResponse) => ProviderError;

export class MediaRequestCycle {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly http: UpstreamHttpClient;
  /** The delay of the next poll while the job runs. */
  readonly pollMs: number;
  /** The delay of the next poll after one that did not get through. */
  readonly retryPollMs: number;
  readonly #mapping: VendorMapping;

  /** `baseUrl` rewrites the configured base URL (a peer given with its API prefix). */
  constructor(o: MediaProviderFactoryOptions, mapping: VendorMapping, baseUrl: (configured: string) => string = (configured) => configured) {
    const s = commonSettings(o, mapping.defaultBaseUrl, mapping.defaultPollMs);
    this.baseUrl = baseUrl(s.baseUrl);
    this.apiKey = s.apiKey;
    this.http = s.http;
    this.pollMs = s.pollMs;
    this.retryPollMs = s.retryPollMs;
    this.#mapping = mapping;
  }

  /** A request signed the vendor's way; `extra` adds a body, bounds, or headers that replace the signed ones. */
  request(job: Pick<MediaJob, 'signal'>, method: HttpMethod, path: string, extra: Partial<UpstreamRequest> = {}): UpstreamRequest {
    const url = this.#mapping.url ? this.#mapping.url(this.baseUrl, path) : `${this.baseUrl}${path}`;
    return { method, url, headers: this.#mapping.headers(this.apiKey, extra), signal: job.signal, ...extra };
  }

  /** The signed headers alone, for a request that adds its own (a content type, an idempotency key). */
  authHeaders(): Record<string, string> {
    return this.#mapping.headers(this.apiKey, {});
  }

  /** Nothing is sent for what this route cannot express: another route may serve it. */
  refused(refusal: RouteRefusal): SubmitOutcome {
    return { kind: 'failed', error: { message: `${this.#mapping.vendor}: ${refusal.message}`, retryable: true, code: 'unsupported' } };
  }

  accepted(upstreamId: string): SubmitOutcome {
    return { kind: 'accepted', upstreamId, pollAfterMs: this.pollMs };
  }

  /** Still running: look again at the usual pace. */
  pending(): PollOutcome {
    return { kind: 'pending', pollAfterMs: this.pollMs };
  }

  /** The poll did not get through: look again after the retry delay. */
  retryLater(): PollOutcome {
    return { kind: 'pending', pollAfterMs: this.retryPollMs };
  }

  /** Sends a submit; without an answer it failed (certainly not delivered) or is unknown (perhaps delivered). */
  async sendSubmit(request: UpstreamRequest): Promise<CycleAnswer<SubmitOutcome>> {
    const exchange = await this.http.send(request);
    if (exchange.kind === 'no-response') return { kind: 'settled', outcome: submitWithoutAnswer(exchange) };
    return { kind: 'answer', response: exchange.response };
  }

  /** `sendSubmit`, and an error answer failed the submit as `error` reads it. */
  async submit(request: UpstreamRequest, error: ErrorReading): Promise<CycleAnswer<SubmitOutcome>> {
    const answer = await this.sendSubmit(request);
    if (answer.kind === 'answer' && answer.response.status >= 300) return { kind: 'settled', outcome: { kind: 'failed', error: error(answer.response) } };
    return answer;
  }

  /** Sends a poll; a poll that did not get through is not a failed job. */
  async sendPoll(request: UpstreamRequest): Promise<CycleAnswer<PollOutcome>> {
    const exchange = await this.http.send(request);
    if (exchange.kind === 'no-response') return { kind: 'settled', outcome: this.retryLater() };
    return { kind: 'answer', response: exchange.response };
  }

  /** `sendPoll`, and an error answer: transient (429, 5xx) looks again later, any other fails the job as `error` reads it. */
  async poll(request: UpstreamRequest, error: ErrorReading): Promise<CycleAnswer<PollOutcome>> {
    const answer = await this.sendPoll(request);
    if (answer.kind === 'settled' || answer.response.status < 300) return answer;
    const { response } = answer;
    if (!isTransientStatus(response.status)) return { kind: 'settled', outcome: { kind: 'failed', error: error(response) } };
    const delay = this.#mapping.transientDelayMs ? this.#mapping.transientDelayMs(response, this.retryPollMs) : this.retryPollMs;
    return { kind: 'settled', outcome: { kind: 'pending', pollAfterMs: delay } };
  }

  /** Releases the pooled connections. */
  close(): Promise<void> {
    return this.http.close();
  }
}

/**
 * kie.ai (`type: kie`, baseUrl `https://api.kie.ai`). Three of kie's APIs, chosen by family:
 * the Market jobs API (createTask/recordInfo) for most families, the Veo 3.1 API for V3/V4 and the
 * Suno API for M1. Bearer auth. kie has no lookup by client reference, so an unknown submit is
 * `unknowable` (its callback, which names the task, still arrives); it has no cancel call.
 * Callbacks are verified with kie's optional HMAC (`options.webhookHmacKey`), which signs only
 * `taskId.timestamp`, not the body: a callback gives the task id, never a trusted outcome.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type {
  CallbackNotice,
  MediaJob,
  MediaProvider,
  MediaProviderFactory,
  MediaProviderFactoryOptions,
  PollOutcome,
  ReconcileOutcome,
  RouteRefusal,
  RouteRequest,
  SubmitOutcome,
  UpstreamFile,
} from '../media-provider.ts';
import { optionString } from '../shared/provider-options.ts';
import { isTransientStatus, protocolError } from '../shared/provider-errors.ts';
import { MediaRequestCycle, type VendorMapping } from '../shared/request-cycle.ts';
import { urlFile } from '../shared/result-files.ts';
import { lowerHeaders } from '../shared/standard-webhooks.ts';
import { isRecord, parseJson, recordAt, stringAt } from '../shared/json-values.ts';
import { envelopeError, readEnvelope, taskFailure } from './kie-codes.ts';
import { kieJobRefusal, kieJobRequest } from './kie-jobs.mapping.ts';
import { type JobOwnership, kieRecordOwnership } from './kie-record-match.ts';
import { type SunoAsyncCall, sunoCall, sunoRefusal, sunoResult, sunoState } from './kie-suno.mapping.ts';
import { upgradeNeeded, VEO_1080P_PATH, VEO_4K_PATH, VEO_GENERATE_PATH, VEO_RECORD_PATH, veoRefusal, veoRequest } from './kie-veo.mapping.ts';

const CREATE_TASK_PATH = '/api/v1/jobs/createTask';
const RECORD_INFO_PATH = '/api/v1/jobs/recordInfo';
const CALLBACK_TOLERANCE_S = 300;

/** The upstream id of an attempt whose Veo 4K upgrade was started: the upgrade's kie task id, marked. */
const FOUR_K_PREFIX = '4k:';
const fourKMarker = (taskId: string) => `${FOUR_K_PREFIX}${taskId}`;
const fourKTaskId = (upstreamId: string) => (upstreamId.startsWith(FOUR_K_PREFIX) ? upstreamId.slice(FOUR_K_PREFIX.length) : undefined);

type Api = 'market' | 'veo' | 'suno';

/** The families kie serves from its own Veo 3.1 and Suno APIs; every other family goes to the Market jobs API. */
const API_BY_FAMILY: ReadonlyMap<string, Api> = new Map([
  ['V3', 'veo'],
  ['V4', 'veo'],
  ['M1', 'suno'],
]);

function apiOf(job: Pick<MediaJob, 'family'>): Api {
  return API_BY_FAMILY.get(job.family) ?? 'market';
}

const KIE: VendorMapping = {
  vendor: 'kie',
  defaultBaseUrl: 'https://api.kie.ai',
  defaultPollMs: 5_000,
  headers: (apiKey) => ({ authorization: `Bearer ${apiKey}` }),
};

class KieProvider implements MediaProvider {
  readonly name: string;
  readonly type = 'kie';
  readonly defaultPollMs: number;
  readonly #c: MediaRequestCycle;
  readonly #hmacKey: string | undefined;

  constructor(o: MediaProviderFactoryOptions) {
    this.name = o.name;
    this.#c = new MediaRequestCycle(o, KIE);
    this.defaultPollMs = this.#c.pollMs;
    this.#hmacKey = optionString(o, 'webhookHmacKey');
  }

  refusal(request: RouteRequest): RouteRefusal | undefined {
    const api = apiOf(request);
    if (api === 'veo') return veoRefusal(request);
    if (api === 'suno') return sunoRefusal(request);
    return kieJobRefusal(request);
  }

  async submit(job: MediaJob): Promise<SubmitOutcome> {
    const api = apiOf(job);
    const refusal = this.refusal(job);
    // Nothing is sent for an option kie does not document: another route may serve it.
    if (refusal) return this.#c.refused(refusal);
    let path: string;
    let body: Record<string, unknown>;
    if (api === 'suno') {
      const call = sunoCall(job);
      if (call.kind === 'refused') return { kind: 'failed', error: call.error };
      if (call.kind === 'sync') return this.#submitSync(job, call.path, call.body, call.output);
      path = call.path;
      body = call.body;
    } else if (api === 'veo') {
      path = VEO_GENERATE_PATH;
      body = veoRequest(job);
    } else {
      const { model, input } = kieJobRequest(job);
      path = CREATE_TASK_PATH;
      body = { model, input, callBackUrl: job.callbackUrl };
    }
    const answer = await this.#c.sendSubmit(this.#c.request(job, 'POST', path, { json: body }));
    if (answer.kind === 'settled') return answer.outcome;
    const envelope = readEnvelope(answer.response.status, parseJson(answer.response.body));
    if (envelope.code !== 200) return { kind: 'failed', error: envelopeError(envelope, api === 'suno' ? 'suno' : 'market', 'submit') };
    const taskId = stringAt(envelope.data, 'taskId') ?? stringAt(envelope.data, 'task_id');
    // Accepted (code 200) but no id to follow: the job may run, and we cannot find it.
    if (!taskId) return { kind: 'unknown', error: protocolError('kie accepted the task without a taskId', answer.response.status) };
    return this.#c.accepted(taskId);
  }

  /** Suno's synchronous data actions answer with the result. */
  async #submitSync(
    job: MediaJob,
    path: string,
    body: Record<string, unknown>,
    output: (data: Record<string, unknown>) => Record<string, unknown>,
  ): Promise<SubmitOutcome> {
    const answer = await this.#c.sendSubmit(this.#c.request(job, 'POST', path, { json: body }));
    if (answer.kind === 'settled') return answer.outcome;
    const envelope = readEnvelope(answer.response.status, parseJson(answer.response.body));
    if (envelope.code !== 200) return { kind: 'failed', error: envelopeError(envelope, 'suno', 'submit') };
    if (!envelope.data) return { kind: 'failed', error: protocolError('kie answered without data', answer.response.status) };
    const upstreamId = stringAt(envelope.data, 'taskId');
    return { kind: 'completed', ...(upstreamId ? { upstreamId } : {}), result: { files: [], output: output(envelope.data) } };
  }

  async poll(job: MediaJob, upstreamId: string): Promise<PollOutcome> {
    const api = apiOf(job);
    let path = RECORD_INFO_PATH;
    let suno: SunoAsyncCall | undefined;
    if (api === 'veo') path = VEO_RECORD_PATH;
    if (api === 'suno') {
      const call = sunoCall(job);
      if (call.kind !== 'async') return { kind: 'failed', error: protocolError(`kie Suno action ${String(job.input.action)} has no task to poll`) };
      suno = call;
      path = call.recordPath;
    }
    const fourK = api === 'veo' ? fourKTaskId(upstreamId) : undefined;
    const recordId = fourK ?? upstreamId;
    const answer = await this.#c.sendPoll(this.#c.request(job, 'GET', `${path}?taskId=${encodeURIComponent(recordId)}`));
    if (answer.kind === 'settled') return answer.outcome;
    const envelope = readEnvelope(answer.response.status, parseJson(answer.response.body));
    if (envelope.code !== 200) {
      // kie's envelope code, not the HTTP status, says whether to look again (430, 455: busy).
      if (isTransientStatus(envelope.code) || envelope.code === 430 || envelope.code === 455) return this.#c.retryLater();
      return { kind: 'failed', error: envelopeError(envelope, api === 'suno' ? 'suno' : 'market', 'poll') };
    }
    const record = envelope.data;
    if (!record) return this.#c.pending();
    if (suno) return this.#sunoOutcome(suno, record);
    if (fourK !== undefined) return this.#fourKOutcome(job, record);
    if (api === 'veo') return this.#veoOutcome(job, upstreamId, record);
    return this.#marketOutcome(job, record);
  }

  #marketOutcome(job: MediaJob, record: Record<string, unknown>): PollOutcome {
    const state = stringAt(record, 'state') ?? 'waiting';
    if (state === 'fail') return { kind: 'failed', error: taskFailure(stringAt(record, 'failCode') || undefined, stringAt(record, 'failMsg') || undefined, 'market') };
    if (state !== 'success') return this.#c.pending();
    const result = parseJson(Buffer.from(stringAt(record, 'resultJson') ?? ''));
    const urls = isRecord(result) && Array.isArray(result.resultUrls) ? result.resultUrls.filter((u): u is string => typeof u === 'string') : [];
    if (urls.length === 0) return { kind: 'failed', error: protocolError('kie reported success without resultUrls') };
    const files: UpstreamFile[] = urls.map((url) => urlFile(url, job.outputSpec));
    return { kind: 'completed', result: { files, output: null } };
  }

  async #veoOutcome(job: MediaJob, upstreamId: string, record: Record<string, unknown>): Promise<PollOutcome> {
    const flag = stringAt(record, 'successFlag') ?? '0';
    if (flag === '2' || flag === '3') {
      return { kind: 'failed', error: taskFailure(stringAt(record, 'errorCode') || undefined, stringAt(record, 'errorMessage') || undefined, 'market') };
    }
    if (flag !== '1') return this.#c.pending();
    const upgrade = upgradeNeeded(job.input, record);
    if (upgrade) return this.#veoUpgrade(job, upstreamId, upgrade);
    const response = recordAt(record, 'response');
    const urls = response && Array.isArray(response.resultUrls) ? response.resultUrls.filter((u): u is string => typeof u === 'string') : [];
    if (urls.length === 0) return { kind: 'failed', error: protocolError('kie Veo reported success without resultUrls') };
    return { kind: 'completed', result: { files: urls.map((url) => urlFile(url, job.outputSpec)), output: null } };
  }

  /**
   * The record came back below the resolution that was charged: ask kie's upgrade call. 1080p is a GET,
   * asked at each poll until it answers with the file. 4K is a POST that starts a paid upgrade job: it
   * is sent once; the poll then follows the upgrade's record (`4k:<taskId>` as the upstream id, the id
   * kie's answer names), never POSTing again.
   */
  async #veoUpgrade(job: MediaJob, upstreamId: string, tier: '1080p' | '4k'): Promise<PollOutcome> {
    const request =
      tier === '1080p'
        ? this.#c.request(job, 'GET', `${VEO_1080P_PATH}?taskId=${encodeURIComponent(upstreamId)}&index=0`)
        : this.#c.request(job, 'POST', VEO_4K_PATH, { json: { taskId: upstreamId, index: 0, callBackUrl: job.callbackUrl } });
    // No answer: asked again at the next poll (a repeat of a 4K POST that did arrive answers "4k is processing").
    const answer = await this.#c.sendPoll(request);
    if (answer.kind === 'settled') return answer.outcome;
    const envelope = readEnvelope(answer.response.status, parseJson(answer.response.body));
    const data = envelope.data;
    const urls = tier === '1080p' ? [stringAt(data, 'resultUrl')] : Array.isArray(data?.resultUrls) ? data.resultUrls : [];
    const files = urls.filter((u): u is string => typeof u === 'string' && u !== '');
    if (files.length > 0) return { kind: 'completed', result: { files: files.map((url) => urlFile(url, job.outputSpec)), output: null } };
    // Our key or balance refused: the reserve route may serve the request.
    if (envelope.code === 401 || envelope.code === 402) return { kind: 'failed', error: envelopeError(envelope, 'market', `${tier} upgrade`) };
    if (tier === '4k' && (envelope.code === 200 || envelope.code === 422)) {
      // Started (or already running, "4k is processing"): from now on the upgrade's record is polled.
      return { kind: 'pending', pollAfterMs: this.#c.pollMs, upstreamId: fourKMarker(stringAt(data, 'taskId') ?? upstreamId) };
    }
    return this.#c.pending();
  }

  /** The 4K upgrade's record: done when it reports 4k with files; a failed upgrade fails the attempt (retryable). */
  #fourKOutcome(job: MediaJob, record: Record<string, unknown>): PollOutcome {
    const flag = stringAt(record, 'successFlag') ?? '0';
    if (flag === '2' || flag === '3') {
      return { kind: 'failed', error: taskFailure(stringAt(record, 'errorCode') || undefined, stringAt(record, 'errorMessage') || 'the 4K upgrade failed', 'market') };
    }
    const response = recordAt(record, 'response');
    const urls = response && Array.isArray(response.resultUrls) ? response.resultUrls.filter((u): u is string => typeof u === 'string') : [];
    const resolution = (stringAt(response, 'resolution') ?? '').toLowerCase();
    if (flag !== '1' || resolution !== '4k' || urls.length === 0) return this.#c.pending();
    return { kind: 'completed', result: { files: urls.map((url) => urlFile(url, job.outputSpec)), output: null } };
  }

  #sunoOutcome(call: SunoAsyncCall, record: Record<string, unknown>): PollOutcome {
    const { state, word } = sunoState(record);
    if (state === 'pending') return this.#c.pending();
    if (state === 'failed') {
      return { kind: 'failed', error: taskFailure(stringAt(record, 'errorCode') || undefined, stringAt(record, 'errorMessage') || undefined, 'suno', word) };
    }
    const result = sunoResult(call.result, record);
    if (typeof result === 'string') return { kind: 'failed', error: protocolError(`kie Suno: ${result}`) };
    return { kind: 'completed', result };
  }

  /**
   * Whether kie's task `upstreamId` is the one this attempt submitted: its record's `param` (the
   * request as kie received it) must carry our callback URL, unique per attempt (kie-record-match.ts).
   * A task kie does not know is not ours.
   */
  async ownsJob(job: MediaJob, upstreamId: string): Promise<JobOwnership> {
    const asked = this.#asyncRequest(job);
    if (!asked) return 'unknown';
    const exchange = await this.#c.http.send(this.#c.request(job, 'GET', `${asked.recordPath}?taskId=${encodeURIComponent(upstreamId)}`));
    if (exchange.kind === 'no-response') return 'unknown';
    const envelope = readEnvelope(exchange.response.status, parseJson(exchange.response.body));
    if (envelope.code === 404) return 'foreign';
    if (envelope.code !== 200 || !envelope.data) return 'unknown';
    return kieRecordOwnership(envelope.data, asked.body);
  }

  /** The body an asynchronous submit of this job sends, and where its record is read; undefined for synchronous or refused calls. */
  #asyncRequest(job: MediaJob): { body: Record<string, unknown>; recordPath: string } | undefined {
    const api = apiOf(job);
    if (api === 'veo') return { body: veoRequest(job), recordPath: VEO_RECORD_PATH };
    if (api === 'suno') {
      const call = sunoCall(job);
      return call.kind === 'async' ? { body: call.body, recordPath: call.recordPath } : undefined;
    }
    if (kieJobRefusal(job)) return undefined;
    const { model, input } = kieJobRequest(job);
    return { body: { model, input, callBackUrl: job.callbackUrl }, recordPath: RECORD_INFO_PATH };
  }

  /** kie cannot look a task up by anything of ours; its callback (which names the task) may still come. */
  async reconcile(_job: MediaJob): Promise<ReconcileOutcome> {
    return { kind: 'unknowable' };
  }

  parseCallback(request: { headers: Record<string, string | undefined>; rawBody: Buffer }): CallbackNotice | undefined {
    const body = parseJson(request.rawBody);
    const data = recordAt(body, 'data');
    const taskId = stringAt(data, 'taskId') ?? stringAt(data, 'task_id') ?? stringAt(body, 'taskId');
    if (!taskId) return undefined;
    if (this.#hmacKey !== undefined && !this.#verify(taskId, lowerHeaders(request.headers))) return undefined;
    return { upstreamId: taskId };
  }

  #verify(taskId: string, headers: Record<string, string | undefined>): boolean {
    const timestamp = headers['x-webhook-timestamp'];
    const signature = headers['x-webhook-signature'];
    if (!timestamp || !signature || !/^\d{1,12}$/u.test(timestamp)) return false;
    if (Math.abs(Date.now() / 1000 - Number(timestamp)) > CALLBACK_TOLERANCE_S) return false;
    const expected = createHmac('sha256', this.#hmacKey ?? '')
      .update(`${taskId}.${timestamp}`)
      .digest();
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  close(): Promise<void> {
    return this.#c.close();
  }
}

export const createKieProvider: MediaProviderFactory = (options) => new KieProvider(options);

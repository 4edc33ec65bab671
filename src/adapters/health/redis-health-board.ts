/**
 * The health board shared through Redis (scale-out mode, issue 32 item 3): a key refused or cooling in
 * one process is skipped by every process. Routing reads the board on every request, so neither a read
 * nor a report waits on Redis: both use this process's mirror, and Redis catches up behind them.
 *
 * How the mirror stays right:
 * - Each subject's record is a hash in Redis. A report is an operation (failed, succeeded, disable…)
 *   applied at once to the mirror and queued; a Lua script applies the queued operations to the hash
 *   atomically, so failures from several processes all count and the cooling is computed from the
 *   count Redis holds, by the same rule (`coolingMs`) the mirror uses.
 * - The mirror is what Redis last said plus the operations not yet acknowledged. Replies come back in
 *   the order the commands went out on the one connection, so a read never undoes a report in flight;
 *   a report made while Redis is away stays queued (bounded per subject) and goes out when it is back.
 * - A write is announced on the event bus; other boards read that subject again. Every `refreshMs`
 *   every subject is reloaded, so a lost message costs one period.
 *
 * Redis is a helper, never a dependency (see `BoundedRedis`): no offline queue, one command time-out at
 * most, skipped for a while after a failure; meanwhile each process keeps its own records.
 *
 * Records expire `ttlMs` (a day) after their last write, except while disabled: a disabled subject
 * stays disabled until someone enables it, however long that is (so a removed key that was disabled
 * leaves its small hash behind until enabled).
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { coolingMs } from '../../domain/upstreams/cooldown.ts';
import { blankHealthEntry, type HealthEntry as Entry, healthStateOf, refusalReason } from '../../domain/upstreams/health-entry.ts';
import type { EventBus } from '../../ports/event-bus.port.ts';
import type { UpstreamFailure, UpstreamHealthBoard, UpstreamHealthRecord, UpstreamState } from '../../ports/upstream-health.port.ts';
import { RedisEventBus } from '../bus/redis-event-bus.ts';
import { BoundedRedis, type BoundedRedisOptions } from '../resilience/bounded-redis.ts';

/** Announces that a subject's record changed in Redis; the payload is `{subject, from}`. */
export const UPSTREAM_HEALTH_TOPIC = 'upstream-health.changed';

const FIELDS = ['failures', 'coolingUntil', 'disabledReason', 'lastError', 'lastErrorAt', 'lastSuccessAt'] as const;

/**
 * Applies a list of operations to one subject's hash. KEYS: the hash, the set of subjects (scored by
 * the last write, +inf while disabled so pruning never drops them); ARGV: subject, now, ttl, ops
 * (JSON). An operation that needs a record (success, enable) on none does nothing. Returns {0} when
 * there is no record, else {1, the six fields} (nil for null). Must match `apply` below.
 */
const APPLY_SCRIPT = `local F = {'failures', 'coolingUntil', 'disabledReason', 'lastError', 'lastErrorAt', 'lastSuccessAt'}
local v = redis.call('HMGET', KEYS[1], unpack(F))
local exists = v[1] ~= false
local failures = tonumber(v[1]) or 0
local coolingUntil = tonumber(v[2])
local disabledReason = v[3] or nil
local lastError = v[4] or nil
local lastErrorAt = tonumber(v[5])
local lastSuccessAt = tonumber(v[6])
for _, op in ipairs(cjson.decode(ARGV[4])) do
  local t = op.t
  if t == 'failed' or t == 'refused' then
    exists = true
    failures = failures + 1
    lastError = op.message
    lastErrorAt = op.at
    if t == 'refused' then
      if disabledReason == nil then disabledReason = op.reason end
    else
      local c = op.coolings
      coolingUntil = math.max(coolingUntil or 0, op.at + c[math.min(failures, #c)])
    end
  elseif t == 'disable' then
    exists = true
    disabledReason = op.reason
    if lastErrorAt == nil then lastErrorAt = op.at end
  elseif exists then
    if t == 'succeeded' then
      failures = 0
      coolingUntil = nil
      lastSuccessAt = op.at
    elseif t == 'seen' then
      if lastSuccessAt == nil or op.at > lastSuccessAt then lastSuccessAt = op.at end
    elseif t == 'enable' then
      failures = 0
      coolingUntil = nil
      disabledReason = nil
    end
  end
end
if not exists then return {0} end
local function num(x) if x == nil then return false end return string.format('%.0f', x) end
local out = {num(failures), num(coolingUntil), disabledReason or false, lastError or false, num(lastErrorAt), num(lastSuccessAt)}
local args = {}
for i = 1, 6 do if out[i] then args[#args + 1] = F[i]; args[#args + 1] = out[i] end end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(args))
if disabledReason ~= nil then
  redis.call('ZADD', KEYS[2], '+inf', ARGV[1])
else
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
end
return {1, out[1], out[2], out[3], out[4], out[5], out[6]}`;

/**
 * Every record at once, as one consistent view: drops the names not written within the TTL (their
 * hashes expired too) and names whose hash is gone, then returns {subject, six fields}… KEYS: the set
 * of subjects; ARGV: the hash key prefix, the oldest last-write time kept.
 */
const LOAD_SCRIPT = `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[2])
local out = {}
for _, name in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local v = redis.call('HMGET', ARGV[1] .. name, 'failures', 'coolingUntil', 'disabledReason', 'lastError', 'lastErrorAt', 'lastSuccessAt')
  if v[1] then
    out[#out + 1] = name
    for i = 1, 6 do out[#out + 1] = v[i] end
  else
    redis.call('ZREM', KEYS[1], name)
  end
end
return out`;

/** Unacknowledged operations kept per subject while Redis is away; beyond it the oldest minor ones go. */
const MAX_PENDING = 64;
/**
 * A success that changes nothing but `lastSuccessAt` (the common case on a known subject) is shared
 * at most this often and announced to nobody: it is for the operator's view, and a write per request
 * per process would cost more than the field is worth.
 */
const QUIET_SUCCESS_SHARE_MS = 60_000;
/** `coolingMs` is constant from this failure on (its doubling stops at 20, its value at 5 minutes). */
const SCHEDULE_LENGTH = 32;


/** A report as it travels to Redis (JSON for the script); `seen` is a success that healed nothing. */
type Op =
  | { t: 'succeeded'; at: number }
  | { t: 'seen'; at: number }
  | { t: 'failed'; at: number; message: string; coolings: number[] }
  | { t: 'refused'; at: number; message: string; reason: string }
  | { t: 'disable'; at: number; reason: string }
  | { t: 'enable' };

interface Subject {
  /** What Redis last said (undefined: no record). */
  base: Entry | undefined;
  /** The order number of the command that brought `base`: an older reply is not applied over it. */
  baseSeq: number;
  /** Operations not acknowledged by Redis, oldest first; the first `sending` are in flight. */
  pending: Op[];
  sending: number;
  round: Promise<void> | undefined;
  /** `base` with `pending` applied: what this process answers. */
  mirror: Entry | undefined;
  /** When a write of this subject last landed (for the quiet successes). */
  sharedAt: number;
}

/** A connection shared with the gateway's other helpers: its BoundedRedis and its event bus. */
export interface SharedRedisConnection {
  redis: BoundedRedis;
  bus: EventBus;
}

export interface RedisHealthBoardOptions extends BoundedRedisOptions {
  /** Prepended to every key, and to the bus's channels when the board opens its own bus (the deployment's SWITCHBOARD_REDIS_PREFIX). */
  prefix?: string;
  /** Every subject is reloaded this often, so a lost message costs one period (default 5 s). */
  refreshMs?: number;
  /** A record not written for this long goes (default a day); a disabled one does not expire. */
  ttlMs?: number;
  /** `start()` waits this long at most for Redis (default 1 s). */
  startWaitMs?: number;
  logger?: Logger;
}

export class RedisHealthBoard implements UpstreamHealthBoard {
  readonly #redis: BoundedRedis;
  readonly #bus: EventBus;
  readonly #ownBus: boolean;
  readonly #keyPrefix: string;
  readonly #subjectsKey: string;
  readonly #refreshMs: number;
  readonly #ttlMs: number;
  readonly #startWaitMs: number;
  readonly #logger: Logger | undefined;
  readonly #now: () => number;
  /** Tells this board's own announcements apart from the others'. */
  readonly #instance = randomBytes(6).toString('hex');
  readonly #subjects = new Map<string, Subject>();
  /** Subjects being read again after a message → whether another message came meanwhile. */
  readonly #reading = new Map<string, boolean>();
  /** Order numbers of the commands sent, to apply replies newest-wins. */
  #seq = 0;
  #loading: Promise<void> | undefined;
  #ticking = false;
  #timer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => Promise<void>) | undefined;
  #started = false;
  #closed = false;
  #degraded = false;

  /**
   * `connection`: a Redis URL, for a connection and an event bus of the board's own; or the
   * gateway's `BoundedRedis` and `EventBus`, shared (the BoundedRedis is ended by the last helper to
   * release it; the shared bus is left open).
   */
  constructor(connection: string | SharedRedisConnection, options: RedisHealthBoardOptions = {}) {
    const prefix = options.prefix ?? 'switchboard:';
    this.#keyPrefix = `${prefix}health:subject:`;
    this.#subjectsKey = `${prefix}health:subjects`;
    this.#refreshMs = options.refreshMs ?? 5_000;
    this.#ttlMs = options.ttlMs ?? 24 * 60 * 60_000;
    this.#startWaitMs = options.startWaitMs ?? 1_000;
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
    if (typeof connection === 'string') {
      this.#redis = new BoundedRedis(connection, options).share();
      this.#bus = new RedisEventBus(connection, { prefix, logger: options.logger });
      this.#ownBus = true;
    } else {
      this.#redis = connection.redis.share();
      this.#bus = connection.bus;
      this.#ownBus = false;
    }
  }

  /** True while reports stay in this process because Redis failed recently or is not connected. */
  get degraded(): boolean {
    return this.#redis.skipped;
  }

  state(subject: string, now: number = Date.now()): UpstreamState {
    const entry = this.#subjects.get(subject)?.mirror;
    return entry ? healthStateOf(entry, now) : 'healthy';
  }

  record(subject: string, now: number = Date.now()): UpstreamHealthRecord | undefined {
    const entry = this.#subjects.get(subject)?.mirror;
    return entry ? { subject, state: healthStateOf(entry, now), ...entry } : undefined;
  }

  records(prefix: string, now: number = Date.now()): UpstreamHealthRecord[] {
    const out: UpstreamHealthRecord[] = [];
    for (const [subject, { mirror }] of this.#subjects) if (mirror && subject.startsWith(prefix)) out.push({ subject, state: healthStateOf(mirror, now), ...mirror });
    return out;
  }

  succeeded(subject: string, now: number = Date.now()): void {
    const known = this.#subjects.get(subject);
    // Nothing recorded is the common case: a healthy call costs one lookup and no command.
    if (!known?.mirror) return;
    if (known.mirror.failures === 0 && known.mirror.coolingUntil === null) {
      this.#report(known, { t: 'seen', at: now });
      return;
    }
    this.#report(known, { t: 'succeeded', at: now });
    void this.#flush(subject, known);
  }

  failed(subject: string, failure: UpstreamFailure, now: number = Date.now()): void {
    const op: Op =
      failure.kind === 'auth' || failure.kind === 'quota'
        ? { t: 'refused', at: now, message: failure.message, reason: refusalReason(failure) }
        : { t: 'failed', at: now, message: failure.message, coolings: coolingSchedule(failure) };
    const known = this.#subject(subject);
    this.#report(known, op);
    void this.#flush(subject, known);
  }

  /** Resolves once Redis has it, or at once (within a command time-out) when Redis is away: it is shared when Redis is back. */
  async disable(subject: string, reason: string, now: number = Date.now()): Promise<void> {
    await this.#settle(subject, { t: 'disable', at: now, reason });
  }

  /** As `disable`; sent even when this mirror knows nothing of the subject, since another process may have disabled it. */
  async enable(subject: string): Promise<void> {
    await this.#settle(subject, { t: 'enable' });
  }

  async start(): Promise<void> {
    if (this.#started || this.#closed) return;
    this.#started = true;
    const until = Date.now() + this.#startWaitMs;
    // Subscribed before loading, so nothing written between the two is missed. The bus resolves
    // after a short wait when Redis is away (its port promises it).
    this.#unsubscribe = await this.#bus.subscribe(UPSTREAM_HEALTH_TOPIC, (payload) => this.#heard(payload));
    await this.#redis.connected(Math.max(0, until - Date.now()));
    if (!this.#redis.skipped) {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, until - Date.now()));
      });
      await Promise.race([this.#loadAll(), waited]);
      clearTimeout(timer);
    }
    if (this.#closed) return;
    this.#timer = setInterval(() => void this.#tick(), this.#refreshMs);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    const unsubscribe = this.#unsubscribe;
    this.#unsubscribe = undefined;
    await unsubscribe?.().catch(() => {});
    // One bounded attempt at what is still unshared: a disable should not end with the process.
    const unshared = [...this.#subjects].filter(([, known]) => known.pending.length > known.sending);
    await Promise.all(unshared.map(([subject, known]) => this.#flush(subject, known)));
    if (this.#ownBus) await this.#bus.close();
    this.#redis.release();
  }

  #subject(name: string): Subject {
    let known = this.#subjects.get(name);
    if (!known) {
      known = { base: undefined, baseSeq: 0, pending: [], sending: 0, round: undefined, mirror: undefined, sharedAt: 0 };
      this.#subjects.set(name, known);
    }
    return known;
  }

  /** The mirror takes the report at once; Redis gets it with the subject's next write. */
  #report(known: Subject, op: Op): void {
    known.mirror = apply(known.mirror, op);
    const last = known.pending.at(-1);
    if (op.t === 'seen' && last?.t === 'seen' && known.pending.length > known.sending) {
      last.at = Math.max(last.at, op.at);
      return;
    }
    known.pending.push(op);
    if (known.pending.length - known.sending > MAX_PENDING) {
      // A long outage: drop the oldest unsent report that neither disables nor enables (the mirror
      // keeps its effect; Redis will count one failure fewer), so what the operator did survives.
      let drop = known.pending.findIndex((queued, i) => i >= known.sending && (queued.t === 'failed' || queued.t === 'succeeded' || queued.t === 'seen'));
      if (drop < 0) drop = known.sending;
      known.pending.splice(drop, 1);
    }
  }

  /** For the operator's calls: waits for the round carrying `op` (at most two rounds, each bounded). */
  async #settle(subject: string, op: Op): Promise<void> {
    const known = this.#subject(subject);
    this.#report(known, op);
    if (this.#closed) return;
    await this.#flush(subject, known);
    // The round found in flight did not carry `op`; the one it started on landing does.
    if (known.pending.includes(op)) await this.#flush(subject, known);
  }

  /**
   * Sends the subject's pending operations in one script call, one call in flight per subject. A call
   * that failed or timed out leaves them pending: they are sent again, so if a timed-out call did land
   * its failures count twice (a longer cooling), which is better than a disable lost.
   */
  #flush(subject: string, known: Subject): Promise<void> {
    if (known.round) return known.round;
    if (known.pending.length === 0 || this.#redis.skipped) return Promise.resolve();
    const ops = known.pending.slice();
    known.sending = ops.length;
    const seq = ++this.#seq;
    const sent = this.#redis.client.eval(APPLY_SCRIPT, 2, this.#keyPrefix + subject, this.#subjectsKey, subject, String(this.#now()), String(this.#ttlMs), JSON.stringify(ops));
    known.round = (async () => {
      let entry: Entry | undefined;
      try {
        entry = appliedEntry(await sent);
      } catch (error) {
        known.round = undefined;
        known.sending = 0;
        this.#failed(error);
        return;
      }
      known.round = undefined;
      known.pending.splice(0, known.sending);
      known.sending = 0;
      known.sharedAt = this.#now();
      this.#setBase(subject, known, entry, seq);
      this.#recovered();
      if (ops.some((op) => op.t !== 'seen')) {
        await this.#bus.publish(UPSTREAM_HEALTH_TOPIC, JSON.stringify({ subject, from: this.#instance })).catch(() => {});
        // Reports made meanwhile go at once; quiet successes wait for the refresh.
        if (!this.#closed && known.pending.some((op) => op.t !== 'seen')) void this.#flush(subject, known);
      }
    })();
    return known.round;
  }

  #setBase(name: string, known: Subject, entry: Entry | undefined, seq: number): void {
    if (seq > known.baseSeq) {
      known.base = entry;
      known.baseSeq = seq;
    }
    known.mirror = fold(known.base, known.pending);
    if (!known.mirror && known.pending.length === 0 && !known.round) this.#subjects.delete(name);
  }

  /** A record read from Redis: a subject this process did not know joins the mirror. */
  #loaded(name: string, entry: Entry | undefined, seq: number): void {
    const known = this.#subjects.get(name);
    if (known) this.#setBase(name, known, entry, seq);
    else if (entry) this.#setBase(name, this.#subject(name), entry, seq);
  }

  #heard(payload: string): void {
    if (this.#closed) return;
    let message: unknown;
    try {
      message = JSON.parse(payload);
    } catch {
      return;
    }
    if (typeof message !== 'object' || message === null) return;
    const { subject, from } = message as { subject?: unknown; from?: unknown };
    if (typeof subject === 'string' && from !== this.#instance) this.#reread(subject);
  }

  /** One read in flight per subject; messages arriving meanwhile cause one more. */
  #reread(name: string): void {
    if (this.#closed || this.#redis.skipped) return;
    if (this.#reading.has(name)) {
      this.#reading.set(name, true);
      return;
    }
    this.#reading.set(name, false);
    const seq = ++this.#seq;
    this.#redis.client
      .hmget(this.#keyPrefix + name, ...FIELDS)
      .then(
        (values) => {
          this.#recovered();
          this.#loaded(name, entryOf(values), seq);
        },
        (error: unknown) => this.#failed(error),
      )
      .finally(() => {
        const again = this.#reading.get(name) === true;
        this.#reading.delete(name);
        if (again) this.#reread(name);
      });
  }

  /** Writes what is pending (sent first, so the load sees it), then reloads everything. */
  async #tick(): Promise<void> {
    if (this.#ticking || this.#closed || this.#redis.skipped) return;
    this.#ticking = true;
    try {
      const now = this.#now();
      for (const [subject, known] of this.#subjects) {
        if (known.round || known.pending.length === 0) continue;
        if (known.pending.some((op) => op.t !== 'seen') || now - known.sharedAt >= QUIET_SUCCESS_SHARE_MS) void this.#flush(subject, known);
      }
      await this.#loadAll();
    } finally {
      this.#ticking = false;
    }
  }

  #loadAll(): Promise<void> {
    this.#loading ??= this.#load().finally(() => {
      this.#loading = undefined;
    });
    return this.#loading;
  }

  async #load(): Promise<void> {
    const seq = ++this.#seq;
    let rows: Map<string, Entry>;
    try {
      rows = loadedEntries(await this.#redis.client.eval(LOAD_SCRIPT, 1, this.#subjectsKey, this.#keyPrefix, String(this.#now() - this.#ttlMs)));
    } catch (error) {
      this.#failed(error);
      return;
    }
    this.#recovered();
    for (const [name, entry] of rows) this.#loaded(name, entry, seq);
    // Gone from Redis (expired): forgotten here too, unless something of this process is pending.
    for (const [name, known] of [...this.#subjects]) if (!rows.has(name)) this.#setBase(name, known, undefined, seq);
  }

  #failed(error: unknown): void {
    this.#redis.failed();
    if (this.#degraded) return;
    this.#degraded = true;
    this.#logger?.warn({ err: error }, 'upstream health: Redis is not answering; each process keeps its own health records until it is back');
  }

  #recovered(): void {
    if (!this.#degraded) return;
    this.#degraded = false;
    this.#logger?.info('upstream health: Redis answers again; health is shared across processes');
  }
}


/** `coolingMs` for the 1st, 2nd… failure in a row, so the script can apply it to the count Redis holds. */
function coolingSchedule(failure: UpstreamFailure): number[] {
  const out: number[] = [];
  for (let failures = 1; failures <= SCHEDULE_LENGTH; failures++) out.push(coolingMs(failures, failure));
  while (out.length > 1 && out.at(-1) === out.at(-2)) out.pop();
  return out;
}

/** One operation on a record, as the script applies it (mutates `entry`). */
function apply(entry: Entry | undefined, op: Op): Entry | undefined {
  switch (op.t) {
    case 'failed':
    case 'refused': {
      const e = entry ?? blankHealthEntry();
      e.failures++;
      e.lastError = op.message;
      e.lastErrorAt = op.at;
      if (op.t === 'refused') e.disabledReason ??= op.reason;
      else e.coolingUntil = Math.max(e.coolingUntil ?? 0, op.at + (op.coolings[Math.min(e.failures, op.coolings.length) - 1] ?? 0));
      return e;
    }
    case 'disable': {
      const e = entry ?? blankHealthEntry();
      e.disabledReason = op.reason;
      e.lastErrorAt ??= op.at;
      return e;
    }
    case 'succeeded':
      if (entry) {
        entry.failures = 0;
        entry.coolingUntil = null;
        entry.lastSuccessAt = op.at;
      }
      return entry;
    case 'seen':
      if (entry && (entry.lastSuccessAt === null || op.at > entry.lastSuccessAt)) entry.lastSuccessAt = op.at;
      return entry;
    case 'enable':
      if (entry) {
        entry.failures = 0;
        entry.coolingUntil = null;
        entry.disabledReason = null;
      }
      return entry;
  }
}

function fold(base: Entry | undefined, ops: readonly Op[]): Entry | undefined {
  let entry = base ? { ...base } : undefined;
  for (const op of ops) entry = apply(entry, op);
  return entry;
}



/** The six fields in `FIELDS` order; undefined when there is no record. */
function entryOf(values: readonly unknown[]): Entry | undefined {
  const [failures, coolingUntil, disabledReason, lastError, lastErrorAt, lastSuccessAt] = values;
  if (typeof failures !== 'string') return undefined;
  return {
    failures: numberOf(failures) ?? 0,
    coolingUntil: numberOf(coolingUntil),
    disabledReason: typeof disabledReason === 'string' ? disabledReason : null,
    lastError: typeof lastError === 'string' ? lastError : null,
    lastErrorAt: numberOf(lastErrorAt),
    lastSuccessAt: numberOf(lastSuccessAt),
  };
}

function numberOf(value: unknown): number | null {
  if (typeof value !== 'string' || value === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

function appliedEntry(reply: unknown): Entry | undefined {
  if (!Array.isArray(reply) || (reply[0] !== 0 && reply[0] !== 1)) throw new Error('unexpected reply from the health script');
  return reply[0] === 1 ? entryOf(reply.slice(1)) : undefined;
}

function loadedEntries(reply: unknown): Map<string, Entry> {
  if (!Array.isArray(reply) || reply.length % 7 !== 0) throw new Error('unexpected reply from the health load script');
  const out = new Map<string, Entry>();
  for (let i = 0; i < reply.length; i += 7) {
    const name: unknown = reply[i];
    const entry = entryOf(reply.slice(i + 1, i + 7));
    if (typeof name === 'string' && entry) out.set(name, entry);
  }
  return out;
}

import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { TEST_DATABASE_URL } from '../services.ts';
import { type GatewayProcess, type SharedStores, spawnGateway } from '../processes.ts';

export type FleetRole = 'api' | 'worker';

/** The last bytes of a stream, as lines. */
class Tail {
  #chunks: Buffer[] = [];
  #bytes = 0;
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#bytes += chunk.length;
    while (this.#bytes > this.#limit && this.#chunks.length > 1) this.#bytes -= this.#chunks.shift()?.length ?? 0;
  }

  lines(): string[] {
    return Buffer.concat(this.#chunks)
      .toString('utf8')
      .split('\n')
      .filter((l) => l.trim() !== '');
  }
}

const cut = (line: string, max = 300) => (line.length > max ? `${line.slice(0, max)}…` : line);

/**
 * What a process wrote, kept for failure messages: stderr (where a crash's stack goes) and the
 * JSON log lines of stdout. A crash of an unhandled 'error' event prints the whole emitter after the
 * stack, so `excerpt` shows the lines from the error's first line, not merely the last ones.
 */
export class ProcessOutput {
  readonly #stderr = new Tail(256_000);
  readonly #stdout = new Tail(64_000);

  readonly stderr = (chunk: Buffer): void => this.#stderr.push(chunk);
  readonly stdout = (chunk: Buffer): void => this.#stdout.push(chunk);

  excerpt(): string {
    const err = this.#stderr.lines().slice(-600);
    const first = err.findIndex((l) => /\b(Error|Unhandled|Uncaught|throw)\b/.test(l));
    const crash = first < 0 ? err.slice(-12) : [...err.slice(Math.max(0, first - 3), first + 14), ...(err.length > first + 14 ? ['…', ...err.slice(-1)] : [])];
    // pino's numeric levels: 50 error, 60 fatal.
    const errors = this.#stdout
      .lines()
      .filter((l) => /"level":(50|60)/.test(l))
      .slice(-3);
    return [
      ...(crash.length > 0 ? ['stderr:', ...crash.map((l) => cut(l))] : ['stderr: (empty)']),
      ...(errors.length > 0 ? ['last error logs:', ...errors.map((l) => cut(l))] : []),
    ].join('\n');
  }
}

/** One process of a fleet slot (a slot is restarted as a new incarnation). */
export interface Incarnation {
  name: string;
  role: FleetRole;
  slot: number;
  pid: number;
  url: string;
  startedAt: number;
  process: GatewayProcess;
  output: ProcessOutput;
  /** Set when the harness itself stops or kills it (a planned fault, or the end of the run). */
  planned: boolean;
  exit?: { at: number; code: number | null; signal: string | null };
}

/** A process that exited without the harness asking it to. */
export interface UnplannedDeath {
  name: string;
  pid: number;
  at: number;
  phase: string;
  code: number | null;
  signal: string | null;
  output: string;
}

export interface FleetOptions {
  apis: number;
  workers: number;
  /** The environment every process gets on top of the stores' (PUBLIC_BASE_URL of the front, say). */
  env?: Record<string, string>;
  /** The name of what the run is doing now, recorded with each death. */
  phase: () => string;
  /** Start a replacement when a process dies unplanned (a supervisor), so the run can go on. */
  supervise?: boolean;
}

/**
 * API and worker processes on shared stores, each with its output captured and its own PostgreSQL
 * `application_name` (`<prefix>_<name>_<n>`), so that the run can terminate exactly its connections and
 * never another test's. Deaths the harness did not cause are recorded with the output tail and, when
 * supervising, the slot is restarted (the run goes on and reports the death at the end).
 */
export class ChaosFleet {
  readonly deaths: UnplannedDeath[] = [];
  /** Every incarnation ever started, in order. */
  readonly history: Incarnation[] = [];
  readonly applicationPrefix = `sbchaos_${randomBytes(4).toString('hex')}`;
  readonly #stores: SharedStores;
  readonly #options: FleetOptions;
  readonly #slots = new Map<string, Incarnation>();
  #generation = 0;
  #stopping = false;
  readonly #respawning = new Set<Promise<void>>();

  constructor(stores: SharedStores, options: FleetOptions) {
    this.#stores = stores;
    this.#options = options;
  }

  async start(): Promise<void> {
    const names: Array<[FleetRole, number]> = [];
    for (let i = 0; i < this.#options.apis; i++) names.push(['api', i]);
    for (let i = 0; i < this.#options.workers; i++) names.push(['worker', i]);
    const started = await Promise.allSettled(names.map(([role, slot]) => this.#spawn(role, slot)));
    const failed = started.find((outcome) => outcome.status === 'rejected');
    if (failed) {
      // The ones that did start are stopped here: a caller whose start threw does not own a fleet to stop.
      await this.stop();
      throw failed.reason;
    }
  }

  current(role: FleetRole, slot: number): Incarnation {
    const found = this.#slots.get(`${role}-${slot}`);
    if (!found) throw new Error(`no ${role}-${slot} in the fleet`);
    return found;
  }

  members(): Incarnation[] {
    return [...this.#slots.values()];
  }

  apiUrl(slot: number): string {
    return this.current('api', slot).url;
  }

  /** URLs of the API processes that are running now. */
  liveApiUrls(): string[] {
    return this.members()
      .filter((m) => m.role === 'api' && m.exit === undefined)
      .map((m) => m.url);
  }

  /** SIGKILL (no shutdown hooks, no lease release), then a replacement; resolves once it serves. */
  async killAndReplace(role: FleetRole, slot: number): Promise<{ killed: Incarnation; replacement: Incarnation }> {
    const killed = this.current(role, slot);
    killed.planned = true;
    await killed.process.kill();
    const replacement = await this.#spawn(role, slot);
    return { killed, replacement };
  }

  /**
   * A planned restart, as a deploy rolls one: SIGTERM (the process drains and exits by itself), then
   * a replacement; resolves once it serves. `drainMs` is from the signal to the exit.
   */
  async restartGracefully(role: FleetRole, slot: number): Promise<{ stopped: Incarnation; replacement: Incarnation; drainMs: number }> {
    const stopped = this.current(role, slot);
    stopped.planned = true;
    const signalledAt = Date.now();
    await stopped.process.stop();
    const drainMs = (stopped.exit?.at ?? Date.now()) - signalledAt;
    const replacement = await this.#spawn(role, slot);
    return { stopped, replacement, drainMs };
  }

  pause(role: FleetRole, slot: number): Incarnation {
    const target = this.current(role, slot);
    target.process.child.kill('SIGSTOP');
    return target;
  }

  resume(target: Incarnation): void {
    target.process.child.kill('SIGCONT');
  }

  /**
   * pg_terminate_backend on every connection of this fleet's processes (what a PostgreSQL restart,
   * a failover or an idle-connection reaper does to them); returns how many were terminated.
   */
  async terminateDatabaseConnections(): Promise<number> {
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      const result = await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE application_name LIKE $1 AND pid <> pg_backend_pid() AND pg_terminate_backend(pid)`,
        [`${this.applicationPrefix}\\_%`],
      );
      return result.rowCount ?? 0;
    } finally {
      await admin.end();
    }
  }

  /** Waits for replacements in progress (a supervisor restart) to serve. */
  async settled(): Promise<void> {
    while (this.#respawning.size > 0) await Promise.all([...this.#respawning]);
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    await Promise.allSettled([...this.#respawning]);
    await Promise.all(
      this.members().map(async (m) => {
        m.planned = true;
        // A paused process cannot act on SIGTERM.
        m.process.child.kill('SIGCONT');
        await Promise.race([m.process.stop(), new Promise((r) => setTimeout(r, 10_000))]);
        await m.process.kill();
      }),
    );
  }

  async #spawn(role: FleetRole, slot: number): Promise<Incarnation> {
    this.#generation += 1;
    const name = `${role}-${slot}`;
    const output = new ProcessOutput();
    const databaseUrl = new URL(this.#stores.env.DATABASE_URL ?? '');
    databaseUrl.searchParams.set('application_name', `${this.applicationPrefix}_${role}${slot}_${this.#generation}`);
    let gateway: GatewayProcess;
    try {
      gateway = await spawnGateway(this.#stores, role, { ...this.#options.env, DATABASE_URL: databaseUrl.toString() }, { stdout: output.stdout, stderr: output.stderr });
    } catch (error) {
      throw new Error(`${name} did not start: ${(error as Error).message}\n${output.excerpt()}`);
    }
    const incarnation: Incarnation = { name, role, slot, pid: gateway.child.pid ?? -1, url: gateway.url, startedAt: Date.now(), process: gateway, output, planned: false };
    this.#slots.set(name, incarnation);
    this.history.push(incarnation);
    gateway.child.once('exit', (code, signal) => {
      incarnation.exit = { at: Date.now(), code, signal };
      if (incarnation.planned || this.#stopping) return;
      this.deaths.push({ name, pid: incarnation.pid, at: incarnation.exit.at, phase: this.#options.phase(), code, signal, output: output.excerpt() });
      if (this.#options.supervise && this.#slots.get(name) === incarnation) {
        const respawn = this.#spawn(role, slot).then(
          () => undefined,
          (error: unknown) => {
            this.deaths.push({ name, pid: -1, at: Date.now(), phase: this.#options.phase(), code: null, signal: null, output: `restart failed: ${(error as Error).message}` });
          },
        );
        this.#respawning.add(respawn);
        void respawn.finally(() => this.#respawning.delete(respawn));
      }
    });
    return incarnation;
  }
}

import type { CreateRecord, Outcome } from './load.ts';
import type { ChaosRun } from './scenario.ts';
import { TERMINAL_RUN, TERMINAL_TASK, type StoredTask } from './store-state.ts';

/**
 * The judgements of a chaos run. Each check returns the list of what broke, one line per finding,
 * naming the fault phase, the marker or task, and the process; an empty list means the property held.
 */

const is5xx = (o: Outcome) => typeof o === 'number' && o >= 500;
const isOk = (o: Outcome) => typeof o === 'number' && o >= 200 && o < 300;
const ago = (run: ChaosRun, at: number) => `${((at - run.startedAt) / 1000).toFixed(1)} s`;

/** The phase the run was in at `at`. */
function phaseAt(run: ChaosRun, at: number): string {
  return run.phases.filter((p) => p.at <= at).at(-1)?.name ?? 'setup';
}

function describeCreate(run: ChaosRun, r: CreateRecord): string {
  const answeredIn = phaseAt(run, r.endedAt);
  const when = answeredIn === r.phase ? `during '${r.phase}'` : `sent during '${r.phase}', answered during '${answeredIn}'`;
  return `${r.marker} [${r.kind}]${r.idempotencyKey ? ' (Idempotency-Key)' : ''} to ${r.api} pid ${r.pid} ${when} at ${ago(run, r.startedAt)}+${r.endedAt - r.startedAt} ms → ${r.outcome}${r.detail ? ` ${r.detail}` : ''}`;
}

function tasksByMarker(run: ChaosRun): Map<string, StoredTask[]> {
  const out = new Map<string, StoredTask[]>();
  for (const t of run.store.tasks) if (t.marker) out.set(t.marker, [...(out.get(t.marker) ?? []), t]);
  return out;
}

function createsByMarker(run: ChaosRun): Map<string, CreateRecord[]> {
  const out = new Map<string, CreateRecord[]>();
  for (const r of run.load.creates) out.set(r.marker, [...(out.get(r.marker) ?? []), r]);
  return out;
}

/** Did process `pid` exit (planned or not) between `from` and `to`? */
function exitedBetween(run: ChaosRun, pid: number, from: number, to: number): boolean {
  return run.fleet.history.some((i) => i.pid === pid && i.exit !== undefined && i.exit.at >= from - 1000 && i.exit.at <= to + 1000);
}

/** Faults were injected as planned, and load ran during each of them. */
export function checkFaults(run: ChaosRun): string[] {
  const problems: string[] = [];
  const planned = ['sigkill-api', 'sigkill-worker', 'redis-outage', 'pg-terminate', 'sigstop-worker'];
  for (const name of planned) {
    const f = run.faults.find((x) => x.name === name);
    if (!f) problems.push(`fault ${name} did not run`);
    else if (!f.injected) problems.push(`fault ${name} was not injected as planned: ${f.evidence}`);
    if (!run.load.creates.some((c) => c.phase === name)) problems.push(`no create was sent during fault ${name}`);
  }
  if (!run.load.chats.some((c) => c.outcome === 200)) problems.push('no chat stream was served at all');
  if (!run.load.agents.some((a) => a.runId)) problems.push('no agent run was started at all');
  return problems;
}

/** No process died unplanned, and at the end every one runs and the API processes answer /healthz and /readyz 200. */
export function checkProcessesUp(run: ChaosRun): string[] {
  const problems: string[] = [];
  for (const d of run.fleet.deaths) {
    const how = d.signal ? `signal ${d.signal}` : `exit code ${d.code}`;
    problems.push(`${d.name} pid ${d.pid} died unplanned during '${d.phase}' at ${ago(run, d.at)} (${new Date(d.at).toISOString()}, ${how}); its last output:\n${indent(d.output)}`);
  }
  for (const p of run.probes) {
    if (!p.alive) problems.push(`${p.name} pid ${p.pid} is not running at the end`);
    if (p.healthz !== undefined && p.healthz !== 200) problems.push(`${p.name} pid ${p.pid}: /healthz answered ${p.healthz} at the end`);
    if (p.readyz !== undefined && p.readyz !== 200) problems.push(`${p.name} pid ${p.pid}: /readyz answered ${p.readyz} at the end ${p.readyzBody ?? ''}`);
  }
  for (const f of run.faults) {
    if (f.readyAt === undefined) problems.push(`after fault ${f.name}, the API processes did not all answer /readyz 200 within 20 s`);
  }
  return problems;
}

/** Every task, run and webhook delivery ended, and every accepted create and run exists. */
export function checkAllEnded(run: ChaosRun): string[] {
  const problems: string[] = [];
  const byMarker = createsByMarker(run);
  if (!run.quiesced) problems.push(`not quiet ${((run.quiescedAt - run.loadStoppedAt) / 1000).toFixed(0)} s after the load stopped:`);
  for (const t of run.store.tasks) {
    if (TERMINAL_TASK.has(t.status)) continue;
    const first = t.marker ? byMarker.get(t.marker)?.[0] : undefined;
    const origin = first ? `${t.marker} [${first.kind}] created during '${first.phase}'` : `agent run ${t.agentRunId}`;
    problems.push(`task ${t.id} (${origin}) is still ${t.status}; attempts ${t.attempts.join(', ') || 'none'}`);
  }
  const agentByMessage = new Map(run.load.agents.map((a) => [a.clientMessageId, a]));
  const messageToClient = new Map([...run.store.agentMessages].map(([client, id]) => [id, client]));
  for (const r of run.store.runs) {
    if (TERMINAL_RUN.has(r.status)) continue;
    const sent = agentByMessage.get(messageToClient.get(r.messageId) ?? '');
    problems.push(`agent run ${r.id}${sent ? ` (started during '${sent.phase}')` : ''} is still ${r.status}${r.waitReason ? ` (${r.waitReason})` : ''}`);
  }
  for (const d of run.store.deliveries) {
    if (d.status !== 'pending') continue;
    const next = d.nextAttemptAt === null ? 'now' : `${((d.nextAttemptAt - run.quiescedAt) / 1000).toFixed(0)} s after the deadline`;
    problems.push(`webhook delivery ${d.messageId} of task ${d.taskId} is still pending after ${d.attempts} attempts (${d.lastError ?? 'no error'}); next attempt ${next}`);
  }
  const taskIds = new Set(run.store.tasks.map((t) => t.id));
  for (const c of run.load.creates) {
    if (isOk(c.outcome) && (!c.taskId || !taskIds.has(c.taskId))) problems.push(`lost task: ${describeCreate(run, c)} with taskId ${c.taskId}, which is not in the store`);
  }
  const runIds = new Set(run.store.runs.map((r) => r.id));
  for (const a of run.load.agents) {
    if (isOk(a.outcome) && (!a.runId || !runIds.has(a.runId))) problems.push(`lost run: message ${a.clientMessageId} got ${a.outcome} with runId ${a.runId}, which is not in the store`);
  }
  return problems;
}

/** Each API-created task was debited once; each failed one refunded exactly once, in full; no finished one refunded. */
export function checkRefunds(run: ChaosRun): string[] {
  const problems: string[] = [];
  const entries = new Map<string, Array<{ kind: string; amountMicro: number }>>();
  for (const e of run.store.ledger) entries.set(e.reference, [...(entries.get(e.reference) ?? []), e]);
  for (const t of run.store.tasks) {
    if (t.agentRunId !== null) continue;
    const mine = entries.get(t.id) ?? [];
    const debits = mine.filter((e) => e.kind === 'generation_debit');
    const refunds = mine.filter((e) => e.kind === 'generation_refund');
    const label = `task ${t.id} (${t.marker ?? '?'}, ${t.status}, cost ${t.costMicro} µUSD)`;
    if (debits.length !== 1 || debits[0]?.amountMicro !== -t.costMicro) problems.push(`${label}: debits ${JSON.stringify(debits.map((d) => d.amountMicro))}, expected exactly one of ${-t.costMicro}`);
    if (t.status === 'failed') {
      if (refunds.length !== 1 || refunds[0]?.amountMicro !== t.costMicro || t.refundedMicro !== t.costMicro) {
        problems.push(`${label}: failed (${t.errorMessage}) with refunds ${JSON.stringify(refunds.map((r) => r.amountMicro))} and refunded_micro ${t.refundedMicro}, expected exactly one refund of ${t.costMicro}`);
      }
    } else if (refunds.length > 0) {
      problems.push(`${label}: refunded ${JSON.stringify(refunds.map((r) => r.amountMicro))} although it is ${t.status}`);
    }
  }
  for (const [marker, tasks] of tasksByMarker(run)) {
    if (tasks.length > 1) problems.push(`${marker} made ${tasks.length} tasks (${tasks.map((t) => t.id).join(', ')}); each create or Idempotency-Key must make at most one`);
  }
  return problems;
}

/**
 * A 5xx means nothing was charged. Without an Idempotency-Key each post has its own marker, so a 5xx
 * with a task for its marker is a 5xx after the commit. With a key, the duplicate posts share one
 * marker: a task is accounted for when any of them got a 2xx; otherwise a 5xx with a task is one.
 * Agent message posts: a 5xx whose clientMessageId was stored.
 */
export function checkNo5xxAfterCommit(run: ChaosRun): string[] {
  const problems: string[] = [];
  const tasks = tasksByMarker(run);
  const perPhase = new Map<string, { all: number; committed: number }>();
  for (const [marker, posts] of createsByMarker(run)) {
    const failed = posts.filter((p) => is5xx(p.outcome));
    for (const p of failed) {
      const phase = phaseAt(run, p.endedAt);
      const counts = perPhase.get(phase) ?? { all: 0, committed: 0 };
      counts.all += 1;
      perPhase.set(phase, counts);
    }
    const made = tasks.get(marker) ?? [];
    if (failed.length === 0 || made.length === 0 || posts.some((p) => isOk(p.outcome))) continue;
    for (const p of failed) {
      const counts = perPhase.get(phaseAt(run, p.endedAt));
      if (counts) counts.committed += 1;
      problems.push(`${describeCreate(run, p)}, but task ${made.map((t) => `${t.id} (${t.status})`).join(', ')} was created and debited ${made[0]?.costMicro} µUSD`);
    }
  }
  for (const a of run.load.agents) {
    if (is5xx(a.outcome) && run.store.agentMessages.has(a.clientMessageId)) {
      problems.push(`agent message ${a.clientMessageId} to ${a.api} during '${a.phase}' answered ${a.outcome} ${a.detail ?? ''}, but the message was stored (and its run started)`);
    }
  }
  if (problems.length > 0) {
    const summary = [...perPhase].map(([phase, c]) => `${phase}: ${c.committed} of ${c.all} 5xx after commit`).join('; ');
    problems.unshift(`5xx answers to creates by the phase they were answered in: ${summary}`);
  }
  return problems;
}

/**
 * Every ended task with a webhook URL has a delivery the receiver accepted, and no webhook-id was
 * accepted twice, except around a worker's death, a SIGSTOP or the database cut (at-least-once: the
 * receiver had answered, the gateway could not record it, and the job was taken over when its lease
 * ran out). "Around" is a lease plus a second before the first acceptance to a second after the last:
 * the receiver's clock is the test process's event loop, which runs late on a loaded machine.
 */
export function checkWebhooks(run: ChaosRun): string[] {
  const problems: string[] = [];
  const accepted = run.receiver.accepted();
  const byTask = new Map<string, number>();
  for (const a of accepted) if (a.taskId) byTask.set(a.taskId, (byTask.get(a.taskId) ?? 0) + 1);
  const deliveries = new Map(run.store.deliveries.map((d) => [d.taskId, d]));
  for (const t of run.store.tasks) {
    if (!t.webhookUrl || !TERMINAL_TASK.has(t.status)) continue;
    if ((byTask.get(t.id) ?? 0) > 0) continue;
    const d = deliveries.get(t.id);
    const row = d ? `delivery ${d.messageId} is ${d.status} after ${d.attempts} attempts (${d.lastError ?? 'no error'})` : 'no delivery row';
    problems.push(`lost webhook: task ${t.id} (${t.marker ?? '?'}) is ${t.status} and the receiver accepted nothing for it; ${row}`);
  }
  const byId = new Map<string, number[]>();
  for (const a of accepted) byId.set(a.webhookId, [...(byId.get(a.webhookId) ?? []), a.at]);
  const disruptions = [
    ...run.fleet.deaths.filter((d) => d.name.startsWith('worker')).map((d) => d.at),
    ...run.faults.filter((f) => f.name === 'sigkill-worker' || f.name === 'pg-terminate' || f.name === 'sigstop-worker').map((f) => f.injectedAt),
  ];
  const before = run.profile.leaseMs + 1000;
  for (const [id, times] of byId) {
    if (times.length < 2) continue;
    const first = Math.min(...times);
    const last = Math.max(...times);
    if (disruptions.some((at) => at >= first - before && at <= last + 1000)) continue;
    problems.push(`webhook-id ${id} was accepted ${times.length} times (at ${times.map((t) => ago(run, t)).join(', ')}) with no worker death, SIGSTOP or database cut around them`);
  }
  return problems;
}

export function checkLedger(run: ChaosRun): string[] {
  return run.ledgerMismatches.map((m) => `ledger verify: ${JSON.stringify(m)}`);
}

/**
 * Streams end with [DONE] or an explicit error event, never cleanly cut; a stream cut without either
 * is explained only by the death of the process serving it; no chat hold is left except those of
 * requests whose process died (released by the crash job after 5 minutes).
 */
export function checkChatStreams(run: ChaosRun): string[] {
  const problems: string[] = [];
  let cutByDeath = 0;
  for (const c of run.load.chats) {
    if (c.end === 'ended_without_done') problems.push(`chat ${c.id} on ${c.api} during '${c.phase}' ended without [DONE] and without an error event`);
    if (c.outcome === 'network' || c.outcome === 'timeout') {
      if (exitedBetween(run, c.pid, c.startedAt, c.endedAt)) cutByDeath += 1;
      else problems.push(`chat ${c.id} on ${c.api} pid ${c.pid} during '${c.phase}': ${c.outcome} (${c.detail}) while the process lived`);
    }
  }
  if (run.store.chatHolds > cutByDeath) problems.push(`${run.store.chatHolds} chat holds are left at the end; only ${cutByDeath} streams were cut by a process death`);
  return problems;
}

/** An assertion message: the first `max` findings, and how many more. */
export function report(title: string, problems: string[], max = 12): string {
  const shown = problems.slice(0, max).map((p) => `- ${p}`);
  const more = problems.length > max ? [`… and ${problems.length - max} more`] : [];
  return [`${title}: ${problems.length} finding(s)`, ...shown, ...more].join('\n');
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
}

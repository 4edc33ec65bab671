/**
 * The trace a job's span joins (issue 22, item 3), on SQLite and PostgreSQL with a real work queue and
 * worker pool: a job enqueued inside a request continues the request's trace; a job saved with no
 * trace context (a scheduled sweep, a job from before tracing was on) starts a trace of its own, even
 * when the worker happens to claim it from inside some other span's async context.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { pino } from 'pino';
import { MemoryEventBus } from '../../src/adapters/bus/memory-event-bus.ts';
import { DbWorkQueue } from '../../src/adapters/queue/db-work-queue.ts';
import { OtelTracer } from '../../src/adapters/tracing/otel-tracer.ts';
import { WorkerPool } from '../../src/workers/worker-pool.ts';
import { describeEachDatabase } from '../support/databases.ts';

const quiet = pino({ level: 'silent' });

describeEachDatabase('job trace context', (t) => {
  test('a job continues the trace saved with it, and a job saved without one starts its own', async () => {
    const exporter = new InMemorySpanExporter();
    const tracer = new OtelTracer({ exporter, serviceName: 'switchboard-test', recordContent: false, role: 'all' });
    const kind = 'traced_job';
    const queue = new DbWorkQueue(t.handle, new MemoryEventBus(), tracer);
    // Saved outside any span: no trace context in its row.
    await t.handle.db.transaction().execute((tx) => queue.enqueue(tx, { kind, refId: 'scheduled', queue: kind, runAt: 0 }));
    const unsaved = await t.handle.db.selectFrom('jobs').select('trace_context').where('ref_id', '=', 'scheduled').executeTakeFirstOrThrow();
    assert.equal(unsaved.trace_context, null);

    const ran = new Set<string>();
    const pool = new WorkerPool(
      queue,
      {
        [kind]: async (job) => {
          ran.add(job.refId);
          return { kind: 'done' };
        },
      },
      { owner: 'worker_traced', leaseMs: 60_000, concurrency: 2, queueConcurrency: () => 2, queues: [kind], logger: quiet, tracer },
    );
    const request = tracer.startSpan('POST /somewhere', {}, { kind: 'server' });
    try {
      // The pool starts, claims and runs inside the request's async context, the way a wake-up
      // published by a request's commit reaches an in-process worker.
      await tracer.withSpan(request, async () => {
        await t.handle.db.transaction().execute((tx) => queue.enqueue(tx, { kind, refId: 'requested', queue: kind, runAt: 0 }));
        await pool.start();
      });
      request.end();
      const deadline = Date.now() + 10_000;
      while (ran.size < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await pool.stop();
    }
    // Read before the tracer's shutdown, which empties the in-memory exporter.
    const spans = exporter.getFinishedSpans();
    await tracer.shutdown();
    const named = (ref: string): ReadableSpan => {
      const span = spans.find((s) => s.name === `job ${kind}` && s.attributes['switchboard.job.ref'] === ref);
      assert.ok(span, `a job span for ${ref} among ${spans.map((s) => s.name).join(', ')}`);
      return span;
    };
    const requestSpan = spans.find((s) => s.name === 'POST /somewhere');
    assert.ok(requestSpan);
    const requested = named('requested');
    assert.equal(requested.spanContext().traceId, requestSpan.spanContext().traceId);
    assert.equal(requested.parentSpanContext?.spanId, requestSpan.spanContext().spanId);
    const scheduled = named('scheduled');
    assert.notEqual(scheduled.spanContext().traceId, requestSpan.spanContext().traceId, 'not attached to whatever span was active');
    assert.equal(scheduled.parentSpanContext, undefined, 'a root span');
  });
});

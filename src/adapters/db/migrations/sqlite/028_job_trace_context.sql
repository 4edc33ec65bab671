-- Tracing (issue 22, item 3): the trace context (W3C traceparent) of the request that enqueued a job,
-- so the worker that runs it continues the same trace. Null when tracing was off.
ALTER TABLE jobs ADD COLUMN trace_context text;

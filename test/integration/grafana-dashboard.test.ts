import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { describeEachMode } from '../support/gateway.ts';

// Issue 22, item 5: the dashboard in the repository names only metrics the gateway exposes.

interface Panel {
  id: number;
  title: string;
  targets: Array<{ expr: string }>;
}

const dashboard = JSON.parse(readFileSync(new URL('../../ops/grafana/switchboard.json', import.meta.url), 'utf8')) as {
  uid: string;
  panels: Panel[];
  templating: { list: Array<{ name: string; query: string }> };
};

/** Metric names in PromQL: identifiers starting with switchboard_ (labels and functions never do). */
function metricNames(expr: string): string[] {
  return [...expr.matchAll(/\bswitchboard_[a-z0-9_]+/g)].map((m) => m[0]);
}

test('the dashboard: unique panel ids, every panel has a query, the job variable reads a real metric', () => {
  const ids = dashboard.panels.map((p) => p.id);
  assert.equal(new Set(ids).size, ids.length);
  for (const panel of dashboard.panels) assert.ok(panel.targets.length > 0 && panel.targets.every((t) => metricNames(t.expr).length > 0), panel.title);
  const titles = dashboard.panels.map((p) => p.title.toLowerCase()).join(' | ');
  for (const topic of ['requests per second', 'latency', 'upstream errors', 'queue depth', 'job age', 'ledger holds']) assert.ok(titles.includes(topic), topic);
});

describeEachMode('the Grafana dashboard against /metrics', (ctx) => {
  test('every metric the dashboard names is exposed by the gateway', async () => {
    // Something in every family that only appears once used: a request, a media task, a chat call.
    const { key } = await ctx.gw.createUser(500);
    await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'metrics' } });
    await ctx.gw.api(key, 'POST', '/api/v1/chat/completions', { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }] });
    const text = await (await fetch(`${ctx.gw.url}/metrics`)).text();
    const families = new Map<string, string>();
    for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) families.set(match[1] ?? '', match[2] ?? '');
    const exposed = (name: string): boolean => {
      if (families.has(name)) return true;
      const base = name.replace(/_(bucket|sum|count)$/, '');
      return base !== name && ['histogram', 'summary'].includes(families.get(base) ?? '');
    };
    const named = new Set([...dashboard.panels.flatMap((p) => p.targets.flatMap((t) => metricNames(t.expr))), ...dashboard.templating.list.flatMap((v) => metricNames(v.query))]);
    const missing = [...named].filter((name) => !exposed(name));
    assert.deepEqual(missing, [], `named by the dashboard but not exposed: ${missing.join(', ')}`);
    // The store gauges carry values, not just their help lines.
    assert.match(text, /^switchboard_ledger_holds \d+/m);
    assert.match(text, /^switchboard_queue_jobs\{kind="[a-z_]+"\} \d+/m);
  });
});

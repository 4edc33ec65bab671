/**
 * Services reach the store only through its ports (docs/architecture.md, "The store behind ports"):
 * no file under src/services imports Kysely, writes SQL or imports src/adapters/db. The files still
 * to move are listed here; the list may only shrink (a listed file that no longer needs to be here
 * fails the test too, so the list stays true).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const ROOT = join(import.meta.dirname, '../../..');
const STORE_IMPORT = /from '(kysely|[^']*adapters\/db\/[^']*)'|\bsql`/;

const NOT_YET_MOVED = new Set<string>([
  'src/services/accounts/accounts.service.ts',
  'src/services/accounts/api-key-authenticator.ts',
  'src/services/accounts/api-keys.service.ts',
  'src/services/accounts/credential-revocations.ts',
  'src/services/accounts/demo-user.ts',
  'src/services/accounts/key-door.ts',
  'src/services/agent/agent-maintenance.ts',
  'src/services/agent/agent.module.ts',
  'src/services/agent/attachments/attachments.service.ts',
  'src/services/agent/conversations/context-references.service.ts',
  'src/services/agent/conversations/conversations.service.ts',
  'src/services/agent/conversations/messages.service.ts',
  'src/services/agent/engine/analysis-step.ts',
  'src/services/agent/engine/context-tools.ts',
  'src/services/agent/engine/media-choice.ts',
  'src/services/agent/engine/media-dispatch.ts',
  'src/services/agent/engine/model-step.ts',
  'src/services/agent/engine/orchestrator-call.ts',
  'src/services/agent/engine/proposals.ts',
  'src/services/agent/engine/reconcile.ts',
  'src/services/agent/engine/request-files.ts',
  'src/services/agent/engine/run-budget.ts',
  'src/services/agent/engine/run-engine.ts',
  'src/services/agent/engine/run-give-up.ts',
  'src/services/agent/engine/run-state.ts',
  'src/services/agent/engine/skill-step.ts',
  'src/services/agent/engine/structured-output.ts',
  'src/services/agent/engine/tool-results.ts',
  'src/services/agent/engine/tool-steps.ts',
  'src/services/agent/engine/transcript.ts',
  'src/services/agent/engine/workflow-step.ts',
  'src/services/agent/events/agent-webhook-deliveries.service.ts',
  'src/services/agent/events/agent-webhooks.service.ts',
  'src/services/agent/events/agent-writer.ts',
  'src/services/agent/events/event-hub.ts',
  'src/services/agent/events/event-log.ts',
  'src/services/agent/events/event-records.ts',
  'src/services/agent/projects/projects.service.ts',
  'src/services/agent/runs/run-controls.service.ts',
  'src/services/agent/runs/run-jobs.ts',
  'src/services/agent/runs/run-lifecycle.ts',
  'src/services/agent/runs/run-snapshot.ts',
  'src/services/agent/runs/run-stop.ts',
  'src/services/agent/runs/run-views.service.ts',
  'src/services/agent/settings/agent-settings.service.ts',
  'src/services/agent/settings/route-capabilities.service.ts',
  'src/services/app-services.ts',
  'src/services/auth/auth.service.ts',
  'src/services/auth/emailed-sign-in-links.ts',
  'src/services/billing/account-ledger.service.ts',
  'src/services/billing/billing.module.ts',
  'src/services/billing/redeem-codes.service.ts',
  'src/services/billing/topups.service.ts',
  'src/services/chat/chat-records.ts',
  'src/services/credits.service.ts',
  'src/services/generation/create-generation.service.ts',
  'src/services/generation/media-spans.ts',
  'src/services/generation/retention-sweeper.ts',
  'src/services/generation/task-presenter.ts',
  'src/services/generation/task-runner.ts',
  'src/services/generation/task-status-cache.ts',
  'src/services/generation/task-step-reader.ts',
  'src/services/generation/task-transitions.ts',
  'src/services/ledger.service.ts',
  'src/services/stats/generation-list.service.ts',
  'src/services/stats/stats.service.ts',
  'src/services/stats/usage-export.ts',
  'src/services/storage/project-asset-import.ts',
  'src/services/storage/storage-billing.ts',
  'src/services/storage/storage-files.service.ts',
  'src/services/storage/storage-sources.ts',
  'src/services/storage/storage-subscriptions.service.ts',
  'src/services/storage/storage-views.ts',
  'src/services/storage/storage.module.ts',
  'src/services/upstreams/provider-health.ts',
  'src/services/webhooks/webhook-deliveries.ts',
  'src/services/webhooks/webhook-delivery.handler.ts',
  'src/services/webhooks/webhook-secret.service.ts',
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

test('no service reaches the database but through a store port', () => {
  const offending = sourceFiles(join(ROOT, 'src/services'))
    .filter((path) => STORE_IMPORT.test(readFileSync(path, 'utf8')))
    .map((path) => relative(ROOT, path));
  assert.deepEqual(offending.filter((path) => !NOT_YET_MOVED.has(path)), [], 'these services import the database: give them a store port');
  assert.deepEqual([...NOT_YET_MOVED].filter((path) => !offending.includes(path)), [], 'these files no longer import the database: take them off NOT_YET_MOVED');
});

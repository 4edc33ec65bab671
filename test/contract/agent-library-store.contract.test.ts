/**
 * The agent library store (src/ports/agent-library-store.port.ts) and the views port, on both engines:
 * every compare-and-set moves once and a second move from the state it left changes nothing
 * (conversation versions, context references, settings, projects, attachments, pending actions, a
 * run's steering and limit), the run limit never drops below what is settled and committed, an
 * idempotency key is reserved once, and a destination's secret is shown only where it is today.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KyselyAgentLibraryStore } from '../../src/adapters/db/stores/agent-library-store.ts';
import { KyselyAgentViews } from '../../src/adapters/db/stores/agent-views.ts';
import { kyselyUnitOfWork } from '../../src/adapters/db/stores/kysely-unit-of-work.ts';
import { newId } from '../../src/domain/ids.ts';
import type { AttachmentRow, ConversationRow, ProjectRow } from '../../src/ports/agent-library-store.port.ts';
import type { AgentPendingActionsRow, AgentRunsRow } from '../../src/ports/store-rows/agent.rows.ts';
import type { UnitOfWork } from '../../src/ports/unit-of-work.port.ts';
import { AgentWebhooksService } from '../../src/services/agent/events/agent-webhooks.service.ts';
import { describeEachDatabase } from '../support/databases.ts';

const store = new KyselyAgentLibraryStore();
const views = new KyselyAgentViews();
const NOW = 1_700_000_000_000;

function owner(): { userId: string; storefront: string } {
  return { userId: newId('usr', NOW), storefront: 'default' };
}

function conversation(who: { userId: string; storefront: string }, title: string | null): ConversationRow {
  return {
    id: newId('conv', NOW),
    user_id: who.userId,
    storefront: who.storefront,
    title,
    title_source: title === null ? null : 'user',
    mode: 'auto',
    selected_model_id: null,
    project_id: null,
    profile_id: null,
    default_workflow_id: null,
    settings_json: '{}',
    version: 1,
    event_seq: 0,
    active_run_id: null,
    run_count: 0,
    last_activity_at: NOW,
    created_at: NOW,
    context_json: '[]',
    context_version: 0,
    deleted_at: null,
  };
}

function run(conversationId: string, userId: string, limitMicro: number, settledMicro: number, committedMicro: number): AgentRunsRow {
  return {
    id: newId('run', NOW),
    conversation_id: conversationId,
    user_id: userId,
    storefront: 'default',
    api_key_id: null,
    message_id: newId('msg', NOW),
    run_no: 1,
    status: 'running',
    wait_reason: null,
    version: 1,
    wake_seq: 0,
    mode: 'auto',
    orchestrator_model_id: 'model-a',
    model_attempt: 2,
    selected_model_id: null,
    settings_json: '{}',
    overrides_json: '{}',
    limit_micro: limitMicro,
    settled_micro: settledMicro,
    committed_micro: committedMicro,
    budget_version: 1,
    budget_needed_micro: null,
    steer_json: '[]',
    step_count: 0,
    outcome_json: null,
    revision: 0,
    output_schema_json: null,
    structured_mode: null,
    schema_hash: null,
    structured_json: null,
    structured_result_json: null,
    workflow_json: null,
    context_json: null,
    error_code: null,
    error_message: null,
    stop_requested_at: null,
    created_at: NOW,
    started_at: NOW,
    finished_at: null,
    updated_at: NOW,
  };
}

function attachment(who: { userId: string; storefront: string }, conversationId: string): AttachmentRow {
  return {
    id: newId('att', NOW),
    user_id: who.userId,
    storefront: who.storefront,
    conversation_id: conversationId,
    name: 'fox.png',
    mime: 'image/png',
    size_bytes: 100,
    status: 'pending',
    blob_key: 'agent/upload/fox.png',
    upload_token_hash: 'hash',
    facts_json: null,
    text_excerpt: null,
    sha256: null,
    created_at: NOW,
    upload_expires_at: NOW + 60_000,
    completed_at: null,
    expires_at: null,
  };
}

describeEachDatabase('agent library store', (t) => {
  const uow = (): UnitOfWork => kyselyUnitOfWork(t.handle.db);

  test('a rename is a compare-and-set on the version, and the new title is found by search', async () => {
    const who = owner();
    const row = conversation(who, 'first title');
    await uow().transaction((tx) => store.createConversation(tx, row));
    assert.equal(await uow().transaction((tx) => store.renameConversation(tx, row.id, 1, 'crimson lighthouse', 'user', NOW + 1)), true);
    assert.equal(await uow().transaction((tx) => store.renameConversation(tx, row.id, 1, 'stale rename', 'user', NOW + 2)), false);
    const read = await store.findConversation(uow().direct, who, row.id);
    assert.equal(read?.title, 'crimson lighthouse');
    assert.equal(read?.version, 2);
    const found = await store.listConversations(uow().direct, who, { limit: 10, search: 'crims' });
    assert.deepEqual(found.map((c) => c.id), [row.id]);
    assert.deepEqual(await store.listConversations(uow().direct, who, { limit: 10, search: 'first' }), []);
    // Words with nothing searchable in them match nothing, rather than everything.
    assert.deepEqual(await store.listConversations(uow().direct, who, { limit: 10, search: '!!!' }), []);
  });

  test('another owner reads a conversation as missing; a deleted one is gone, and deleting twice is refused', async () => {
    const who = owner();
    const row = conversation(who, null);
    await uow().transaction((tx) => store.createConversation(tx, row));
    assert.equal(await store.findConversation(uow().direct, owner(), row.id), undefined);
    assert.equal(await uow().transaction((tx) => store.deleteConversation(tx, row.id, NOW + 1)), true);
    assert.equal(await uow().transaction((tx) => store.deleteConversation(tx, row.id, NOW + 2)), false);
    assert.equal(await store.findConversation(uow().direct, who, row.id), undefined);
    assert.equal((await store.findConversationById(uow().direct, row.id))?.deleted_at, NOW + 1);
  });

  test('context references move by version once', async () => {
    const who = owner();
    const row = conversation(who, null);
    await uow().transaction((tx) => store.createConversation(tx, row));
    const refs = JSON.stringify([{ targetType: 'conversation', targetId: 'conv_x' }]);
    assert.equal(await store.setContextReferences(uow().direct, row.id, 0, refs), true);
    assert.equal(await store.setContextReferences(uow().direct, row.id, 0, '[]'), false);
    const read = await store.findConversation(uow().direct, who, row.id);
    assert.equal(read?.context_json, refs);
    assert.equal(read?.context_version, 1);
  });

  test('the active run is claimed once; a client message id is taken once', async () => {
    const who = owner();
    const row = conversation(who, null);
    await uow().transaction((tx) => store.createConversation(tx, row));
    assert.equal(await store.claimActiveRun(uow().direct, row.id, 'run_a'), true);
    assert.equal(await store.claimActiveRun(uow().direct, row.id, 'run_b'), false);
    assert.equal((await store.findConversation(uow().direct, who, row.id))?.active_run_id, 'run_a');
    const message = { id: newId('msg', NOW), conversation_id: row.id, run_id: 'run_a', role: 'user' as const, kind: 'new_run' as const, client_message_id: 'client-1', request_hash: 'h1', response_json: null, content_json: '[]', text: 'hello', created_at: NOW + 5 };
    assert.equal(await uow().transaction((tx) => store.addMessage(tx, message)), true);
    assert.equal(await uow().transaction((tx) => store.addMessage(tx, { ...message, id: newId('msg', NOW), request_hash: 'h2' })), false);
    await store.setMessageResponse(uow().direct, message.id, { runId: 'run_a' });
    const earlier = await store.findMessageByClientId(uow().direct, row.id, 'client-1');
    assert.equal(earlier?.request_hash, 'h1');
    assert.deepEqual(JSON.parse(earlier?.response_json ?? 'null'), { runId: 'run_a' });
    assert.equal((await store.findConversation(uow().direct, who, row.id))?.last_activity_at, NOW + 5);
  });

  test('settings save by version: 0 inserts once, a stale version changes nothing', async () => {
    const who = owner();
    assert.equal(await store.saveSettings(uow().direct, who, 0, '{"a":1}', NOW), 1);
    assert.equal(await store.saveSettings(uow().direct, who, 0, '{"a":2}', NOW), undefined);
    assert.equal(await store.saveSettings(uow().direct, who, 1, '{"a":3}', NOW), 2);
    assert.equal(await store.saveSettings(uow().direct, who, 1, '{"a":4}', NOW), undefined);
    assert.equal((await store.findSettings(uow().direct, who))?.settings_json, '{"a":3}');
  });

  test('a project update writes the next version once; a deleted project is no longer updated', async () => {
    const who = owner();
    const project: ProjectRow = { id: newId('proj', NOW), user_id: who.userId, storefront: who.storefront, name: 'Brand', version: 1, snapshot_json: '{"name":"Brand"}', created_at: NOW, updated_at: NOW, deleted_at: null };
    await uow().transaction((tx) => store.createProject(tx, project));
    assert.equal(await store.countProjects(uow().direct, who), 1);
    assert.equal(await uow().transaction((tx) => store.updateProject(tx, project.id, 1, 'Brand 2', '{"name":"Brand 2"}', NOW + 1)), true);
    assert.equal(await uow().transaction((tx) => store.updateProject(tx, project.id, 1, 'Brand 3', '{"name":"Brand 3"}', NOW + 2)), false);
    const versions = await store.listProjectVersions(uow().direct, project.id, 10, undefined);
    assert.deepEqual(versions.map((v) => [v.version, v.snapshot_json]), [[2, '{"name":"Brand 2"}'], [1, '{"name":"Brand"}']]);
    assert.equal((await store.findProjectVersion(uow().direct, project.id, 1))?.snapshot_json, '{"name":"Brand"}');
    assert.equal(await uow().transaction((tx) => store.deleteProject(tx, project.id, NOW + 3)), true);
    assert.equal(await uow().transaction((tx) => store.deleteProject(tx, project.id, NOW + 4)), false);
    assert.equal(await uow().transaction((tx) => store.updateProject(tx, project.id, 2, 'Brand 4', '{}', NOW + 5)), false);
    assert.equal(await store.findProject(uow().direct, who, project.id), undefined);
  });

  test('an attachment completes once, and expires only from the status that was read', async () => {
    const who = owner();
    const home = conversation(who, null);
    await uow().transaction((tx) => store.createConversation(tx, home));
    const row = attachment(who, home.id);
    await store.createAttachment(uow().direct, row);
    const upload = { blob_key: 'agent/original/fox.png', facts_json: '{"kind":"image"}', text_excerpt: null, sha256: 'abc', completed_at: NOW + 1, expires_at: NOW + 10 };
    assert.equal(await store.completeAttachment(uow().direct, row.id, upload), true);
    assert.equal(await store.completeAttachment(uow().direct, row.id, { ...upload, blob_key: 'other' }), false);
    assert.equal((await store.findAttachment(uow().direct, row.id))?.blob_key, 'agent/original/fox.png');
    // Read as pending, it has completed since: the cleanup's move from pending changes nothing.
    assert.equal(await store.expireAttachment(uow().direct, row.id, 'pending'), false);
    assert.deepEqual((await store.listExpiredAttachments(uow().direct, NOW + 10, 10)).map((a) => a.id), [row.id]);
    assert.equal(await store.expireAttachment(uow().direct, row.id, 'completed'), true);
    assert.equal(await store.expireAttachment(uow().direct, row.id, 'completed'), false);
    assert.equal((await store.findOwnedAttachment(uow().direct, who, row.id))?.status, 'expired');
    assert.equal(await store.findOwnedAttachment(uow().direct, owner(), row.id), undefined);
  });

  test('the run limit changes by budget version and never below what is settled and committed', async () => {
    const r = run('conv_budget', 'usr_budget', 1_000, 300, 200);
    await uow().transaction((tx) => store.createRun(tx, r));
    assert.equal(await store.changeRunLimit(uow().direct, r.id, 1, 499, NOW), undefined);
    const raised = await store.changeRunLimit(uow().direct, r.id, 1, 500, NOW);
    assert.deepEqual(raised, { limitMicro: 500, settledMicro: 300, committedMicro: 200, budgetVersion: 2, version: 2 });
    assert.equal(await store.changeRunLimit(uow().direct, r.id, 1, 5_000, NOW), undefined);
    const read = await views.findRun(uow().direct, r.id);
    assert.equal(read?.limit_micro, 500);
    assert.equal(read?.budget_version, 2);
  });

  test('steering and approved models move by the run version once; a text model starts the chain again', async () => {
    const r = run('conv_steer', 'usr_steer', 1_000, 0, 0);
    await uow().transaction((tx) => store.createRun(tx, r));
    assert.equal(await store.setRunSteering(uow().direct, r.id, 1, '[{"text":"left"}]', NOW + 1), 2);
    assert.equal(await store.setRunSteering(uow().direct, r.id, 1, '[{"text":"right"}]', NOW + 2), undefined);
    assert.equal(await store.setRunOverrides(uow().direct, r.id, 2, '{"image":"img-b"}', false, NOW + 3), 3);
    assert.equal((await views.findRun(uow().direct, r.id))?.model_attempt, 2);
    assert.equal(await store.setRunOverrides(uow().direct, r.id, 3, '{"text":"model-b"}', true, NOW + 4), 4);
    assert.equal(await store.setRunOverrides(uow().direct, r.id, 3, '{"text":"model-c"}', true, NOW + 5), undefined);
    const read = await views.findRun(uow().direct, r.id);
    assert.equal(read?.steer_json, '[{"text":"left"}]');
    assert.equal(read?.overrides_json, '{"text":"model-b"}');
    assert.equal(read?.model_attempt, 0);
  });

  test('a pending action is answered once, by its version', async () => {
    const action: AgentPendingActionsRow = { id: newId('pact', NOW), run_id: 'run_q', step_id: null, kind: 'question', status: 'pending', version: 1, proposal_hash: null, payload_json: '{"question":"which?"}', response_json: null, created_at: NOW, expires_at: null, resolved_at: null };
    await t.handle.db.insertInto('agent_pending_actions').values(action).execute();
    assert.equal(await store.resolvePendingAction(uow().direct, action.id, 2, 'answered', { answer: 'a' }, NOW + 1), false);
    assert.equal(await store.resolvePendingAction(uow().direct, action.id, 1, 'answered', { answer: 'a' }, NOW + 1), true);
    assert.equal(await store.resolvePendingAction(uow().direct, action.id, 1, 'answered', { answer: 'b' }, NOW + 2), false);
    const read = await views.findPendingAction(uow().direct, action.id);
    assert.equal(read?.status, 'answered');
    assert.deepEqual(JSON.parse(read?.response_json ?? 'null'), { answer: 'a' });
  });

  test('an idempotency key is reserved once: the same body replays the first answer, another is refused', async () => {
    const scope = `agent_decision:usr_i:${newId('run', NOW)}`;
    assert.equal(await uow().transaction((tx) => store.reserveIdempotencyKey(tx, scope, 'key-1', 'hash-1', NOW)), undefined);
    await assert.rejects(store.findIdempotentResponse(uow().direct, scope, 'key-1', 'hash-1'), (e: { code?: string }) => e.code === 'idempotency_in_progress');
    await store.storeIdempotentResponse(uow().direct, scope, 'key-1', { decision: 'accepted' });
    assert.deepEqual(await uow().transaction((tx) => store.reserveIdempotencyKey(tx, scope, 'key-1', 'hash-1', NOW + 1)), { decision: 'accepted' });
    assert.deepEqual(await store.findIdempotentResponse(uow().direct, scope, 'key-1', 'hash-1'), { decision: 'accepted' });
    await assert.rejects(store.findIdempotentResponse(uow().direct, scope, 'key-1', 'hash-2'), (e: { code?: string }) => e.code === 'idempotency_key_reused');
    assert.equal(await store.findIdempotentResponse(uow().direct, scope, 'key-2', 'hash-1'), undefined);
  });

  test('a destination shows its secret only when it is created; a revoked one signs nothing and is revoked once', async () => {
    const service = new AgentWebhooksService({ store, uow: uow(), allowPrivateUrls: true });
    const caller = { userId: newId('usr', NOW), keyId: null, storefront: { id: 'default', name: 'd', hosts: [], agentRuns: true } };
    const created = await service.create(caller, { url: 'https://hooks.example.com/agent', eventTypes: ['*'] });
    assert.match(created.secret, /\S{16,}/u);
    const listed = await service.list(caller);
    assert.equal(listed.length, 1);
    assert.equal(JSON.stringify(listed).includes(created.secret), false);
    assert.deepEqual(await service.signingSecrets(listed[0]?.webhookId ?? ''), [created.secret]);
    const other = { userId: newId('usr', NOW), storefront: 'default' };
    assert.equal(await store.revokeAgentWebhook(uow().direct, created.webhookId, other, NOW), false);
    assert.equal(await store.revokeAgentWebhook(uow().direct, created.webhookId, { userId: caller.userId, storefront: 'default' }, NOW), true);
    assert.equal(await store.revokeAgentWebhook(uow().direct, created.webhookId, { userId: caller.userId, storefront: 'default' }, NOW), false);
    assert.deepEqual(await service.signingSecrets(created.webhookId), []);
  });
});

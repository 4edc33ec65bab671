import type { AttachmentStatus } from '../../../domain/agent/attachment-status.ts';
import { searchExpression } from '../../../domain/agent/conversation-search.ts';
import type { PendingActionStatus } from '../../../domain/agent/pending-action-status.ts';
import type {
  AgentLibraryStore,
  AgentWebhookRow,
  AttachmentRow,
  CompletedUpload,
  ConversationListQuery,
  ConversationRow,
  LibraryOwner,
  MessageRow,
  ProjectAssetCursor,
  ProjectCursor,
  ProjectRow,
  RouteCapabilityRow,
  WebhookDeliveryRow,
} from '../../../ports/agent-library-store.port.ts';
import type { AgentRunsRow } from '../../../ports/store-rows/agent.rows.ts';
import type { StoreTransaction } from '../../../ports/store-transaction.port.ts';
import { isPostgres } from '../dialect-of.ts';
import * as deliveries from '../repositories/agent/agent-webhook-deliveries.repository.ts';
import * as webhooks from '../repositories/agent/agent-webhooks.repository.ts';
import * as settings from '../repositories/agent/agent-settings.repository.ts';
import { listConversationArtifacts } from '../repositories/agent/artifacts.repository.ts';
import * as attachments from '../repositories/agent/attachments.repository.ts';
import * as conversations from '../repositories/agent/conversations.repository.ts';
import { deleteEvents, pruneEvents } from '../repositories/agent/events.repository.ts';
import * as idempotency from '../repositories/agent/idempotency.repository.ts';
import * as messages from '../repositories/agent/messages.repository.ts';
import { resolvePendingAction } from '../repositories/agent/pending-actions.repository.ts';
import * as assets from '../repositories/agent/project-assets.repository.ts';
import * as projects from '../repositories/agent/projects.repository.ts';
import * as capabilities from '../repositories/agent/route-capabilities.repository.ts';
import { changeRunLimit, insertRun, updateRunAt } from '../repositories/agent/runs.repository.ts';
import { executorOf } from '../schema.ts';

/** The agent's library over Kysely, for SQLite and PostgreSQL alike: mostly the repositories, with the steps that belong together. */
export class KyselyAgentLibraryStore implements AgentLibraryStore {
  async createConversation(tx: StoreTransaction, row: ConversationRow): Promise<void> {
    const db = executorOf(tx);
    await conversations.insertConversation(db, row);
    if (row.title !== null) await conversations.indexSearchDocument(db, { docId: row.id, conversationId: row.id, body: row.title });
  }

  findConversation(tx: StoreTransaction, owner: LibraryOwner, id: string) {
    return conversations.findConversation(executorOf(tx), owner, id);
  }

  findConversationById(tx: StoreTransaction, id: string) {
    return conversations.findConversationById(executorOf(tx), id);
  }

  async listConversations(tx: StoreTransaction, owner: LibraryOwner, query: ConversationListQuery): Promise<ConversationRow[]> {
    const db = executorOf(tx);
    let search: string | undefined;
    if (query.search !== undefined) {
      search = searchExpression(query.search, isPostgres(db));
      // Nothing searchable in the words: nothing matches.
      if (search === undefined) return [];
    }
    return conversations.listConversations(db, owner, query.limit, query.after, search, query.projectId);
  }

  async renameConversation(tx: StoreTransaction, id: string, expectedVersion: number, title: string, source: 'user' | 'generated', now: number): Promise<boolean> {
    const db = executorOf(tx);
    if (!(await conversations.renameConversation(db, id, expectedVersion, title, source, now))) return false;
    await conversations.indexSearchDocument(db, { docId: id, conversationId: id, body: title });
    return true;
  }

  setContextReferences(tx: StoreTransaction, id: string, expectedVersion: number, contextJson: string) {
    return conversations.setContextReferences(executorOf(tx), id, expectedVersion, contextJson);
  }

  async deleteConversation(tx: StoreTransaction, id: string, now: number): Promise<boolean> {
    const db = executorOf(tx);
    if (!(await conversations.markConversationDeleted(db, id, now))) return false;
    await messages.deleteMessages(db, id);
    await deleteEvents(db, id);
    await conversations.deleteSearchDocuments(db, id);
    return true;
  }

  claimActiveRun(tx: StoreTransaction, conversationId: string, runId: string) {
    return conversations.claimActiveRun(executorOf(tx), conversationId, runId);
  }

  nextRunNumber(tx: StoreTransaction, conversationId: string) {
    return conversations.nextRunNumber(executorOf(tx), conversationId);
  }

  async addMessage(tx: StoreTransaction, row: MessageRow): Promise<boolean> {
    const db = executorOf(tx);
    if (!(await messages.insertMessageOnce(db, row))) return false;
    await conversations.indexSearchDocument(db, { docId: row.id, conversationId: row.conversation_id, body: row.text });
    await conversations.touchConversation(db, row.conversation_id, row.created_at);
    return true;
  }

  findMessageByClientId(tx: StoreTransaction, conversationId: string, clientMessageId: string) {
    return messages.findMessageByClientId(executorOf(tx), conversationId, clientMessageId);
  }

  setMessageResponse(tx: StoreTransaction, id: string, response: unknown) {
    return messages.setMessageResponse(executorOf(tx), id, response);
  }

  listMessages(tx: StoreTransaction, conversationId: string, limit: number, beforeId?: string) {
    return messages.listMessages(executorOf(tx), conversationId, limit, beforeId);
  }

  createRun(tx: StoreTransaction, row: AgentRunsRow) {
    return insertRun(executorOf(tx), row);
  }

  setRunSteering(tx: StoreTransaction, runId: string, version: number, steerJson: string, now: number) {
    return updateRunAt(executorOf(tx), runId, version, { steer_json: steerJson, updated_at: now });
  }

  setRunOverrides(tx: StoreTransaction, runId: string, version: number, overridesJson: string, restartModelChain: boolean, now: number) {
    const changes = restartModelChain ? { overrides_json: overridesJson, model_attempt: 0 } : { overrides_json: overridesJson };
    return updateRunAt(executorOf(tx), runId, version, { ...changes, updated_at: now });
  }

  changeRunLimit(tx: StoreTransaction, runId: string, expectedBudgetVersion: number, limit: number, now: number) {
    return changeRunLimit(executorOf(tx), runId, expectedBudgetVersion, limit, now);
  }

  resolvePendingAction(tx: StoreTransaction, id: string, version: number, status: PendingActionStatus, response: unknown, now: number) {
    return resolvePendingAction(executorOf(tx), id, version, status, response, now);
  }

  createAttachment(tx: StoreTransaction, row: AttachmentRow) {
    return attachments.insertAttachment(executorOf(tx), row);
  }

  findAttachment(tx: StoreTransaction, id: string) {
    return attachments.findAttachment(executorOf(tx), id);
  }

  findOwnedAttachment(tx: StoreTransaction, owner: LibraryOwner, id: string) {
    return attachments.findOwnedAttachment(executorOf(tx), owner, id);
  }

  findOwnedScopedAttachment(tx: StoreTransaction, owner: LibraryOwner, scope: string, id: string) {
    return attachments.findOwnedScopedAttachment(executorOf(tx), owner, scope, id);
  }

  listAttachments(tx: StoreTransaction, conversationId: string, ids: string[]) {
    return attachments.listAttachments(executorOf(tx), conversationId, ids);
  }

  completeAttachment(tx: StoreTransaction, id: string, upload: CompletedUpload) {
    return attachments.markAttachmentCompleted(executorOf(tx), id, upload);
  }

  setAttachmentText(tx: StoreTransaction, id: string, text: string) {
    return attachments.setAttachmentText(executorOf(tx), id, text);
  }

  listExpiredAttachments(tx: StoreTransaction, now: number, limit: number) {
    return attachments.listExpiredAttachments(executorOf(tx), now, limit);
  }

  expireAttachment(tx: StoreTransaction, id: string, from: AttachmentStatus) {
    return attachments.markAttachmentExpired(executorOf(tx), id, from);
  }

  listConversationArtifacts(tx: StoreTransaction, conversationId: string, ids: string[]) {
    return listConversationArtifacts(executorOf(tx), conversationId, ids);
  }

  countProjects(tx: StoreTransaction, owner: LibraryOwner) {
    return projects.countProjects(executorOf(tx), owner);
  }

  createProject(tx: StoreTransaction, row: ProjectRow) {
    return projects.insertProject(executorOf(tx), row);
  }

  findProject(tx: StoreTransaction, owner: LibraryOwner, id: string) {
    return projects.findProject(executorOf(tx), owner, id);
  }

  listProjects(tx: StoreTransaction, owner: LibraryOwner, limit: number, after: ProjectCursor | undefined) {
    return projects.listProjects(executorOf(tx), owner, limit, after);
  }

  updateProject(tx: StoreTransaction, id: string, expectedVersion: number, name: string, snapshotJson: string, now: number) {
    return projects.updateProject(executorOf(tx), id, expectedVersion, name, snapshotJson, now);
  }

  async deleteProject(tx: StoreTransaction, id: string, now: number): Promise<boolean> {
    const db = executorOf(tx);
    if (!(await projects.markProjectDeleted(db, id, now))) return false;
    // Its conversations keep their project id: a destination scoped to it would go on receiving them.
    await webhooks.revokeProjectWebhooks(db, id, now);
    return true;
  }

  listProjectVersions(tx: StoreTransaction, projectId: string, limit: number, beforeVersion: number | undefined) {
    return projects.listProjectVersions(executorOf(tx), projectId, limit, beforeVersion);
  }

  findProjectVersion(tx: StoreTransaction, projectId: string, version: number) {
    return projects.findProjectVersion(executorOf(tx), projectId, version);
  }

  findProjectAsset(tx: StoreTransaction, projectId: string, id: string) {
    return assets.findProjectAsset(executorOf(tx), projectId, id);
  }

  listProjectAssets(tx: StoreTransaction, projectId: string, limit: number, after: ProjectAssetCursor | undefined, role?: string) {
    return assets.listProjectAssets(executorOf(tx), projectId, limit, after, role);
  }

  findSettings(tx: StoreTransaction, owner: LibraryOwner) {
    return settings.findAgentSettings(executorOf(tx), owner.userId, owner.storefront);
  }

  saveSettings(tx: StoreTransaction, owner: LibraryOwner, expectedVersion: number, settingsJson: string, now: number) {
    return settings.saveAgentSettings(executorOf(tx), owner.userId, owner.storefront, expectedVersion, settingsJson, now);
  }

  listRouteCapabilities(tx: StoreTransaction, routes: Array<{ provider: string; model: string }>) {
    return capabilities.listRouteCapabilities(executorOf(tx), routes);
  }

  listStaleRoutes(tx: StoreTransaction, before: number) {
    return capabilities.listStaleRoutes(executorOf(tx), before);
  }

  recordRouteCapability(tx: StoreTransaction, row: RouteCapabilityRow) {
    return capabilities.recordRouteCapability(executorOf(tx), row);
  }

  createAgentWebhook(tx: StoreTransaction, row: AgentWebhookRow) {
    return webhooks.insertAgentWebhook(executorOf(tx), row);
  }

  findAgentWebhook(tx: StoreTransaction, id: string) {
    return webhooks.findAgentWebhook(executorOf(tx), id);
  }

  listAgentWebhooks(tx: StoreTransaction, owner: LibraryOwner) {
    return webhooks.listAgentWebhooks(executorOf(tx), owner.userId, owner.storefront);
  }

  revokeAgentWebhook(tx: StoreTransaction, id: string, owner: LibraryOwner, now: number) {
    return webhooks.revokeAgentWebhook(executorOf(tx), id, owner.userId, owner.storefront, now);
  }

  markAgentWebhookHealthy(tx: StoreTransaction, id: string) {
    return webhooks.markAgentWebhookHealthy(executorOf(tx), id);
  }

  markAgentWebhookFailing(tx: StoreTransaction, id: string, now: number) {
    return webhooks.markAgentWebhookFailing(executorOf(tx), id, now);
  }

  disableAgentWebhook(tx: StoreTransaction, id: string, reason: string, now: number) {
    return webhooks.disableAgentWebhook(executorOf(tx), id, reason, now);
  }

  listDestinationDeliveries(tx: StoreTransaction, destinationId: string, userId: string, limit: number, after: { createdAt: number; id: string } | undefined) {
    return deliveries.listDestinationDeliveries(executorOf(tx), destinationId, userId, limit, after);
  }

  findDestinationDelivery(tx: StoreTransaction, deliveryId: string, destinationId: string, userId: string) {
    return deliveries.findDestinationDelivery(executorOf(tx), deliveryId, destinationId, userId);
  }

  lastAttemptTimes(tx: StoreTransaction, deliveryIds: string[]) {
    return deliveries.lastAttemptTimes(executorOf(tx), deliveryIds);
  }

  addDestinationDelivery(tx: StoreTransaction, row: WebhookDeliveryRow) {
    return deliveries.insertDestinationDelivery(executorOf(tx), row);
  }

  findPendingDestinationDelivery(tx: StoreTransaction, destinationId: string, messageId: string) {
    return deliveries.findPendingDestinationDelivery(executorOf(tx), destinationId, messageId);
  }

  attemptError(tx: StoreTransaction, deliveryId: string, attemptNo: number) {
    return deliveries.attemptError(executorOf(tx), deliveryId, attemptNo);
  }

  bringDeliveryForward(tx: StoreTransaction, pending: WebhookDeliveryRow, now: number) {
    return deliveries.bringDeliveryForward(executorOf(tx), pending, now);
  }

  findIdempotentResponse<T>(tx: StoreTransaction, scope: string, key: string, hash: string) {
    return idempotency.findIdempotentResponse<T>(executorOf(tx), scope, key, hash);
  }

  reserveIdempotencyKey<T>(tx: StoreTransaction, scope: string, key: string, hash: string, now: number) {
    return idempotency.reserveIdempotencyKey<T>(executorOf(tx), scope, key, hash, now);
  }

  storeIdempotentResponse(tx: StoreTransaction, scope: string, key: string, response: unknown) {
    return idempotency.storeIdempotentResponse(executorOf(tx), scope, key, response);
  }

  pruneIdempotencyRecords(tx: StoreTransaction, before: number, now: number, decisionGraceMs: number, limit: number) {
    return idempotency.pruneIdempotencyRecords(executorOf(tx), before, now, decisionGraceMs, limit);
  }

  pruneEvents(tx: StoreTransaction, before: number, limit: number) {
    return pruneEvents(executorOf(tx), before, limit);
  }
}

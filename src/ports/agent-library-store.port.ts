/**
 * The agent's library as its services see it (docs/architecture.md, "The store behind ports"):
 * conversations and their messages, attachments, projects and their assets, the user's settings,
 * the verified capabilities of text routes, lifecycle webhook destinations and idempotency records,
 * and the few run writes a message or a control makes (a new run, its steering, its limit, a
 * pending action's answer). Every method takes the transaction first: the `tx` of `AgentWriter.run`
 * or `UnitOfWork.transaction`, or `UnitOfWork.direct` for a statement on its own.
 *
 * Every change that names a version is a compare-and-set: false (or undefined) when the row had
 * moved on, and then nothing changed.
 */
import type { AttachmentStatus } from '../domain/agent/attachment-status.ts';
import type { PendingActionStatus } from '../domain/agent/pending-action-status.ts';
import type { AgentProjectAssetsRow, AgentProjectsRow, AgentProjectVersionsRow } from './store-rows/agent-projects.rows.ts';
import type {
  AgentArtifactsRow,
  AgentAttachmentsRow,
  AgentConversationsRow,
  AgentMessagesRow,
  AgentRunsRow,
  AgentSettingsRow,
  AgentWebhooksRow,
  ChatRouteCapabilitiesRow,
} from './store-rows/agent.rows.ts';
import type { WebhookDeliveriesRow } from './store-rows/media.rows.ts';
import type { StoreTransaction } from './store-transaction.port.ts';

export type ConversationRow = AgentConversationsRow;
export type MessageRow = AgentMessagesRow;
export type AttachmentRow = AgentAttachmentsRow;
export type ProjectRow = AgentProjectsRow;
export type ProjectVersionRow = AgentProjectVersionsRow;
export type ProjectAssetRow = AgentProjectAssetsRow;
export type AgentWebhookRow = AgentWebhooksRow;
export type RouteCapabilityRow = ChatRouteCapabilitiesRow;
export type WebhookDeliveryRow = WebhookDeliveriesRow;

/** Whose a row is: a user on a storefront. */
export interface LibraryOwner {
  userId: string;
  storefront: string;
}

export interface ConversationCursor {
  lastActivityAt: number;
  id: string;
}

export interface ProjectCursor {
  updatedAt: number;
  id: string;
}

export interface ProjectAssetCursor {
  createdAt: number;
  id: string;
}

/** A run's budget after a change of its limit. */
export interface RunBudgetRow {
  limitMicro: number;
  settledMicro: number;
  committedMicro: number;
  budgetVersion: number;
  version: number;
}

/** What an attachment keeps once its upload is complete. */
export interface CompletedUpload {
  blob_key: string;
  facts_json: string;
  text_excerpt: string | null;
  sha256: string;
  completed_at: number;
  expires_at: number;
}

export interface ConversationListQuery {
  limit: number;
  after?: ConversationCursor;
  /** The user's search words: only conversations whose title or messages match them all (as prefixes). */
  search?: string;
  projectId?: string;
}

export interface AgentLibraryStore {
  // Conversations.
  /** The row and, when it has a title, its search entry. */
  createConversation(tx: StoreTransaction, row: ConversationRow): Promise<void>;
  /** The owner's live conversation (another user's, another storefront's or a deleted one: undefined). */
  findConversation(tx: StoreTransaction, owner: LibraryOwner, id: string): Promise<ConversationRow | undefined>;
  /** Any conversation by id, deleted ones included (the caller checks whose it is). */
  findConversationById(tx: StoreTransaction, id: string): Promise<ConversationRow | undefined>;
  /** Latest activity first. */
  listConversations(tx: StoreTransaction, owner: LibraryOwner, query: ConversationListQuery): Promise<ConversationRow[]>;
  /** Compare-and-set on the conversation's version; the new title is indexed for search. */
  renameConversation(tx: StoreTransaction, id: string, expectedVersion: number, title: string, source: 'user' | 'generated', now: number): Promise<boolean>;
  /** Compare-and-set on the references' version. */
  setContextReferences(tx: StoreTransaction, id: string, expectedVersion: number, contextJson: string): Promise<boolean>;
  /** Marks it deleted and removes its messages, events and search entries. False when it was already deleted. */
  deleteConversation(tx: StoreTransaction, id: string, now: number): Promise<boolean>;
  /** Makes `runId` the conversation's active run when it has none. */
  claimActiveRun(tx: StoreTransaction, conversationId: string, runId: string): Promise<boolean>;
  nextRunNumber(tx: StoreTransaction, conversationId: string): Promise<number>;

  // Messages.
  /** Inserts a user message once per clientMessageId, indexes it and touches the conversation. False when the id was taken. */
  addMessage(tx: StoreTransaction, row: MessageRow): Promise<boolean>;
  findMessageByClientId(tx: StoreTransaction, conversationId: string, clientMessageId: string): Promise<MessageRow | undefined>;
  setMessageResponse(tx: StoreTransaction, id: string, response: unknown): Promise<void>;
  /** Newest `limit` before `beforeId`, oldest first. */
  listMessages(tx: StoreTransaction, conversationId: string, limit: number, beforeId?: string): Promise<MessageRow[]>;

  // The run writes of messages and controls (the run's own moves are the agent store's).
  createRun(tx: StoreTransaction, row: AgentRunsRow): Promise<void>;
  /** Compare-and-set on the run's version; the new version, or undefined. */
  setRunSteering(tx: StoreTransaction, runId: string, version: number, steerJson: string, now: number): Promise<number | undefined>;
  /** Compare-and-set on the run's version: the approved models, and (for a text model) the chain started again. */
  setRunOverrides(tx: StoreTransaction, runId: string, version: number, overridesJson: string, restartModelChain: boolean, now: number): Promise<number | undefined>;
  /** Compare-and-set on the budget's version; refused (undefined) below what is settled and committed. */
  changeRunLimit(tx: StoreTransaction, runId: string, expectedBudgetVersion: number, limit: number, now: number): Promise<RunBudgetRow | undefined>;
  /** Compare-and-set on a pending action's version and status. */
  resolvePendingAction(tx: StoreTransaction, id: string, version: number, status: PendingActionStatus, response: unknown, now: number): Promise<boolean>;

  // Attachments.
  createAttachment(tx: StoreTransaction, row: AttachmentRow): Promise<void>;
  findAttachment(tx: StoreTransaction, id: string): Promise<AttachmentRow | undefined>;
  findOwnedAttachment(tx: StoreTransaction, owner: LibraryOwner, id: string): Promise<AttachmentRow | undefined>;
  /** The owner's attachment held under `scope` (a conversation id, or the playground's). */
  findOwnedScopedAttachment(tx: StoreTransaction, owner: LibraryOwner, scope: string, id: string): Promise<AttachmentRow | undefined>;
  listAttachments(tx: StoreTransaction, conversationId: string, ids: string[]): Promise<AttachmentRow[]>;
  /** Compare-and-set from `pending` to `completed`. */
  completeAttachment(tx: StoreTransaction, id: string, upload: CompletedUpload): Promise<boolean>;
  setAttachmentText(tx: StoreTransaction, id: string, text: string): Promise<void>;
  listExpiredAttachments(tx: StoreTransaction, now: number, limit: number): Promise<AttachmentRow[]>;
  /** Compare-and-set from `from` to `expired`. */
  expireAttachment(tx: StoreTransaction, id: string, from: AttachmentStatus): Promise<boolean>;
  /** The conversation's artifacts among `ids` (an attachment's mask may name one as its original). */
  listConversationArtifacts(tx: StoreTransaction, conversationId: string, ids: string[]): Promise<AgentArtifactsRow[]>;

  // Projects.
  countProjects(tx: StoreTransaction, owner: LibraryOwner): Promise<number>;
  /** The row and its first version. */
  createProject(tx: StoreTransaction, row: ProjectRow): Promise<void>;
  findProject(tx: StoreTransaction, owner: LibraryOwner, id: string): Promise<ProjectRow | undefined>;
  listProjects(tx: StoreTransaction, owner: LibraryOwner, limit: number, after: ProjectCursor | undefined): Promise<ProjectRow[]>;
  /** Compare-and-set on the version; writes the next version row. */
  updateProject(tx: StoreTransaction, id: string, expectedVersion: number, name: string, snapshotJson: string, now: number): Promise<boolean>;
  /** Soft delete; the destinations scoped to the project are revoked with it. False when it was already deleted. */
  deleteProject(tx: StoreTransaction, id: string, now: number): Promise<boolean>;
  /** Newest first, before `beforeVersion`. */
  listProjectVersions(tx: StoreTransaction, projectId: string, limit: number, beforeVersion: number | undefined): Promise<ProjectVersionRow[]>;
  findProjectVersion(tx: StoreTransaction, projectId: string, version: number): Promise<ProjectVersionRow | undefined>;
  findProjectAsset(tx: StoreTransaction, projectId: string, id: string): Promise<ProjectAssetRow | undefined>;
  listProjectAssets(tx: StoreTransaction, projectId: string, limit: number, after: ProjectAssetCursor | undefined, role?: string): Promise<ProjectAssetRow[]>;

  // Settings and verified capabilities.
  findSettings(tx: StoreTransaction, owner: LibraryOwner): Promise<AgentSettingsRow | undefined>;
  /** Compare-and-set: version 0 inserts only when none exists. The new version, or undefined when stale. */
  saveSettings(tx: StoreTransaction, owner: LibraryOwner, expectedVersion: number, settingsJson: string, now: number): Promise<number | undefined>;
  /** What is recorded of these routes. */
  listRouteCapabilities(tx: StoreTransaction, routes: Array<{ provider: string; model: string }>): Promise<RouteCapabilityRow[]>;
  /** The routes with a verdict checked before `before`. */
  listStaleRoutes(tx: StoreTransaction, before: number): Promise<Array<{ provider: string; upstream_model: string }>>;
  /** Records (or replaces) a route's verdict on one capability. */
  recordRouteCapability(tx: StoreTransaction, row: RouteCapabilityRow): Promise<void>;

  // Lifecycle webhook destinations (the secret is read only to sign and to answer its create).
  createAgentWebhook(tx: StoreTransaction, row: AgentWebhookRow): Promise<void>;
  findAgentWebhook(tx: StoreTransaction, id: string): Promise<AgentWebhookRow | undefined>;
  listAgentWebhooks(tx: StoreTransaction, owner: LibraryOwner): Promise<AgentWebhookRow[]>;
  /** False when it is not the owner's or was revoked already. */
  revokeAgentWebhook(tx: StoreTransaction, id: string, owner: LibraryOwner, now: number): Promise<boolean>;
  markAgentWebhookHealthy(tx: StoreTransaction, id: string): Promise<void>;
  /** Starts (or keeps) its failing streak; the row after. */
  markAgentWebhookFailing(tx: StoreTransaction, id: string, now: number): Promise<AgentWebhookRow | undefined>;
  disableAgentWebhook(tx: StoreTransaction, id: string, reason: string, now: number): Promise<void>;

  // The deliveries of a destination (test events, the recent list, redeliveries).
  /** Newest first, after the cursor (the last item of the previous page). */
  listDestinationDeliveries(tx: StoreTransaction, destinationId: string, userId: string, limit: number, after: { createdAt: number; id: string } | undefined): Promise<WebhookDeliveryRow[]>;
  findDestinationDelivery(tx: StoreTransaction, deliveryId: string, destinationId: string, userId: string): Promise<WebhookDeliveryRow | undefined>;
  /** When each delivery's last attempt started. */
  lastAttemptTimes(tx: StoreTransaction, deliveryIds: string[]): Promise<Map<string, number>>;
  /** Adds a delivery, unless its event is already pending for the destination (false: nothing added). */
  addDestinationDelivery(tx: StoreTransaction, row: WebhookDeliveryRow): Promise<boolean>;
  findPendingDestinationDelivery(tx: StoreTransaction, destinationId: string, messageId: string): Promise<WebhookDeliveryRow | undefined>;
  /** What an attempt recorded as its error (null: none; undefined: no such attempt). */
  attemptError(tx: StoreTransaction, deliveryId: string, attemptNo: number): Promise<string | null | undefined>;
  /** Makes a pending delivery due at `now` by compare-and-set on its attempts and due time as read. */
  bringDeliveryForward(tx: StoreTransaction, pending: WebhookDeliveryRow, now: number): Promise<boolean>;

  // Idempotency records and retention.
  /** The first response of (scope, key) for the same request hash; 409 for another hash, or while in progress. */
  findIdempotentResponse<T>(tx: StoreTransaction, scope: string, key: string, hash: string): Promise<T | undefined>;
  /** Reserves (scope, key) in `tx`; when it was taken meanwhile, that request's response. */
  reserveIdempotencyKey<T>(tx: StoreTransaction, scope: string, key: string, hash: string, now: number): Promise<T | undefined>;
  storeIdempotentResponse(tx: StoreTransaction, scope: string, key: string, response: unknown): Promise<void>;
  /** Removes records created before `before` (a decision's once its run ended `decisionGraceMs` ago); how many went. */
  pruneIdempotencyRecords(tx: StoreTransaction, before: number, now: number, decisionGraceMs: number, limit: number): Promise<number>;
  /** Removes up to `limit` events created before `before`; how many went. */
  pruneEvents(tx: StoreTransaction, before: number, limit: number): Promise<number>;
}

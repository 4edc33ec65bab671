/**
 * Names for the API shapes the dashboard reads, all taken from the types generated from the gateway's
 * OpenAPI document (generated/api-types.ts, `npm run gen:web-types`). Nothing here is declared by
 * hand: a shape that is wrong or missing is fixed in the route's response schema, then regenerated.
 */
import type { ApiResponses, components } from './generated/api-types.ts';

/** The `data` of an answer in the `{code, data}` envelope. */
type Data<K extends keyof ApiResponses> = ApiResponses[K] extends { data: infer D } ? D : never;
/** The element type of a list. */
type Item<T> = T extends readonly (infer I)[] ? I : never;

// Accounts and sessions
export type SessionData = Data<'GET /api/v1/auth/session'>;
/** A user as the admin API creates it (balance in cents). */
export type User = ApiResponses['POST /admin/v1/users'];
/** A page of the admin list of users, each with its role. */
export type UserPage = ApiResponses['GET /admin/v1/users'];
export type UserWithRole = Item<UserPage['data']>;
/** The calling user (balance in cents). */
export type Me = Data<'GET /api/v1/user/me'>;
export type ApiKey = Item<Data<'GET /api/v1/keys'>>;
/** The answer to a create: the key itself is shown only here. */
export type NewApiKey = Data<'POST /api/v1/keys'>;
export type PasswordChange = Data<'POST /api/v1/auth/password'>;
/** A single sign-on provider's button on the sign-in page. */
export type SsoProvider = Item<Data<'GET /api/v1/auth/oidc/providers'>>;

// Statistics
export type Statistics = ApiResponses['GET /api/v1/stats'];
export type Bucket = Item<Statistics['byDay']>;

// Catalog
export type CatalogModel = components['schemas']['CatalogModel'];
export type ParamField = Item<CatalogModel['params']>;
export type ParamOption = Item<NonNullable<ParamField['options']>>;
export type CostEstimate = ApiResponses['POST /api/v1/generation/estimate'];
/** Every model's price tiers (and a text model's token prices), USD as decimal strings. */
export type CostTable = ApiResponses['GET /api/v1/cost'];
export type ModelPrices = Item<NonNullable<CostTable['models']>>;
export type PriceTier = Item<ModelPrices['tiers']>;

// Generations
/** The short create answer (the dashboard sends no `Prefer: wait`, so never the ended task). */
export type CreatedTask = Extract<Data<'POST /api/v1/generation/create'>, { createdAt: string }>;
export type TaskData = Data<'GET /api/v1/task/status/{taskId}'>;
export type TaskStatus = TaskData['status'];
export type MediaFile = Item<TaskData['files']>;
export type FileType = MediaFile['fileType'];
export type GenerationPage = Data<'GET /api/v1/generations'>;
export type GenerationItem = Item<GenerationPage['items']>;
export type GenerationDetail = Data<'GET /api/v1/generation/{generationId}'>;
export type Attempt = Item<GenerationDetail['attempts']>;

// Webhooks
export type WebhookSecret = Data<'GET /api/v1/webhooks/secret'>;
export type WebhookDelivery = Item<Data<'GET /api/v1/webhooks/deliveries'>>;
export type WebhookAttempt = Item<WebhookDelivery['attempts']>;

// Billing
export type BillingSummary = Data<'GET /api/v1/billing'>;
export type BillingCheckout = Data<'GET /api/v1/billing/checkout/{checkoutId}'>;
export type AccountLedgerPage = Data<'GET /api/v1/billing/ledger'>;
export type AccountLedgerEntry = Item<AccountLedgerPage['items']>;
export type LedgerLink = AccountLedgerEntry['link'];
export type Redemption = Data<'POST /api/v1/billing/redeem'>;

// Paid storage
export type StoragePlans = Data<'GET /api/v1/agent/storage/plans'>;
export type StoragePlan = Item<StoragePlans['plans']>;
export type StorageAccount = Data<'GET /api/v1/agent/storage/subscription'>;
export type StorageSubscription = NonNullable<StorageAccount['subscription']>;
export type StorageCharge = Item<StorageAccount['charges']>;
export type StorageQuote = Data<'POST /api/v1/agent/storage/quote'>;
export type StorageFilePage = Data<'GET /api/v1/agent/storage/files'>;
export type StorageFile = Item<StorageFilePage['items']>;
export type StorageOperation = Data<'GET /api/v1/agent/storage/operations/{operationId}'>;
export type AcceptedOperation = Data<'POST /api/v1/agent/storage/retain'>;

// Brand projects
export type ProjectPage = Data<'GET /api/v1/agent/projects'>;
export type Project = Data<'GET /api/v1/agent/projects/{projectId}'>;
export type ProjectModelDefaults = Project['modelDefaults'];
export type ProjectVersionPage = Data<'GET /api/v1/agent/projects/{projectId}/versions'>;
export type AssetPage = Data<'GET /api/v1/agent/projects/{projectId}/assets'>;
export type Asset = Item<AssetPage['items']>;

// Agent (the event shapes are the gateway's own: pages/agent/agent-types.ts)
export type Conversation = Data<'GET /api/v1/agent/conversations/{conversationId}'>;
export type ConversationPage = Data<'GET /api/v1/agent/conversations'>;
/** A message of the thread, oldest first. */
export type ThreadMessage = Item<Data<'GET /api/v1/agent/conversations/{conversationId}/messages'>['items']>;
/** A run: status, budget, costs, steps and what it waits for. */
export type RunView = Data<'GET /api/v1/agent/runs/{runId}'>;
export type RunStep = Item<RunView['steps']>;
export type RunOperation = Item<RunView['costs']['operations']>;
/** A question or a model-change proposal, pending or decided. */
export type PendingAction = Item<RunView['pendingActions']>;
/** What a run made: its main outcome, artifacts and structured result. */
export type RunResult = Data<'GET /api/v1/agent/runs/{runId}/result'>;
export type Artifact = Item<RunResult['artifacts']>;
/** The answer to a message: the run it started or joined. */
export type MessageAccepted = Data<'POST /api/v1/agent/conversations/{conversationId}/messages'>;
/** Where to upload an announced attachment. */
export type AttachmentSlot = Data<'POST /api/v1/agent/conversations/{conversationId}/attachments'>;
export type WorkflowSummary = Item<Data<'GET /api/v1/agent/workflows'>>;
/** An assistant profile a conversation can start with. */
export type AgentProfile = Item<Data<'GET /api/v1/agent/profiles'>>;
/** A model a run can use (a text model drives a manual run; a media model makes its media). */
export type AgentModel = Item<Data<'GET /api/v1/agent/models'>>;
export type AgentModelType = AgentModel['type'];
/** The other conversations a conversation's runs may search, and their version. */
export type ContextReferences = Data<'GET /api/v1/agent/conversations/{conversationId}/context-references'>;
export type ContextReference = Item<ContextReferences['references']>;
/** An artifact to pick from (the newest first). */
export type RecentArtifact = Item<Data<'GET /api/v1/agent/artifacts'>>;
/** Your agent defaults and their version (0: never saved, the built-in defaults). */
export type AgentSettingsView = Data<'GET /api/v1/agent/settings'>;
export type AgentSettings = AgentSettingsView['settings'];
export type AgentWebhook = Item<Data<'GET /api/v1/agent/webhooks'>>;
/** The answer to a create: the signing secret is shown only here. */
export type NewAgentWebhook = Data<'POST /api/v1/agent/webhooks'>;
export type AgentWebhookDeliveryPage = Data<'GET /api/v1/agent/webhooks/{webhookId}/deliveries'>;
export type AgentWebhookDelivery = Item<AgentWebhookDeliveryPage['items']>;
/** A test event or a redelivery: the delivery that carries it; `queued: false` when it was already pending. */
export type QueuedAgentWebhookDelivery = Data<'POST /api/v1/agent/webhooks/{webhookId}/test'>;

// Operator (admin API)
export type ProviderPage = ApiResponses['GET /admin/v1/providers'];
export type ProviderInfo = Item<ProviderPage['data']>;
export type UserLedgerPage = ApiResponses['GET /admin/v1/users/{userId}/ledger'];
export type LedgerEntry = Item<UserLedgerPage['data']>;
/** The ledger entry an admin credit made (the first one, for a retry). */
export type Credit = ApiResponses['POST /admin/v1/users/{userId}/credits'];
/** Customer groups and their price multipliers (issue 33, item 4). */
export type CustomerGroupList = ApiResponses['GET /admin/v1/groups'];
export type CustomerGroup = ApiResponses['POST /admin/v1/groups'];
export type AccountGroup = ApiResponses['GET /admin/v1/users/{id}/group'];
export type RedeemCode = ApiResponses['POST /admin/v1/redeem-codes'];
export type RedeemCodePage = ApiResponses['GET /admin/v1/redeem-codes'];
// Live upstreams (issue 32): providers and key pools, routes, model settings, the audit log
export type UpstreamProvider = ApiResponses['GET /admin/v1/providers/{name}'];
export type UpstreamKey = Item<UpstreamProvider['keys']>;
export type ProviderTest = ApiResponses['POST /admin/v1/providers/{name}/test'];
export type ServedRoute = ApiResponses['GET /admin/v1/routes/{modelId}'];
export type ServedRouteEntry = Item<ServedRoute['entries']>;
export type RoutePage = ApiResponses['GET /admin/v1/routes'];
export type ModelSetting = ApiResponses['GET /admin/v1/models/{modelId}'];
export type AuditPage = ApiResponses['GET /admin/v1/audit'];
export type AuditEntry = Item<AuditPage['data']>;
export type RouteReport = ApiResponses['GET /admin/v1/reports/routes'];
export type RouteReportRow = Item<RouteReport['data']>;

// Organizations (issue 33)
export type Organization = Data<'GET /api/v1/organizations/{orgId}'>;
export type BudgetAlerts = Data<'GET /api/v1/budget-alerts'>;
export type BudgetAlertFiring = Item<BudgetAlerts['firings']>;
export type OrganizationMember = Item<Data<'GET /api/v1/organizations/{orgId}/members'>>;
export type OrganizationInvitation = Item<Data<'GET /api/v1/organizations/{orgId}/invitations'>>;
export type SentInvitation = Data<'POST /api/v1/organizations/{orgId}/invitations'>;
export type OrganizationKey = Item<Data<'GET /api/v1/organizations/{orgId}/keys'>>;
export type NewOrganizationKey = Data<'POST /api/v1/organizations/{orgId}/keys'>;
export type OrganizationLedgerPage = Data<'GET /api/v1/organizations/{orgId}/ledger'>;

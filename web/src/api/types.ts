/** Shapes of the API responses the dashboard reads (SPEC.md and docs/decisions.md). */

export interface User {
  id: string;
  email: string | null;
  balance: number;
  createdAt: string;
  isAdmin?: boolean;
}

export interface SessionData {
  /** hasPassword: false for an account that has only signed in by link (it sets a first password without a current one). */
  user: User & { isAdmin: boolean; hasPassword: boolean };
  csrfToken: string;
  expiresAt: string;
}

export interface Bucket {
  key: string;
  count: number;
  cost: number;
}

export interface Statistics {
  from: string;
  to: string;
  totals: {
    balance: number;
    spent: number;
    spentAllTime: number;
    requests: number;
    succeeded: number;
    failed: number;
    inProgress: number;
    llmRequests: number;
    llmTokens: number;
  };
  byDay: Bucket[];
  byModel: Bucket[];
  byType: Bucket[];
  /** Per API key id; `dashboard` for requests made here. Absent on older gateways. */
  byApiKey?: Bucket[];
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export type TaskStatus = 'not_started' | 'processing' | 'finished' | 'failed' | 'expired';
export type FileType = 'image' | 'video' | 'music';

export interface MediaFile {
  fileUrl: string;
  fileType: FileType;
}

export interface GenerationItem {
  taskId: string;
  model: string;
  type: string;
  status: TaskStatus;
  costCents: number;
  costMicroUsd: string;
  refunded: boolean;
  prompt: string | null;
  files: MediaFile[];
  errorMessage: string | null;
  createdTime: string;
  finishedTime: string | null;
}

export interface GenerationPage {
  items: GenerationItem[];
  nextCursor: string | null;
}

export interface Attempt {
  attempt: number;
  provider: string;
  upstreamModel: string;
  upstreamId: string | null;
  state: string;
  error: string | null;
  retryable: boolean | null;
  polls: number;
  startedAt: string | null;
  acceptedAt: string | null;
  endedAt: string | null;
  lateOutcome: string | null;
}

export interface WebhookAttempt {
  attemptNo: number;
  startedAt: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
}

export interface WebhookDelivery {
  id: string;
  taskId: string | null;
  eventType: string;
  url: string;
  status: string;
  attemptCount: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
  attempts?: WebhookAttempt[];
}

export interface GenerationDetail {
  generationId: string;
  taskId: string;
  model: string;
  type: string;
  status: TaskStatus;
  prompt: string | null;
  resolution: string | null;
  input: Record<string, unknown>;
  cost: { microUsd: string; cents: number; tier: string; unit: string; units: number; refundedMicroUsd: string };
  files: MediaFile[];
  output: Record<string, unknown> | null;
  errorMessage: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  expiresAt: string | null;
  webhook: { url: string; deliveries: WebhookDelivery[] } | null;
  attempts: Attempt[];
}

export interface TaskData {
  taskId: string;
  status: TaskStatus;
  files: MediaFile[];
  output: Record<string, unknown> | null;
  createdTime: string;
  errorMessage: string | null;
}

export interface ParamOption {
  value: string | number;
  label: string;
}

export interface ParamField {
  name: string;
  label: string;
  description?: string;
  kind: 'string' | 'number' | 'boolean';
  isArray: boolean;
  required: boolean;
  default?: string | number | boolean | Array<string | number | boolean> | null;
  options?: ParamOption[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  isMedia: boolean;
  isPrompt: boolean;
  multiline: boolean;
  deprecated: boolean;
  minItems?: number;
  maxItems?: number;
  mediaKind?: 'image' | 'video' | 'audio';
  fields?: ParamField[];
  /** A choice that decides which other fields apply (music `action`): the fields of each value. */
  fieldsByValue?: Record<string, string[]>;
}

export interface CatalogModel {
  id: string;
  name: string;
  description?: string;
  type: 'TEXT' | 'MUSIC' | 'IMAGE' | 'VIDEO';
  kind: 'media' | 'llm';
  vendor?: string;
  priceFrom?: string;
  priceUnit: 'generation' | 'second' | 'megatoken';
  params: ParamField[];
}

export interface ProviderInfo {
  name: string;
  type: string;
  baseUrl: string | null;
  concurrency?: number;
  models: string[];
  health: { status: string; calls: number; errors: number; errorRate: number; lastError: string | null; lastErrorAt: string | null; lastSuccessAt: string | null };
}

export interface LedgerEntry {
  id: string;
  kind: string;
  amountCents: number;
  balanceAfterCents: number;
  note: string | null;
  createdAt: string;
}

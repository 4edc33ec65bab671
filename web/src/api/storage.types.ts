/** Paid storage, as GET/POST /api/v1/agent/storage/… answer (money in micro-USD strings). */
export interface StoragePlan {
  planId: string;
  name: string;
  quotaBytes: number;
  priceMicroUsd: string;
  interval: 'month';
}

export interface StorageSubscription {
  planId: string;
  planName: string;
  nextPlanId: string | null;
  status: 'active' | 'grace' | 'lapsed';
  quotaBytes: number;
  usedBytes: number;
  autoRenew: boolean;
  currentPeriod: { start: string; end: string };
  renewsAt: string | null;
  nextRenewalMicroUsd: string | null;
  graceEndsAt: string | null;
  version: number;
}

export interface StorageCharge {
  chargeId: string;
  planId: string;
  kind: string;
  amountMicroUsd: string;
  period: { start: string; end: string };
  createdAt: string;
}

export interface StorageAccount {
  subscription: StorageSubscription | null;
  charges: StorageCharge[];
}

export interface StorageQuote {
  quoteId: string;
  planId: string;
  change: string;
  amountMicroUsd: string;
  balanceMicroUsd: string;
  balanceAfterMicroUsd: string;
  period: { start: string; end: string };
  quotaVersion: number;
  expiresAt: string;
}

export interface StorageFile {
  fileId: string;
  name: string;
  mime: string;
  sizeBytes: number;
  url: string;
  kind: 'retained' | 'project_asset';
  projectId: string | null;
  source: { type: 'generation' | 'artifact'; id: string; outputIndex: number | null };
  createdAt: string;
}

export interface StorageFilePage {
  items: StorageFile[];
  nextCursor: string | null;
}

export interface StorageOperation {
  operationId: string;
  status: 'pending' | 'completed' | 'failed';
  file: StorageFile | null;
  error: { code: string; message: string } | null;
}

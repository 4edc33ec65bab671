/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by npm run gen:web-types
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

/** The body of each of these operations' successful JSON answer, by `METHOD /path`. */
export interface GenerationResponses {
  /** Exactly what create would debit for this body, in micro-USD */
  'POST /api/v1/generation/estimate': {
    cost: number;
  };
  /** Price, debit and queue a media generation; answers at once with the task id */
  'POST /api/v1/generation/create': {
    code: number;
    data: {
      taskId: string;
      status: 'not_started' | 'processing' | 'finished' | 'failed' | 'expired';
      createdAt: string;
    } | {
      taskId: string;
      status: 'not_started' | 'processing' | 'finished' | 'failed' | 'expired';
      files: {
        /** Direct URL, kept 3 days */
        fileUrl: string;
        fileType: 'image' | 'video' | 'music';
      }[];
      /** Structured result: music `tracks`, or the result of a data action */
      output: { [key: string]: unknown } | null;
      createdTime: string;
      errorMessage: string | null;
    };
  };
  /** The status of a task, with its files when finished */
  'GET /api/v1/task/status/{taskId}': {
    code: number;
    data: {
      taskId: string;
      status: 'not_started' | 'processing' | 'finished' | 'failed' | 'expired';
      files: {
        /** Direct URL, kept 3 days */
        fileUrl: string;
        fileType: 'image' | 'video' | 'music';
      }[];
      /** Structured result: music `tracks`, or the result of a data action */
      output: { [key: string]: unknown } | null;
      createdTime: string;
      errorMessage: string | null;
    };
  };
  /** Cancel a media task */
  'POST /api/v1/task/{taskId}/cancel': {
    code: number;
    data: {
      taskId: string;
      /** True when the task was stopped: it is `failed` with errorMessage "cancelled by the client" and refunded in full */
      cancelled: boolean;
      status: 'not_started' | 'processing' | 'finished' | 'failed' | 'expired';
      /** Why nothing was cancelled (the job goes on and is charged if it finishes); null when cancelled */
      reason: string | null;
    };
  };
  /** A generation with its request, price, provider attempts and webhook deliveries */
  'GET /api/v1/generation/{generationId}': {
    code: number;
    data: {
      generationId: string;
      /** The same id, as create and the status endpoint name it */
      taskId: string;
      model: string;
      type: 'IMAGE' | 'VIDEO' | 'MUSIC';
      family: string;
      status: 'not_started' | 'processing' | 'finished' | 'failed' | 'expired';
      prompt: string | null;
      resolution: string | null;
      /** The validated input, defaults applied */
      input: { [key: string]: unknown };
      /** The input media measured for the price */
      measuredMedia: {
        url: string;
        durationS?: number;
        format?: string;
        bytes: number;
      }[];
      cost: {
        /** What the create debited, integer micro-USD */
        microUsd: string;
        /** The same in USD cents (exact) */
        cents: number;
        /** The price tier that applied */
        tier: string;
        unit: string;
        units: number;
        /** Refunded on failure, integer micro-USD */
        refundedMicroUsd: string;
      };
      files: {
        /** Direct URL, kept 3 days */
        fileUrl: string;
        fileType: 'image' | 'video' | 'music';
      }[];
      /** Structured result: music `tracks`, or the result of a data action */
      output: { [key: string]: unknown } | null;
      errorMessage: string | null;
      createdAt: string;
      startedAt: string | null;
      finishedAt: string | null;
      expiresAt: string | null;
      /** The completion webhook, when the create gave one */
      webhook: {
        url: string;
        deliveries: {
          /** Also the webhook-id header of every attempt */
          id: string;
          taskId: string | null;
          eventType: string;
          url: string;
          status: 'pending' | 'delivered' | 'failed';
          attemptCount: number;
          nextAttemptAt: string | null;
          lastStatusCode: number | null;
          lastError: string | null;
          createdAt: string;
          deliveredAt: string | null;
          attempts: {
            attemptNo: number;
            startedAt: string;
            durationMs: number;
            /** The receiver’s status; null when no response came */
            statusCode: number | null;
            error: string | null;
          }[];
        }[];
      } | null;
      attempts: {
        /** From 1, in the order tried */
        attempt: number;
        provider: string;
        upstreamModel: string;
        /** The provider's id of the job, once it accepted it */
        upstreamId: string | null;
        state: string;
        error: string | null;
        /** Whether the error let the next provider be tried */
        retryable: boolean | null;
        polls: number;
        startedAt: string | null;
        acceptedAt: string | null;
        endedAt: string | null;
        /** What the provider reported after we had left the attempt */
        lateOutcome: string | null;
        lateAt: string | null;
      }[];
    };
  };
  /** Your generations, newest first, filtered and paginated */
  'GET /api/v1/generations': {
    code: number;
    data: {
      items: ({
        taskId: string;
        model: string;
        type: 'IMAGE' | 'VIDEO' | 'MUSIC';
        status: 'not_started' | 'processing' | 'finished' | 'failed' | 'expired';
        /** What the create debited, USD cents (exact) */
        costCents: number;
        /** The same in micro-USD, a decimal integer string */
        costMicroUsd: string;
        /** A failed generation was refunded in full */
        refunded: boolean;
        /** At most 300 characters */
        prompt: string | null;
        /** A music generation's song titles (its tracks', distinct, joined by ' / '); null for images and videos */
        title: string | null;
        files: {
          fileUrl: string;
          fileType: 'image' | 'video' | 'music';
        }[];
        errorMessage: string | null;
        createdTime: string;
        finishedTime: string | null;
      })[];
      nextCursor: string | null;
    };
  };
}

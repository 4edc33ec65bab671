/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by npm run gen:web-types
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

/** The body of each of these operations' successful JSON answer, by `METHOD /path`. */
export interface WebhooksResponses {
  /** Your webhook signing secret */
  'GET /api/v1/webhooks/secret': {
    code: number;
    data: {
      /** whsec_ + base64 key: verify the webhook-signature header with it (Standard Webhooks) */
      secret: string;
      /** After a rotation: until then deliveries also carry a signature by the replaced secret */
      previousSecretValidUntil?: string;
    };
  };
  /** Rotate your webhook signing secret */
  'POST /api/v1/webhooks/secret/rotate': {
    code: number;
    data: {
      /** whsec_ + base64 key: verify the webhook-signature header with it (Standard Webhooks) */
      secret: string;
      /** After a rotation: until then deliveries also carry a signature by the replaced secret */
      previousSecretValidUntil?: string;
    };
  };
  /** Your webhook deliveries with every attempt */
  'GET /api/v1/webhooks/deliveries': {
    code: number;
    data: {
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
  };
}

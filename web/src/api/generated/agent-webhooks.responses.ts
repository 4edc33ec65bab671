/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by npm run gen:web-types
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

/** The body of each of these operations' successful JSON answer, by `METHOD /path`. */
export interface AgentWebhooksResponses {
  /** Your lifecycle webhook destinations (without secrets) */
  'GET /api/v1/agent/webhooks': {
    code: number;
    data: {
      webhookId?: string;
      url?: string;
      eventTypes?: string[];
      scope?: string;
      scopeId?: string | null;
      status?: 'active' | 'disabled';
      disabledReason?: string | null;
      createdAt?: string;
    }[];
  };
  /** Add a lifecycle webhook destination (the signing secret is shown once) */
  'POST /api/v1/agent/webhooks': {
    code: number;
    data: {
      webhookId?: string;
      url?: string;
      eventTypes?: string[];
      scope?: string;
      scopeId?: string | null;
      status?: 'active' | 'disabled';
      disabledReason?: string | null;
      createdAt?: string;
      secret?: string;
    };
  };
  /** Send a signed webhook.test event to a destination */
  'POST /api/v1/agent/webhooks/{webhookId}/test': {
    code: number;
    data: {
      /** The delivery that will carry the event (whd_…) */
      deliveryId: string;
      /** The event id, sent as webhook-id; a redelivery keeps it */
      eventId: string;
      /** False: the event was already pending for this destination, nothing was added */
      queued: boolean;
    };
  };
  /** A destination's recent deliveries, newest first */
  'GET /api/v1/agent/webhooks/{webhookId}/deliveries': {
    code: number;
    data: {
      items?: {
        deliveryId: string;
        /** Sent as webhook-id; the same on every attempt and redelivery */
        eventId: string;
        /** An event type, or webhook.test */
        eventType: string;
        status: 'pending' | 'delivered' | 'failed';
        attempts: number;
        /** The receiver's HTTP status at the last attempt; null when none answered */
        lastStatusCode: number | null;
        /** Why the last attempt failed, in words (network addresses are not shown) */
        lastError: string | null;
        createdAt: string;
        lastAttemptAt: string | null;
        /** While pending: when the next attempt is due */
        nextAttemptAt: string | null;
        deliveredAt: string | null;
      }[];
      nextCursor?: string | null;
    };
  };
  /** Send a delivery's event again, under the same event id */
  'POST /api/v1/agent/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver': {
    code: number;
    data: {
      /** The delivery that will carry the event (whd_…) */
      deliveryId: string;
      /** The event id, sent as webhook-id; a redelivery keeps it */
      eventId: string;
      /** False: the event was already pending for this destination, nothing was added */
      queued: boolean;
    };
  };
}

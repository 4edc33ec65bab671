/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by npm run gen:web-types
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

/** The body of each of these operations' successful JSON answer, by `METHOD /path`. */
export interface AgentAttachmentsResponses {
  /** Finish an upload: the bytes are checked and the original becomes immutable */
  'POST /api/v1/agent/attachments/{attachmentId}/complete': {
    code: number;
    data: {
      attachmentId: string;
      conversationId?: string;
      name?: string;
      mime?: string;
      sizeBytes?: number;
      status: 'pending' | 'completed' | 'expired';
      /** What the check measured: kind (image, video, audio, pdf, text), format, width, height, durationS, pages, chars */
      facts?: { [key: string]: unknown } | null;
      sha256?: string | null;
      createdAt?: string;
      uploadExpiresAt?: string;
      completedAt?: string | null;
      /** 3 days after completion; reading or using it does not extend this */
      expiresAt?: string | null;
    };
  };
  /** An attachment: status, measured facts, expiry */
  'GET /api/v1/agent/attachments/{attachmentId}': {
    code: number;
    data: {
      attachmentId: string;
      conversationId?: string;
      name?: string;
      mime?: string;
      sizeBytes?: number;
      status: 'pending' | 'completed' | 'expired';
      /** What the check measured: kind (image, video, audio, pdf, text), format, width, height, durationS, pages, chars */
      facts?: { [key: string]: unknown } | null;
      sha256?: string | null;
      createdAt?: string;
      uploadExpiresAt?: string;
      completedAt?: string | null;
      /** 3 days after completion; reading or using it does not extend this */
      expiresAt?: string | null;
    };
  };
}

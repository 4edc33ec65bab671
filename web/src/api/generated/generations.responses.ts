/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by npm run gen:web-types
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

/** The body of each of these operations' successful JSON answer, by `METHOD /path`. */
export interface GenerationsResponses {
  /** Announce a file for a media field: its upload URL */
  'POST /api/v1/playground/uploads': {
    code: number;
    data: {
      attachmentId: string;
      /** PUT the raw bytes here, without API credentials, with uploadHeaders and the announced Content-Length */
      uploadUrl: string;
      uploadMethod?: 'PUT';
      uploadHeaders?: { [key: string]: string };
      /** The upload must be completed before this (24 hours) */
      expiresAt: string;
      maxBytes?: number;
    };
  };
  /** Finish a playground upload: the bytes are checked, the answer carries its gateway file URL */
  'POST /api/v1/playground/uploads/{uploadId}/complete': {
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
      /** The gateway file URL of the original: put it in a media field of a generation. */
      url: string;
    };
  };
}

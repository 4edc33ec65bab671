/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by npm run gen:web-types
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

/** The shared schemas, as the document's `#/components/schemas`. */
export interface components {
  schemas: {
    CatalogModel: {
      id: string;
      group: string;
      name: string;
      description?: string;
      type: 'TEXT' | 'MUSIC' | 'IMAGE' | 'VIDEO';
      kind: 'media' | 'llm';
      vendor?: string;
      tags: string[];
      capabilities: string[];
      pricing: {
        key: string;
        /** USD for one unit of priceUnit */
        price: string;
        isDefault: boolean;
        dimensions?: { [key: string]: string };
      }[];
      priceFrom?: string;
      priceUnit: 'generation' | 'second' | 'megatoken';
      params: {
        name: string;
        label: string;
        description?: string;
        kind: 'string' | 'number' | 'boolean';
        isArray: boolean;
        required: boolean;
        default?: string | number | boolean | (string | number | boolean)[] | null;
        options?: {
          value: string | number;
          label: string;
        }[];
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
        isTaskReference?: boolean;
        fields?: {
          name: string;
          label: string;
          description?: string;
          kind: 'string' | 'number' | 'boolean';
          isArray: boolean;
          required: boolean;
          default?: string | number | boolean | (string | number | boolean)[] | null;
          options?: {
            value: string | number;
            label: string;
          }[];
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
          isTaskReference?: boolean;
        }[];
        /** A choice that decides which other fields apply: for each value, the names of the fields it uses (others are refused) */
        fieldsByValue?: { [key: string]: string[] };
        /** When the field is required besides `required`: the values of other fields (defaults count) that make it so, other fields (or sets of fields) that would do instead, and why */
        requiredWhen?: {
          when: { [key: string]: (string | boolean)[] };
          orFields?: string[];
          /** Either/or between sets of fields: met when every field of one set is filled; the set in use is the first with a field filled */
          alternatives?: string[][];
          reason: string;
        }[];
      }[];
      protocols?: ('openai' | 'anthropic')[];
    };
  };
}

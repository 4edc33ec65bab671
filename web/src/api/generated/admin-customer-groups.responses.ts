/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by npm run gen:web-types
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

/** The body of each of these operations' successful JSON answer, by `METHOD /path`. */
export interface AdminCustomerGroupsResponses {
  /** Every customer group with its multipliers and member count */
  'GET /admin/v1/groups': {
    groups: {
      name: string;
      description: string | null;
      /** Decimal, 1 is the list price */
      multiplier: string;
      models: { [key: string]: string };
      /** Accounts in the group */
      members: number;
      version: number;
      updatedAt: string;
      updatedBy: string;
    }[];
  };
  /** Create a customer group */
  'POST /admin/v1/groups': {
    name: string;
    description: string | null;
    /** Decimal, 1 is the list price */
    multiplier: string;
    models: { [key: string]: string };
    /** Accounts in the group */
    members: number;
    version: number;
    updatedAt: string;
    updatedBy: string;
  };
  /** One customer group */
  'GET /admin/v1/groups/{name}': {
    name: string;
    description: string | null;
    /** Decimal, 1 is the list price */
    multiplier: string;
    models: { [key: string]: string };
    /** Accounts in the group */
    members: number;
    version: number;
    updatedAt: string;
    updatedBy: string;
  };
  /** Change a group's multiplier, per-model multipliers or description (priced by every process within 5 s; requests already held or queued keep their price) */
  'PATCH /admin/v1/groups/{name}': {
    name: string;
    description: string | null;
    /** Decimal, 1 is the list price */
    multiplier: string;
    models: { [key: string]: string };
    /** Accounts in the group */
    members: number;
    version: number;
    updatedAt: string;
    updatedBy: string;
  };
  /** Delete a group that has no accounts */
  'DELETE /admin/v1/groups/{name}': {
    deleted?: boolean;
  };
  /** The customer group of an account */
  'GET /admin/v1/users/{id}/group': {
    accountId: string;
    /** `default`: in no group, at the list price */
    group: string;
    multiplier: string;
  };
  /** Put an account in a customer group */
  'PUT /admin/v1/users/{id}/group': {
    accountId: string;
    /** `default`: in no group, at the list price */
    group: string;
    multiplier: string;
  };
}

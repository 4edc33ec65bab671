/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by npm run gen:web-types
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

/** The body of each of these operations' successful JSON answer, by `METHOD /path`. */
export interface BudgetAlertsResponses {
  /** Your budget alerts and their latest crossings */
  'GET /api/v1/budget-alerts': {
    code: number;
    data: {
      /** The monthly budget the spend percentages are of */
      monthlyBudgetMicroUsd: string | null;
      spendThresholdsPercent: number[];
      /** Alert when the balance falls below this */
      balanceBelowMicroUsd: string | null;
      /** Organizations: percentages of each capped member’s monthly cap */
      memberCapThresholdsPercent: number[];
      /** Signed like completion webhooks, with the account’s signing secret */
      webhookUrl: string | null;
      email: boolean;
      spendMonth: string | null;
      /** As the last check counted it */
      spentThisMonthMicroUsd: string;
      updatedAt: string | null;
      /** The latest crossings, newest first */
      firings: {
        /** Also the webhook-id of its webhook */
        id: string;
        kind: 'spend' | 'balance_below' | 'member_cap';
        /** The UTC month it fired in (YYYY-MM): each alert fires once per month */
        period: string;
        /** member_cap: the member */
        memberId: string | null;
        thresholdPercent: number | null;
        /** The amount crossed */
        thresholdMicroUsd: string;
        /** The spend or balance the check saw */
        observedMicroUsd: string;
        /** False: a higher threshold crossed at the same check was the one sent */
        notified: boolean;
        email: 'pending' | 'sent' | 'failed' | 'none';
        /** Its delivery in GET /api/v1/webhooks/deliveries */
        webhookDeliveryId: string | null;
        firedAt: string;
      }[];
      /** Organizations (owners): the secret the organization’s webhooks are signed with */
      webhookSigningSecret?: string;
    };
  };
  /** Set your budget alerts: percentages of a monthly budget, a balance below an amount, a webhook URL, email on or off */
  'PUT /api/v1/budget-alerts': {
    code: number;
    data: {
      /** The monthly budget the spend percentages are of */
      monthlyBudgetMicroUsd: string | null;
      spendThresholdsPercent: number[];
      /** Alert when the balance falls below this */
      balanceBelowMicroUsd: string | null;
      /** Organizations: percentages of each capped member’s monthly cap */
      memberCapThresholdsPercent: number[];
      /** Signed like completion webhooks, with the account’s signing secret */
      webhookUrl: string | null;
      email: boolean;
      spendMonth: string | null;
      /** As the last check counted it */
      spentThisMonthMicroUsd: string;
      updatedAt: string | null;
      /** The latest crossings, newest first */
      firings: {
        /** Also the webhook-id of its webhook */
        id: string;
        kind: 'spend' | 'balance_below' | 'member_cap';
        /** The UTC month it fired in (YYYY-MM): each alert fires once per month */
        period: string;
        /** member_cap: the member */
        memberId: string | null;
        thresholdPercent: number | null;
        /** The amount crossed */
        thresholdMicroUsd: string;
        /** The spend or balance the check saw */
        observedMicroUsd: string;
        /** False: a higher threshold crossed at the same check was the one sent */
        notified: boolean;
        email: 'pending' | 'sent' | 'failed' | 'none';
        /** Its delivery in GET /api/v1/webhooks/deliveries */
        webhookDeliveryId: string | null;
        firedAt: string;
      }[];
      /** Organizations (owners): the secret the organization’s webhooks are signed with */
      webhookSigningSecret?: string;
    };
  };
  /** The organization’s budget alerts (an owner or admin); an owner also sees the webhook signing secret */
  'GET /api/v1/organizations/{orgId}/budget-alerts': {
    code: number;
    data: {
      /** The monthly budget the spend percentages are of */
      monthlyBudgetMicroUsd: string | null;
      spendThresholdsPercent: number[];
      /** Alert when the balance falls below this */
      balanceBelowMicroUsd: string | null;
      /** Organizations: percentages of each capped member’s monthly cap */
      memberCapThresholdsPercent: number[];
      /** Signed like completion webhooks, with the account’s signing secret */
      webhookUrl: string | null;
      email: boolean;
      spendMonth: string | null;
      /** As the last check counted it */
      spentThisMonthMicroUsd: string;
      updatedAt: string | null;
      /** The latest crossings, newest first */
      firings: {
        /** Also the webhook-id of its webhook */
        id: string;
        kind: 'spend' | 'balance_below' | 'member_cap';
        /** The UTC month it fired in (YYYY-MM): each alert fires once per month */
        period: string;
        /** member_cap: the member */
        memberId: string | null;
        thresholdPercent: number | null;
        /** The amount crossed */
        thresholdMicroUsd: string;
        /** The spend or balance the check saw */
        observedMicroUsd: string;
        /** False: a higher threshold crossed at the same check was the one sent */
        notified: boolean;
        email: 'pending' | 'sent' | 'failed' | 'none';
        /** Its delivery in GET /api/v1/webhooks/deliveries */
        webhookDeliveryId: string | null;
        firedAt: string;
      }[];
      /** Organizations (owners): the secret the organization’s webhooks are signed with */
      webhookSigningSecret?: string;
    };
  };
  /** Set the organization’s budget alerts (an owner): also percentages of each member’s monthly cap; emails go to the owners (and the member) */
  'PUT /api/v1/organizations/{orgId}/budget-alerts': {
    code: number;
    data: {
      /** The monthly budget the spend percentages are of */
      monthlyBudgetMicroUsd: string | null;
      spendThresholdsPercent: number[];
      /** Alert when the balance falls below this */
      balanceBelowMicroUsd: string | null;
      /** Organizations: percentages of each capped member’s monthly cap */
      memberCapThresholdsPercent: number[];
      /** Signed like completion webhooks, with the account’s signing secret */
      webhookUrl: string | null;
      email: boolean;
      spendMonth: string | null;
      /** As the last check counted it */
      spentThisMonthMicroUsd: string;
      updatedAt: string | null;
      /** The latest crossings, newest first */
      firings: {
        /** Also the webhook-id of its webhook */
        id: string;
        kind: 'spend' | 'balance_below' | 'member_cap';
        /** The UTC month it fired in (YYYY-MM): each alert fires once per month */
        period: string;
        /** member_cap: the member */
        memberId: string | null;
        thresholdPercent: number | null;
        /** The amount crossed */
        thresholdMicroUsd: string;
        /** The spend or balance the check saw */
        observedMicroUsd: string;
        /** False: a higher threshold crossed at the same check was the one sent */
        notified: boolean;
        email: 'pending' | 'sent' | 'failed' | 'none';
        /** Its delivery in GET /api/v1/webhooks/deliveries */
        webhookDeliveryId: string | null;
        firedAt: string;
      }[];
      /** Organizations (owners): the secret the organization’s webhooks are signed with */
      webhookSigningSecret?: string;
    };
  };
}

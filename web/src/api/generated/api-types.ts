/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by npm run gen:web-types
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

import type { AccountResponses } from './account.responses.ts';
import type { OrganizationsResponses } from './organizations.responses.ts';
import type { BudgetAlertsResponses } from './budget-alerts.responses.ts';
import type { CatalogResponses } from './catalog.responses.ts';
import type { TextResponses } from './text.responses.ts';
import type { GenerationResponses } from './generation.responses.ts';
import type { GenerationsResponses } from './generations.responses.ts';
import type { WebhooksResponses } from './webhooks.responses.ts';
import type { DashboardSessionResponses } from './dashboard-session.responses.ts';
import type { AgentSettingsResponses } from './agent-settings.responses.ts';
import type { AgentProfilesResponses } from './agent-profiles.responses.ts';
import type { AgentModelsResponses } from './agent-models.responses.ts';
import type { AgentConversationsResponses } from './agent-conversations.responses.ts';
import type { AgentRunsResponses } from './agent-runs.responses.ts';
import type { AgentArtifactsResponses } from './agent-artifacts.responses.ts';
import type { AgentWebhooksResponses } from './agent-webhooks.responses.ts';
import type { AgentAttachmentsResponses } from './agent-attachments.responses.ts';
import type { AgentWorkflowsResponses } from './agent-workflows.responses.ts';
import type { AgentStorageResponses } from './agent-storage.responses.ts';
import type { AgentProjectsResponses } from './agent-projects.responses.ts';
import type { AdminResponses } from './admin.responses.ts';
import type { AdminUpstreamsResponses } from './admin-upstreams.responses.ts';
import type { AdminCustomerGroupsResponses } from './admin-customer-groups.responses.ts';
import type { BillingResponses } from './billing.responses.ts';

export type { components } from './components.ts';

/** The body of each operation's successful JSON answer, by `METHOD /path` (path parameters in braces). */
export interface ApiResponses
  extends AccountResponses,
    OrganizationsResponses,
    BudgetAlertsResponses,
    CatalogResponses,
    TextResponses,
    GenerationResponses,
    GenerationsResponses,
    WebhooksResponses,
    DashboardSessionResponses,
    AgentSettingsResponses,
    AgentProfilesResponses,
    AgentModelsResponses,
    AgentConversationsResponses,
    AgentRunsResponses,
    AgentArtifactsResponses,
    AgentWebhooksResponses,
    AgentAttachmentsResponses,
    AgentWorkflowsResponses,
    AgentStorageResponses,
    AgentProjectsResponses,
    AdminResponses,
    AdminUpstreamsResponses,
    AdminCustomerGroupsResponses,
    BillingResponses {}

/** The agent-projects tables as Kysely sees them: the rows of ports/store-rows/agent-projects.rows.ts, with the columns the database fills. */
import type { AgentProjectAssetsRow, AgentProjectVersionsRow, AgentProjectsRow } from '../../../ports/store-rows/agent-projects.rows.ts';

export type AgentProjectsTable = AgentProjectsRow;
export type AgentProjectVersionsTable = AgentProjectVersionsRow;
export type AgentProjectAssetsTable = AgentProjectAssetsRow;

export interface AgentProjectTables {
  agent_projects: AgentProjectsTable;
  agent_project_versions: AgentProjectVersionsTable;
  agent_project_assets: AgentProjectAssetsTable;
}

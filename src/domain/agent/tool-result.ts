/**
 * What a tool call answered: the JSON the model reads in the tool message on its next turn, and the
 * `result` of the tool step's `run.step.completed` event. Its status says how it went; the other
 * fields are the tool's (artifacts, fragments, an error for the model to fix).
 */
export interface ToolResult {
  status: 'succeeded' | 'failed' | 'refused' | 'completed';
  [field: string]: unknown;
}

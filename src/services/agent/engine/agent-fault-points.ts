/** The fault points the run engine offers (the mechanism: ports/fault-points.port.ts). */
export const AGENT_FAULT_POINTS = [
  'agent.before_model_call',
  'agent.after_model_call',
  'agent.before_dispatch',
  'agent.after_dispatch',
  'agent.before_settle',
  'agent.before_extract_call',
  'agent.before_finalize',
] as const;

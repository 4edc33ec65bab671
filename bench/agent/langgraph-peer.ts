/**
 * The LangGraph JS peer of bench/agent, in its own process: the bench's run (a model call that asks
 * for `generate_image`, the tool, a model call that answers in text) as a `StateGraph` with a
 * checkpointer, MemorySaver or PostgresSaver (on a schema of its own, dropped at the end). The model
 * node calls the same scripted orchestrator over HTTP (conversation `conv_lg<saver><i>`, planned by
 * the bench before it starts this process); the tool node renders the image with the local
 * provider's renderer, as the gateway's `local` provider does.
 *
 * The figure is LangGraph's own time per step, as the gateway's histogram is the engine's: a run's
 * wall time minus the time inside its nodes (the model call, the rendering), each gap given to the
 * step it follows (the first gap, before any node, to the first step). It holds the checkpoint writes,
 * the channel updates and the routing.
 *
 *   node bench/agent/langgraph-peer.ts <memory|postgres> <orchestrator base URL> <api key> <warm-up> <sequential> <concurrent> [database URL]
 *
 * Prints one JSON line (`PeerResult`) on stdout.
 */
import { randomBytes } from 'node:crypto';
import { Annotation, END, MemorySaver, START, StateGraph } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import pg from 'pg';
import { renderImage } from '../../src/providers/local/render/render-image.ts';

export interface PeerPhase {
  runs: number;
  completed: number;
  steps: number;
  /** LangGraph's time per step (ms), one value per node run. */
  perStep: number[];
  /** LangGraph's time per run (ms): wall minus the time inside the nodes. */
  perRun: number[];
  wallMs: number;
}

export interface PeerResult {
  saver: 'memory' | 'postgres';
  sequential: PeerPhase;
  concurrent: PeerPhase;
}

interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** OpenAI chat messages, as the model node sends and keeps them. */
type Message =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

const [saverName = 'memory', baseUrl = '', apiKey = '', warmArg = '1', sequentialArg = '30', concurrentArg = '100', databaseUrl = ''] = process.argv.slice(2);
const saverKind = saverName === 'postgres' ? 'postgres' : 'memory';
const prefix = `conv_lg${saverKind === 'postgres' ? 'p' : 'm'}`;

const GENERATE_IMAGE = {
  type: 'function',
  function: {
    name: 'generate_image',
    description: 'Generate one or more images.',
    parameters: { type: 'object', properties: { prompt: { type: 'string' }, model: { type: 'string' } }, required: ['prompt'] },
  },
};

const State = Annotation.Root({
  conversationId: Annotation<string>(),
  messages: Annotation<Message[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
});
type GraphState = typeof State.State;

/** Time inside the nodes, per conversation: [start, end] of each node run. */
const spans = new Map<string, Array<[number, number]>>();
const span = (conversationId: string, start: number) => {
  const list = spans.get(conversationId) ?? [];
  list.push([start, performance.now()]);
  spans.set(conversationId, list);
};

async function model(state: GraphState): Promise<Partial<GraphState>> {
  const start = performance.now();
  const runId = state.conversationId.replace('conv_', 'run_');
  const res = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'gpt-5.4-mini',
      messages: [{ role: 'system', content: `Conversation ${state.conversationId}, run ${runId}` }, ...state.messages],
      tools: [GENERATE_IMAGE],
    }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`orchestrator: ${res.status} ${text.slice(0, 300)}`);
  const message = (JSON.parse(text) as { choices: Array<{ message: { content: string | null; tool_calls?: ToolCall[] } }> }).choices[0]?.message;
  if (!message) throw new Error('orchestrator: no choice');
  const reply: Message = { role: 'assistant', content: message.content, ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}) };
  span(state.conversationId, start);
  return { messages: [reply] };
}

async function generateImage(state: GraphState): Promise<Partial<GraphState>> {
  const start = performance.now();
  const last = state.messages.at(-1);
  const calls = last?.role === 'assistant' ? (last.tool_calls ?? []) : [];
  const results: Message[] = [];
  for (const call of calls) {
    const args = JSON.parse(call.function.arguments) as { prompt?: string };
    const image = await renderImage({ prompt: args.prompt ?? '', seed: 1, width: 1024, height: 1024, format: 'png' });
    // The checkpoint keeps a reference, as the gateway's run keeps its generation's id, not the bytes.
    results.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify({ status: 'finished', bytes: image.length }) });
  }
  span(state.conversationId, start);
  return { messages: results };
}

const afterModel = (state: GraphState): 'tools' | typeof END => {
  const last = state.messages.at(-1);
  return last?.role === 'assistant' && (last.tool_calls?.length ?? 0) > 0 ? 'tools' : END;
};

let pool: pg.Client | undefined;
let schema = '';
let saver: MemorySaver | PostgresSaver;
if (saverKind === 'postgres') {
  schema = `lgbench_${randomBytes(5).toString('hex')}`;
  pool = new pg.Client({ connectionString: databaseUrl });
  await pool.connect();
  await pool.query(`CREATE SCHEMA ${schema}`);
  const postgres = PostgresSaver.fromConnString(databaseUrl, { schema });
  await postgres.setup();
  saver = postgres;
} else saver = new MemorySaver();

const graph = new StateGraph(State)
  .addNode('model', model)
  .addNode('tools', generateImage)
  .addEdge(START, 'model')
  .addConditionalEdges('model', afterModel, ['tools', END])
  .addEdge('tools', 'model')
  .compile({ checkpointer: saver });

/** One run; its LangGraph time per step and per run. */
async function run(index: number): Promise<{ completed: boolean; perStep: number[]; perRun: number }> {
  const conversationId = `${prefix}${index}`;
  const started = performance.now();
  const final = await graph.invoke({ conversationId, messages: [{ role: 'user', content: 'a lighthouse' }] }, { configurable: { thread_id: conversationId } });
  const ended = performance.now();
  const nodes = spans.get(conversationId) ?? [];
  spans.delete(conversationId);
  const perStep = nodes.map(([, end], i) => (nodes[i + 1]?.[0] ?? ended) - end);
  if (perStep.length > 0 && nodes[0]) perStep[0] = (perStep[0] ?? 0) + (nodes[0][0] - started);
  const inside = nodes.reduce((sum, [start, end]) => sum + (end - start), 0);
  const last = final.messages.at(-1);
  const completed = nodes.length === 3 && last?.role === 'assistant' && typeof last.content === 'string' && last.content.length > 0;
  return { completed, perStep, perRun: ended - started - inside };
}

async function phase(from: number, count: number, concurrent: boolean): Promise<PeerPhase> {
  const started = performance.now();
  const results = [];
  if (concurrent) results.push(...(await Promise.all(Array.from({ length: count }, (_, i) => run(from + i)))));
  else for (let i = 0; i < count; i++) results.push(await run(from + i));
  const perStep = results.flatMap((r) => r.perStep);
  return { runs: count, completed: results.filter((r) => r.completed).length, steps: perStep.length, perStep, perRun: results.map((r) => r.perRun), wallMs: performance.now() - started };
}

const warm = Number(warmArg);
const sequentialCount = Number(sequentialArg);
try {
  await phase(0, warm, false);
  const sequential = await phase(warm, sequentialCount, false);
  const concurrent = await phase(warm + sequentialCount, Number(concurrentArg), true);
  const result: PeerResult = { saver: saverKind, sequential, concurrent };
  process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
  if (saver instanceof PostgresSaver) await saver.end();
  if (pool) {
    await pool.query(`DROP SCHEMA ${schema} CASCADE`);
    await pool.end();
  }
}

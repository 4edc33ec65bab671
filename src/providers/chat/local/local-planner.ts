/**
 * The local text model's deterministic planner (issue 10, item 10): with no upstream credentials it
 * drives the agent's tools, so that `npm start` alone shows a whole run with real files. It is word
 * rules, not a language model (docs/local-planner.md): the request is split into media clauses
 * (plan-clauses.ts), and each turn it replays the run so far from the transcript (its own tool calls
 * and their results) and makes the next call. It keeps no state: the same transcript always gives the
 * same answer, which is what makes a resumed run continue where it stopped.
 *
 * It answers two kinds of request and leaves every other to the echo rules of local-chat.model.ts:
 * - the agent's title request (the system prompt carries TITLE_INSTRUCTION): a short title;
 * - the agent's orchestrator request (generate_image, generate_video, generate_music offered).
 */
import { AGENT_TOOLS, isMediaToolName, MEDIA_TOOL_NAMES, mediaToolFor, modalityOfTool, TITLE_INSTRUCTION } from '../../../domain/agent/agent-tools.ts';
import type { ChatMessage, ChatRequest, FunctionTool, ToolCall } from '../../../domain/chat/chat-request.types.ts';
import { textOf } from '../../../domain/chat/chat-request.types.ts';
import { isObject } from '../../../domain/chat/json-input.ts';
import { BACK_REFERENCE, type Clause, type ClauseKind, type ModelIds, parseClauses } from './plan-clauses.ts';

export type PlannerAnswer = { kind: 'text'; text: string } | { kind: 'tool'; text: string; name: string; arguments: Record<string, unknown> };

const TITLE_WORDS = 6;
const DANGLING = new Set(['a', 'an', 'the', 'of', 'in', 'on', 'at', 'for', 'with', 'and', 'or', 'to', 'from', 'by', 'this', 'that', 'my', 'your']);

export function planLocally(request: ChatRequest): PlannerAnswer | undefined {
  const system = request.system.map((p) => p.text).join('\n');
  if (system.includes(TITLE_INSTRUCTION)) return { kind: 'text', text: titleFor(lastUserText(request.messages), brandOf(system).project) };
  const tools = request.tools.filter((t): t is FunctionTool => t.type === 'function');
  // The agent's tool registry names the tools; an orchestrator request offers every media tool.
  if (!MEDIA_TOOL_NAMES.every((name) => tools.some((t) => t.name === name))) return undefined;
  return nextMove(request, system, modelIdsOf(tools));
}

/** What was asked, what was done, and what the results said, from the run's part of the transcript. */
interface Progress {
  plan: Clause[];
  /** Per clause of the plan: its result, once a call for it came back succeeded or failed. */
  results: Array<MediaResult | undefined>;
  cursor: number;
  /** The clause at the cursor was refused with a named model: the next try leaves the model out. */
  dropModel: boolean;
  asked: boolean;
  refusals: string[];
  /** The clause at the cursor named a model another one is pinned over: ask the user for it. */
  proposal?: { modality: ClauseKind; toModelId: string; reason: string };
  /** The user already decided on a model for the clause at the cursor. */
  proposed: boolean;
}

interface MediaResult {
  status: string;
  model: string;
  artifactIds: string[];
  error?: string;
  notes: string[];
}

function nextMove(request: ChatRequest, system: string, models: ModelIds): PlannerAnswer {
  const progress = replay(runMessages(request.messages), models, system);
  if (progress.proposal) {
    const { modality, toModelId, reason } = progress.proposal;
    return { kind: 'tool', text: `May I use ${toModelId}, as you asked?`, name: AGENT_TOOLS.propose_model_change.name, arguments: { modality, toModelId, reason } };
  }
  if (progress.cursor < progress.plan.length) return callFor(progress, system);
  if (progress.plan.length === 0 && !progress.asked) {
    return {
      kind: 'tool',
      text: 'I need one detail before I start.',
      name: AGENT_TOOLS.ask_clarification.name,
      arguments: {
        question: 'What should I make: an image, a video or music? Describe it in a few words, for example "an image of a red fox in the snow".',
        choices: ['an image', 'a video', 'music'],
      },
    };
  }
  return { kind: 'text', text: summary(progress, system) };
}

/**
 * The run's own messages: everything after the last answer of an earlier run (an assistant message
 * without tool calls). Its first user messages hold the request; later user messages are steering.
 */
function runMessages(messages: ChatMessage[]): ChatMessage[] {
  let start = 0;
  messages.forEach((m, i) => {
    if (m.role === 'assistant' && m.toolCalls.length === 0) start = i + 1;
  });
  return messages.slice(start).filter((m) => m.role !== 'system');
}

function replay(messages: ChatMessage[], models: ModelIds, system: string): Progress {
  const progress: Progress = { plan: [], results: [], cursor: 0, dropModel: false, asked: false, refusals: [], proposed: false };
  const results = new Map<string, unknown>();
  for (const m of messages) if (m.role === 'tool') results.set(m.toolCallId, parseJson(textOf(m.content, '')));
  const leading = messages.findIndex((m) => m.role !== 'user');
  const requestEnd = leading === -1 ? messages.length : leading;
  const request = messages[requestEnd - 1];
  const requestText = request?.role === 'user' ? textOf(request.content, ' ').trim() : '';
  progress.plan.push(...parseClauses(requestText, models));
  // "make it look like winter" with a photo attached names no medium: it is an edit of that photo.
  if (progress.plan.length === 0 && requestText !== '' && attachedFiles(system).some((f) => f.kind === 'image')) {
    progress.plan.push({ kind: 'image', prompt: requestText, subject: requestText, refersBack: true });
  }

  for (const message of messages.slice(requestEnd)) {
    if (message.role === 'user') {
      // Steering adds what it asks for to the plan; text that names no media changes nothing.
      progress.plan.push(...parseClauses(textOf(message.content, ' '), models));
      continue;
    }
    if (message.role !== 'assistant') continue;
    for (const call of message.toolCalls) applyCall(progress, call, results.get(call.id), models, requestText);
  }
  return progress;
}

function applyCall(progress: Progress, call: ToolCall, result: unknown, models: ModelIds, requestText: string): void {
  if (call.name === AGENT_TOOLS.ask_clarification.name) {
    progress.asked = true;
    const answer = isObject(result) && typeof result.answer === 'string' ? result.answer : '';
    let clauses = parseClauses(answer, models);
    // A bare "an image" answers what to make; the request says what it shows.
    if (clauses.length > 0 && clauses.every((c) => c.prompt === c.kind)) {
      const subject = requestText.trim() === '' ? answer : requestText;
      clauses = clauses.map((c) => ({ ...c, prompt: `${c.kind} of ${subject}`, subject }));
    }
    progress.plan.push(...clauses);
    return;
  }
  if (call.name === AGENT_TOOLS.propose_model_change.name) {
    const asked = progress.proposal?.toModelId ?? 'the model you named';
    progress.proposal = undefined;
    progress.proposed = true;
    // Accepted: the clause is tried again with its model. Declined: the pinned model makes it.
    if (!isObject(result) || result.decision !== 'accepted') {
      progress.dropModel = true;
      progress.refusals.push(`you kept the pinned model instead of ${asked}`);
    }
    return;
  }
  const kind: ClauseKind | undefined = isMediaToolName(call.name) ? modalityOfTool(call.name) : undefined;
  const clause = progress.plan[progress.cursor];
  if (!kind || !clause || !isObject(result)) return;
  const status = typeof result.status === 'string' ? result.status : 'failed';
  const error = typeof result.error === 'string' ? result.error : undefined;
  if (status === 'refused' && clause.model !== undefined && !progress.dropModel) {
    // Under a pinned model the user decides (rule 9): propose the named model instead of quietly
    // making it with the pinned one.
    if (error?.includes(AGENT_TOOLS.propose_model_change.name) && /\bis pinned\b/.test(error) && !progress.proposed) {
      progress.proposal = { modality: clause.kind, toModelId: clause.model, reason: `You asked for ${clause.model}; ${error.split(';')[0]}.` };
      return;
    }
    progress.dropModel = true;
    progress.refusals.push(`${clause.model} was refused (${error ?? 'no reason given'}); I used the run's default instead`);
    return;
  }
  const artifacts = Array.isArray(result.artifacts) ? result.artifacts : [];
  progress.results[progress.cursor] = {
    status,
    model: typeof result.model === 'string' ? result.model : '',
    artifactIds: artifacts.flatMap((a) => (isObject(a) && typeof a.artifactId === 'string' ? [a.artifactId] : [])),
    notes: Array.isArray(result.notes) ? result.notes.filter((n): n is string => typeof n === 'string') : [],
    ...(error !== undefined ? { error } : {}),
  };
  progress.cursor += 1;
  progress.dropModel = false;
  progress.proposed = false;
}

function callFor(progress: Progress, system: string): PlannerAnswer {
  const index = progress.cursor;
  const clause = progress.plan[index] as Clause;
  const args: Record<string, unknown> = { prompt: promptOf(progress, index, system) + brandWords(clause.kind, brandOf(system)) };
  if (clause.model !== undefined && !progress.dropModel) args.model = clause.model;
  if (clause.durationSeconds !== undefined) args.durationSeconds = clause.durationSeconds;
  if (clause.aspectRatio !== undefined) args.aspectRatio = clause.aspectRatio;
  if (clause.instrumental !== undefined) args.instrumental = clause.instrumental;
  if (clause.title !== undefined) args.title = clause.title;
  const referent = clause.refersBack ? referentOf(progress, index, system) : undefined;
  // An image or a video "of it" starts from the earlier image itself, not only its description.
  if (referent && clause.kind !== 'music' && referent.kind === 'image' && referent.artifactIds.length > 0) args.referenceArtifactIds = referent.artifactIds.slice(0, 1);
  return { kind: 'tool', text: `Making ${article(clause.kind)} ${noun(clause.kind)}: ${String(args.prompt)}.`, name: mediaToolFor(clause.kind), arguments: args };
}

interface Referent {
  kind: ClauseKind;
  subject: string;
  artifactIds: string[];
}

/** "It" is the clause before, or for a run's first clause the newest artifact of the conversation. */
function referentOf(progress: Progress, index: number, system: string): Referent | undefined {
  const previous = progress.plan[index - 1];
  if (previous) {
    const result = progress.results[index - 1];
    return { kind: previous.kind, subject: subjectOf(progress, index - 1, system), artifactIds: result?.status === 'succeeded' ? result.artifactIds : [] };
  }
  // A file attached to this request comes first: "- att_…: image, "name.png", 64×48". A mask is
  // never the subject: the original it was painted on is (the engine sends the mask after it).
  const files = attachedFiles(system);
  const originals = files.filter((f) => f.maskFor === undefined && (f.kind === 'image' || f.kind === 'video' || f.kind === 'audio'));
  const attached = originals.find((f) => files.some((m) => m.maskFor === f.id)) ?? originals.at(-1);
  if (attached) return { kind: attached.kind === 'image' ? 'image' : attached.kind === 'video' ? 'video' : 'music', subject: `the attached ${attached.kind} ${attached.name}`, artifactIds: [attached.id] };
  // A mask painted on an earlier artifact edits that artifact.
  const maskedArtifact = files.find((f) => f.maskFor?.startsWith('art_'))?.maskFor;
  if (maskedArtifact) return { kind: 'image', subject: `the image ${maskedArtifact}`, artifactIds: [maskedArtifact] };
  // The system prompt lists the conversation's artifacts as "- art_…: <type>, <prompt>", oldest first.
  const newest = [...system.matchAll(/^- (art_[A-Za-z0-9_]+): (\w+)(?:, (.*))?$/gm)].at(-1);
  if (!newest?.[1] || !newest[2]) return undefined;
  const type = newest[2].toLowerCase();
  const kind: ClauseKind = type.startsWith('image') ? 'image' : type.startsWith('video') ? 'video' : 'music';
  return { kind, subject: newest[3]?.trim() || type, artifactIds: [newest[1]] };
}

function subjectOf(progress: Progress, index: number, system: string): string {
  const clause = progress.plan[index] as Clause;
  const referent = clause.refersBack ? referentOf(progress, index, system) : undefined;
  return referent ? withReferent(clause.subject, referent.subject) : clause.subject;
}

function promptOf(progress: Progress, index: number, system: string): string {
  const clause = progress.plan[index] as Clause;
  const referent = clause.refersBack ? referentOf(progress, index, system) : undefined;
  return referent ? withReferent(clause.prompt, referent.subject) : clause.prompt;
}

interface AttachedFile {
  id: string;
  kind: string;
  name: string;
  /** The original this file is a mask for ("; a mask for att_…"). */
  maskFor?: string;
  /** Why the file was not read ("; not read: …"). */
  unread?: string;
}

/** The files of the request, as the system prompt lists them. */
function attachedFiles(system: string): AttachedFile[] {
  return [...system.matchAll(/^- (att_[A-Za-z0-9_]+): (\w+), "([^"]*)"(.*)$/gm)].flatMap((m) => {
    if (!m[1] || !m[2]) return [];
    const file: AttachedFile = { id: m[1], kind: m[2], name: m[3] ?? '' };
    const rest = m[4] ?? '';
    const mask = /; a mask for ((?:att|art)_[A-Za-z0-9_]+)/.exec(rest);
    if (mask?.[1]) file.maskFor = mask[1];
    const unread = /; not read: (.*)$/.exec(rest);
    if (unread?.[1]) file.unread = unread[1];
    return [file];
  });
}

function withReferent(text: string, subject: string): string {
  const replaced = text.replace(BACK_REFERENCE, subject);
  return replaced === text ? `${text} (${subject})` : replaced;
}

function summary(progress: Progress, system: string): string {
  // A file the user wanted read but that could not be (rule 11) is said in the answer, not left out.
  const unread = attachedFiles(system).flatMap((f) => (f.unread ? [`Note: I could not analyse ${f.name}: ${f.unread}.`] : []));
  if (progress.plan.length === 0) {
    return ['I found nothing to generate in your request. Ask for an image, a video or music, for example "an image of a red fox in the snow" or "a 5 second video of waves, then music for it".', ...unread].join('\n');
  }
  const lines: string[] = [];
  progress.plan.forEach((_clause, i) => {
    const result = progress.results[i];
    const what = capitalize(promptOf(progress, i, system));
    if (!result) lines.push(`- ${what}: not made.`);
    else if (result.status === 'succeeded') lines.push(`- ${what} (${result.model}): ${result.artifactIds.join(', ') || 'no files'}.${result.notes.length ? ` ${result.notes.join('; ')}.` : ''}`);
    else lines.push(`- ${what} ${result.status === 'refused' ? 'was refused' : 'failed'}${result.error ? `: ${result.error}` : ''}.`);
  });
  const made = progress.results.filter((r) => r?.status === 'succeeded').length;
  const head = made === progress.plan.length ? 'Done. Here is what I made:' : `I made ${made} of ${progress.plan.length}:`;
  return [head, ...lines, ...progress.refusals.map((r) => `Note: ${r}.`), ...unread].join('\n');
}

interface Brand {
  project?: string;
  name?: string;
  colours?: string;
}

/** The run's brand project as the system prompt states it ("Brand project "…"", "Brand name: …"). */
function brandOf(system: string): Brand {
  const brand: Brand = {};
  const project = /^(?:Brand project|Project) "([^"]+)"/m.exec(system)?.[1];
  if (project) brand.project = project;
  const name = /^Brand name: (.+?)\.?$/m.exec(system)?.[1];
  if (name) brand.name = name;
  const colours = /^Brand colours: (.+?)\.?$/m.exec(system)?.[1];
  if (colours) brand.colours = colours;
  return brand;
}

/** What every prompt of a brand project carries, so the brand visibly reaches the files. */
function brandWords(kind: ClauseKind, brand: Brand): string {
  const name = brand.name ?? brand.project;
  if (!name) return '';
  if (kind === 'music' || !brand.colours) return `, for ${name}`;
  return `, for ${name}, in the brand colours ${brand.colours}`;
}

/** A short title: the first clause's prompt, or else the message's first words; a project's name leads. */
function titleFor(text: string, project?: string): string {
  const clause = parseClauses(text, { image: [], video: [], music: [] })[0];
  const source = clause ? clause.prompt : text;
  const words = source.replace(/[\r\n"“”]+/g, ' ').trim().split(/\s+/).filter(Boolean).slice(0, TITLE_WORDS);
  // A title cut at six words should not end on "in" or "the".
  while (words.length > 1 && DANGLING.has((words.at(-1) ?? '').toLowerCase())) words.pop();
  const title = words.join(' ').replace(/[,.;:!?]+$/, '');
  const short = title === '' ? 'New conversation' : capitalize(title);
  return project ? `${project}: ${short}` : short;
}

function modelIdsOf(tools: FunctionTool[]): ModelIds {
  const enumOf = (tool: string, property: string): string[] => {
    const properties = tools.find((t) => t.name === tool)?.parameters.properties;
    const field = isObject(properties) ? properties[property] : undefined;
    return isObject(field) && Array.isArray(field.enum) ? field.enum.filter((id): id is string => typeof id === 'string') : [];
  };
  // A pinned medium's tool lists only the pinned model: a model the user names may still be one a
  // change can propose (the engine refuses it with the way to ask, and the planner asks).
  const proposable = enumOf(AGENT_TOOLS.propose_model_change.name, 'toModelId');
  const of = (name: string): string[] => {
    const ids = enumOf(name, 'model');
    return ids.length <= 1 && proposable.length > 0 ? [...new Set([...ids, ...proposable])] : ids;
  };
  return { image: of(mediaToolFor('image')), video: of(mediaToolFor('video')), music: of(mediaToolFor('music')) };
}

function lastUserText(messages: ChatMessage[]): string {
  const user = [...messages].reverse().find((m) => m.role === 'user');
  return user ? textOf(user.content, ' ') : '';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function noun(kind: ClauseKind): string {
  return kind === 'music' ? 'piece of music' : kind;
}

function article(kind: ClauseKind): string {
  return kind === 'image' ? 'an' : 'a';
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

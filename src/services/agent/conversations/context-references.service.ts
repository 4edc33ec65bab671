/**
 * Context references (SPEC rule 13): a conversation names other conversations of the same user and
 * storefront that its runs may search. A reference is an id or a URL of the current storefront,
 * parsed here without any HTTP request (a dashboard `/agent/c/{id}` or API `/api/v1/agent/conversations/{id}`
 * path on the request's own host). Replaced as a whole with `expectedVersion`; an empty list clears
 * access. A reference never widens access: it is re-checked when read, and the references of a
 * referenced conversation are not followed.
 */
import type { Kysely } from 'kysely';
import { type ConversationRow, findConversation, setContextReferences } from '../../../adapters/db/repositories/agent/conversations.repository.ts';
import { executorOf, type Schema } from '../../../adapters/db/schema.ts';
import { AppError, invalidInput } from '../../../domain/errors.ts';
import { type AgentCaller, ownerOf } from '../agent-caller.ts';
import type { AgentWriter } from '../events/agent-writer.ts';
import { conversationUpdated } from '../../../domain/agent/agent-events.ts';

export const MAX_CONTEXT_REFERENCES = 20;
const CONVERSATION_ID = /^conv_[0-9a-z]{1,60}$/;
const PATHS = [/^\/agent\/c\/(conv_[0-9a-z]{1,60})\/?$/, /^\/api\/v1\/agent\/conversations\/(conv_[0-9a-z]{1,60})\/?$/];

export interface ContextReference {
  targetType: 'conversation';
  targetId: string;
}

export interface ContextReferencesView {
  version: number;
  references: Array<ContextReference & { title: string | null }>;
}

export class ContextReferencesService {
  readonly #db: Kysely<Schema>;
  readonly #writer: AgentWriter;

  constructor(deps: { db: Kysely<Schema>; writer: AgentWriter }) {
    this.#db = deps.db;
    this.#writer = deps.writer;
  }

  async get(caller: AgentCaller, conversationId: string): Promise<ContextReferencesView> {
    return this.#view(caller, await this.#conversation(caller, conversationId));
  }

  async put(caller: AgentCaller, conversationId: string, body: unknown, requestHost: string | undefined): Promise<ContextReferencesView> {
    const conversation = await this.#conversation(caller, conversationId);
    const { expectedVersion, references } = parseBody(body);
    const resolved: ContextReference[] = [];
    for (const [i, ref] of references.entries()) {
      const field = `references[${i}].targetId`;
      const id = conversationIdOf(ref.targetId, requestHost, field);
      if (id === conversation.id) throw invalidInput(`${field}: a conversation cannot reference itself`, field);
      // Someone else's conversation, or a deleted one, reads as missing: the answer reveals nothing.
      if (!(await findConversation(this.#db, ownerOf(caller), id))) throw invalidInput(`${field}: no conversation ${id} of yours on this storefront`, field);
      if (!resolved.some((r) => r.targetId === id)) resolved.push({ targetType: 'conversation', targetId: id });
    }
    await this.#writer.run(async (storeTx, fx) => {
      // The writer hands out the store transaction; this service still writes through the repositories.
      const tx = executorOf(storeTx);
      if (!(await setContextReferences(tx, conversation.id, expectedVersion, JSON.stringify(resolved)))) {
        throw new AppError('version_conflict', `the context references are at another version than ${expectedVersion}; read them again`, { param: 'expectedVersion' });
      }
      await fx.emit(conversationUpdated(conversation.id, { contextReferences: resolved.length, contextVersion: expectedVersion + 1 }));
    });
    return this.get(caller, conversation.id);
  }

  async #conversation(caller: AgentCaller, id: string): Promise<ConversationRow> {
    const conversation = await findConversation(this.#db, ownerOf(caller), id);
    if (!conversation) throw new AppError('not_found', 'conversation not found');
    return conversation;
  }

  async #view(caller: AgentCaller, conversation: ConversationRow): Promise<ContextReferencesView> {
    const refs = JSON.parse(conversation.context_json) as ContextReference[];
    const references: ContextReferencesView['references'] = [];
    for (const ref of refs) {
      const target = await findConversation(this.#db, ownerOf(caller), ref.targetId);
      if (target) references.push({ ...ref, title: target.title });
    }
    return { version: Number(conversation.context_version), references };
  }
}

function parseBody(body: unknown): { expectedVersion: number; references: Array<{ targetType: string; targetId: string }> } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidInput('the body must be {expectedVersion, references}', 'body');
  const { expectedVersion, references, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw invalidInput(`unknown field ${unknown.slice(0, 80)}; allowed: expectedVersion, references`, unknown.slice(0, 80));
  if (typeof expectedVersion !== 'number' || !Number.isSafeInteger(expectedVersion) || expectedVersion < 0) throw invalidInput('expectedVersion must be the version you read (0 before the first save)', 'expectedVersion');
  if (!Array.isArray(references)) throw invalidInput('references must be an array (empty clears access)', 'references');
  if (references.length > MAX_CONTEXT_REFERENCES) throw invalidInput(`at most ${MAX_CONTEXT_REFERENCES} context references`, 'references');
  return {
    expectedVersion,
    references: references.map((ref, i) => {
      if (ref === null || typeof ref !== 'object') throw invalidInput(`references[${i}] must be {targetType, targetId}`, `references[${i}]`);
      const { targetType, targetId } = ref as Record<string, unknown>;
      if (targetType !== 'conversation') throw invalidInput(`references[${i}].targetType must be conversation (projects arrive with them)`, `references[${i}].targetType`);
      if (typeof targetId !== 'string' || targetId === '' || targetId.length > 2048) throw invalidInput(`references[${i}].targetId must be a conversation id or URL`, `references[${i}].targetId`);
      return { targetType, targetId };
    }),
  };
}

/** An id as it is, or the id in a URL of this storefront's host: read from the text, never fetched. */
export function conversationIdOf(targetId: string, requestHost: string | undefined, field: string): string {
  if (CONVERSATION_ID.test(targetId)) return targetId;
  let url: URL;
  try {
    url = new URL(targetId);
  } catch {
    throw invalidInput(`${field}: not a conversation id (conv_…) or URL`, field);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidInput(`${field}: only http(s) URLs of this storefront`, field);
  if (!requestHost || url.host.toLowerCase() !== requestHost.toLowerCase()) throw invalidInput(`${field}: the URL is not on this storefront (${requestHost ?? 'unknown host'})`, field);
  for (const path of PATHS) {
    const match = path.exec(url.pathname);
    if (match?.[1]) return match[1];
  }
  throw invalidInput(`${field}: the URL names no conversation (/agent/c/{id} or /api/v1/agent/conversations/{id})`, field);
}

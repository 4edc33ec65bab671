/**
 * The files of a run's request as the orchestrator reads them (SPEC rule 11): every original by id,
 * type and size, usable as a reference without any analysis call; masks with the original they edit;
 * and, for text and PDF files the user wants read (usageIntent auto, analyze or both), their text
 * extracted locally and free, bounded per file and in total. A modality with no local reading is said
 * to be unread, never guessed.
 */
import type { ContentBlock } from '../conversations/message-input.ts';
import { TEXT_EXCERPT_CHARS } from '../attachments/file-checks.ts';
import type { StepRow } from '../../../ports/agent-store.port.ts';
import { targetOf } from './run-state.ts';
import type { EngineDeps } from './engine-deps.ts';

/** What the completion kept of each file. */
const MAX_FILE_CHARS = TEXT_EXCERPT_CHARS;
const MAX_TOTAL_CHARS = 60_000;

export interface RequestFile {
  id: string;
  name: string;
  kind: string;
  mime: string;
  /** "64×48", "12.5 s", "3 pages". */
  size: string;
  intent: string;
  maskFor?: string;
  /** Text read locally (free), when the user wants the file read and it is text or PDF. */
  text?: string;
  /** A model's description of a picture (a billed analysis step). */
  analysis?: string;
  /** Why a file the user wants read was not read. */
  unread?: string;
}

export async function requestFiles(deps: EngineDeps, conversationId: string, contentJson: string | undefined, steps: StepRow[] = []): Promise<RequestFile[]> {
  if (contentJson === undefined) return [];
  const content = JSON.parse(contentJson) as ContentBlock[];
  const files: RequestFile[] = [];
  let budget = MAX_TOTAL_CHARS;
  for (const { block, row, facts } of await deps.attachments.forBlocks(conversationId, content)) {
    const kind = facts?.kind ?? 'file';
    const file: RequestFile = { id: row.id, name: row.name, kind, mime: row.mime, size: describeSize(facts), intent: block.usageIntent };
    if (block.maskFor) file.maskFor = block.maskFor.id;
    const wantsReading = block.usageIntent !== 'reference' && !block.maskFor;
    if (wantsReading && (kind === 'text' || kind === 'pdf')) {
      // Read once when the file was completed (in the CPU pool), never again at each step.
      const text = (await deps.attachments.textOf(row)).slice(0, Math.min(MAX_FILE_CHARS, budget));
      if (text.trim() === '') file.unread = kind === 'pdf' ? 'no text could be read from this PDF locally (scanned pages or embedded fonts)' : 'the file is empty';
      else {
        file.text = text;
        budget -= text.length;
      }
    } else if (wantsAnalysis(block.usageIntent) && kind === 'image') {
      const analysis = steps.find((s) => s.kind === 'analysis' && targetOf(s) === row.id);
      const output = analysis?.output_json ? (JSON.parse(analysis.output_json) as { text?: string; unavailable?: string }) : undefined;
      if (output?.text !== undefined) file.analysis = output.text.slice(0, MAX_FILE_CHARS);
      else file.unread = output?.unavailable ? `not analysed: ${output.unavailable}` : 'the analysis call failed';
    } else if (wantsAnalysis(block.usageIntent)) {
      file.unread = `model analysis of ${kind} files is not available on this gateway; the file can be used as a reference`;
    }
    files.push(file);
  }
  return files;
}

function wantsAnalysis(intent: string): boolean {
  return intent === 'analyze' || intent === 'both';
}

function describeSize(facts: { width?: number; height?: number; durationS?: number; pages?: number; chars?: number } | null): string {
  if (!facts) return '';
  if (facts.width !== undefined && facts.height !== undefined) return `${facts.width}×${facts.height}${facts.durationS !== undefined ? `, ${facts.durationS} s` : ''}`;
  if (facts.durationS !== undefined) return `${facts.durationS} s`;
  if (facts.pages !== undefined) return `${facts.pages} page${facts.pages === 1 ? '' : 's'}`;
  if (facts.chars !== undefined) return `${facts.chars} characters`;
  return '';
}

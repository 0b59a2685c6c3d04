import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { answerState } from '../task/question-section.js';
import type { VaultLayout } from './layout.js';
import { isTaskFileName } from './names.js';

/** A task in Blocked/: its agent's question, waiting for a person's answer. */
export interface BlockedTask {
  name: string;
  file: string;
  /** The question, on one line and cut short for a list ('' when the file has none or does not parse). */
  question: string;
}

/** The tasks in Blocked/, sorted by name, each with its question in short (status, Dashboard). */
export async function listBlocked(layout: VaultLayout, maxChars = 120): Promise<BlockedTask[]> {
  const names = (await readdir(layout.blocked).catch(() => [] as string[])).filter(isTaskFileName).sort();
  const out: BlockedTask[] = [];
  for (const name of names) {
    const file = join(layout.blocked, name);
    // The raw text, not a parse: status stays quick, and the frontmatter holds no `## ` heading.
    const raw = await readFile(file, 'utf8').catch(() => null);
    const state = raw === null ? null : answerState(raw);
    const text = state === null || state.kind === 'none' ? '' : state.question.replace(/\s+/g, ' ').trim();
    out.push({ name, file, question: text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text });
  }
  return out;
}

/** The lines `wiggum status` shows for them, or '' when Blocked/ is empty. */
export function blockedText(blocked: readonly BlockedTask[]): string {
  if (blocked.length === 0) return '';
  const lines = blocked.map(
    (task) =>
      `  ${task.name.replace(/\.md$/i, '')}: ${task.question === '' ? '(no question in the file)' : task.question}`,
  );
  return `\nBlocked: a question for a person (answer under ## Answer and move it back to Approved/, or wiggum answer ID "text"):\n${lines.join('\n')}\n`;
}

import { z } from 'zod';
import type { ChecklistStory } from '../task/stories.js';
import { checkSchema, parseJsonText } from './json-text.js';

/**
 * prd.json as in the original Ralph (snarktank/ralph). Agents and users add their own fields, so unknown
 * keys are kept (`.loose()`) at every level.
 */
export const userStorySchema = z
  .object({
    id: z.string().min(1),
    title: z.string(),
    priority: z.number().finite(),
    passes: z.boolean(),
    description: z.string().optional(),
    acceptanceCriteria: z.array(z.string()).optional(),
    notes: z.string().optional(),
  })
  .loose();

export const prdSchema = z
  .object({
    projectName: z.string().optional(),
    branchName: z.string().optional(),
    description: z.string().optional(),
    userStories: z.array(userStorySchema),
  })
  .loose();

export type UserStory = z.infer<typeof userStorySchema>;
export type Prd = z.infer<typeof prdSchema>;

/** How long the one story of a task without a checklist may describe itself. */
export const DESCRIPTION_LIMIT = 500;

export interface BuildPrdInput {
  taskId: string;
  title: string;
  branchName?: string | null | undefined;
  /** The task body (or its description); its first paragraph is used. */
  description: string;
  stories: readonly ChecklistStory[];
}

/**
 * The prd.json a new session starts from: one story per checklist item (a `- [x]` item already
 * passes), or, for a task without a checklist, one story for the whole task so that the loop
 * always has something to mark.
 */
export function buildPrd(input: BuildPrdInput): Prd {
  const paragraph = firstParagraph(input.description);
  const title = input.title.trim() === '' ? input.taskId : input.title.trim();
  // A task without a checklist has no stories: it is complete when the agent says so (and the
  // verify check, if any, passes), not when a story nobody wrote is marked passing.
  const userStories: UserStory[] = input.stories.map((story) => ({
    id: story.id,
    title: story.title,
    priority: story.priority,
    passes: story.checked,
    acceptanceCriteria: [...story.acceptanceCriteria],
  }));
  const prd: Prd = { projectName: title, userStories };
  if (input.branchName !== undefined && input.branchName !== null && input.branchName !== '')
    prd.branchName = input.branchName;
  if (paragraph !== '') prd.description = paragraph;
  return prd;
}

/**
 * The checklist items the user added to the task's body since prd.json was made (by id), appended
 * as new stories after the existing ones; null when there are none. Stories are never removed or
 * reset here: prd.json is the agent's memory, and a story it marked passing stays so.
 */
export function withAddedStories(prd: Prd, stories: readonly ChecklistStory[]): Prd | null {
  const known = new Set(prd.userStories.map((story) => story.id));
  const added = stories.filter((story) => !known.has(story.id));
  if (added.length === 0) return null;
  const last = prd.userStories.reduce((max, story) => Math.max(max, story.priority), 0);
  return {
    ...prd,
    userStories: [
      ...prd.userStories,
      ...added.map((story, index) => ({
        id: story.id,
        title: story.title,
        priority: last + index + 1,
        passes: story.checked,
        acceptanceCriteria: [...story.acceptanceCriteria],
      })),
    ],
  };
}

/**
 * Reads prd.json text. Anything that is not valid JSON or not a PRD is E_MEMORY_CORRUPT naming the
 * file and the problem; a default is never returned in its place.
 */
export function parsePrd(text: string, path: string): Prd {
  return checkSchema(prdSchema, parseJsonText(text, path), path);
}

export function serializePrd(prd: Prd): string {
  return `${JSON.stringify(prd, null, 2)}\n`;
}

export interface StorySummary {
  total: number;
  passing: number;
  /** The story to work on next: the lowest priority number that does not pass yet (first in file order on a tie). */
  nextStory: UserStory | null;
}

export function storySummary(prd: Prd): StorySummary {
  let nextStory: UserStory | null = null;
  let passing = 0;
  for (const story of prd.userStories) {
    if (story.passes) passing += 1;
    else if (nextStory === null || story.priority < nextStory.priority) nextStory = story;
  }
  return { total: prd.userStories.length, passing, nextStory };
}

/**
 * The first paragraph of Markdown prose: headings, checklists, fences and front matter are passed
 * over, whitespace is collapsed, and the text is cut at a word boundary near `limit`.
 */
export function firstParagraph(markdown: string, limit = DESCRIPTION_LIMIT): string {
  const blocks = markdown.replace(/\r\n?/g, '\n').split(/\n[ \t]*\n/);
  let inFence = false;
  for (const block of blocks) {
    const lines = block.split('\n').filter((line) => line.trim() !== '');
    const prose: string[] = [];
    for (const line of lines) {
      if (/^ {0,3}(`{3,}|~{3,})/.test(line)) {
        inFence = !inFence;
        continue;
      }
      if (inFence) continue;
      if (
        /^ {0,3}#{1,6}(\s|$)/.test(line) ||
        /^ {0,3}[-*+][ \t]+\[[ xX]\]/.test(line) ||
        /^ {0,3}(-{3,}|\*{3,}|_{3,})\s*$/.test(line)
      )
        continue;
      prose.push(line.trim());
    }
    if (prose.length > 0) return truncate(prose.join(' ').replace(/\s+/g, ' '), limit);
  }
  return '';
}

function truncate(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const cut = text.slice(0, limit);
  const space = cut.lastIndexOf(' ');
  return `${(space > limit * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

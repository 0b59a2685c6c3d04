/**
 * A story taken from the task body's checklist. It seeds prd.json's `userStories` when the user
 * supplies no prd.json of their own.
 */
export interface ChecklistStory {
  id: string;
  title: string;
  /** 1 is done first, as in prd.json. */
  priority: number;
  /** `- [x]` items start out passing. */
  checked: boolean;
  /** Indented bullets under the item. */
  acceptanceCriteria: string[];
  /** 1-based line of the item in the body. */
  line: number;
}

const ITEM = /^ {0,3}[-*+][ \t]+\[([ xX])\][ \t]+(.+?)\s*$/;
const SUB_ITEM = /^(?: {2,}|\t+)[-*+][ \t]+(?:\[[ xX]\][ \t]+)?(.+?)\s*$/;
const STORY_ID = /^([A-Za-z][A-Za-z0-9]*-\d+)(?:[ \t]*[:.\u2013\u2014-][ \t]*|[ \t]+)(.*)$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Reads `- [ ] US-001 Title` items (ids are optional: unnamed items are numbered US-001, US-002, …
 * by position) with their indented sub-bullets as acceptance criteria. Code blocks are skipped.
 */
export function parseChecklist(body: string): ChecklistStory[] {
  const stories: ChecklistStory[] = [];
  const usedIds = new Set<string>();
  let fence: string | null = null;
  let current: ChecklistStory | null = null;
  const lines = body.split('\n');

  for (let index = 0; index < lines.length; index += 1) {
    const line = (lines[index] ?? '').replace(/\r$/, '');
    const fenceMatch = FENCE.exec(line);
    if (fenceMatch?.[1] !== undefined) {
      const marker = fenceMatch[1];
      if (fence === null) fence = marker[0]!.repeat(3);
      else if (marker.startsWith(fence)) fence = null;
      current = null;
      continue;
    }
    if (fence !== null) continue;

    const item = ITEM.exec(line);
    if (item !== null) {
      const text = item[2] ?? '';
      const named = STORY_ID.exec(text);
      let id = named?.[1] ?? '';
      let title = named === null ? text : (named[2] ?? '').trim() || text;
      if (id === '' || usedIds.has(id)) {
        id = nextFreeId(usedIds, stories.length + 1);
        title = text;
      }
      usedIds.add(id);
      current = {
        id,
        title,
        priority: stories.length + 1,
        checked: item[1] !== ' ',
        acceptanceCriteria: [],
        line: index + 1,
      };
      stories.push(current);
      continue;
    }

    const sub = current === null ? null : SUB_ITEM.exec(line);
    if (current !== null && sub?.[1] !== undefined) {
      current.acceptanceCriteria.push(sub[1]);
    } else if (line.trim() !== '') {
      current = null;
    }
  }
  return stories;
}

function nextFreeId(used: Set<string>, position: number): string {
  let n = position;
  let id = `US-${String(n).padStart(3, '0')}`;
  while (used.has(id)) {
    n += 1;
    id = `US-${String(n).padStart(3, '0')}`;
  }
  return id;
}

/** Ticks the checklist items on the given 1-based body lines (`- [ ]` → `- [x]`); nothing else changes. */
export function tickChecklistLines(body: string, lines: number[]): string {
  if (lines.length === 0) return body;
  const wanted = new Set(lines);
  const parts = body.split('\n');
  for (const line of wanted) {
    const text = parts[line - 1];
    if (text !== undefined) parts[line - 1] = text.replace(/^( {0,3}[-*+][ \t]+\[) \]/, '$1x]');
  }
  return parts.join('\n');
}

/**
 * What a report shows of agent-written lists and text is bounded: the agent decides how many
 * stories prd.json holds and how long their titles are, and a task note is read by a person and
 * must stay under the task-size limit (task/limits.ts). Pure, table-tested.
 */

import { inertLine } from '../task/inert-text.js';

/** At most this many stories are listed in a report; the rest are counted. */
export const STORIES_SHOWN = 50;
/** A story's id and title are cut to this many characters each. */
export const STORY_TEXT_CHARS = 120;

export interface ShownStory {
  id: string;
  title: string;
  passes: boolean;
}

/** Pure: `text` cut to `max` characters, with an ellipsis saying it was cut. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  // Never half a surrogate pair: the cut keeps whole code points.
  const head = Array.from(text.slice(0, max)).join('');
  const whole = head.length > 0 && /[\uD800-\uDBFF]$/.test(head) ? head.slice(0, -1) : head;
  return `${whole}… (cut: ${text.length.toLocaleString('en-US')} characters)`;
}

/**
 * Pure: the stories a report lists (at most STORIES_SHOWN, the ones still failing first so a
 * person sees what is left, each id and title cut) and how many more there are.
 */
export function shownStories(stories: readonly ShownStory[]): { shown: ShownStory[]; more: number } {
  const ordered =
    stories.length <= STORIES_SHOWN
      ? stories
      : [...stories.filter((s) => !s.passes), ...stories.filter((s) => s.passes)];
  const shown = ordered.slice(0, STORIES_SHOWN).map((story) => ({
    id: cutText(story.id, STORY_TEXT_CHARS),
    title: cutText(story.title, STORY_TEXT_CHARS),
    passes: story.passes,
  }));
  return { shown, more: stories.length - shown.length };
}

/** Pure: "… and 699,990 more" for stories not listed, or '' when every one is. */
export function moreStories(more: number): string {
  return more > 0 ? `; … and ${more.toLocaleString('en-US')} more (all of them are in prd.json)` : '';
}

/** Pure: the report's `- Stories:` line: how many pass, and the stories listed within the bounds. */
export function storyLine(stories: readonly ShownStory[]): string {
  if (stories.length === 0) return 'none.';
  const passing = stories.filter((story) => story.passes).length;
  const { shown, more } = shownStories(stories);
  // Cut first, then made inert (task/inert-text.ts): an escape is never cut in half.
  const listed = shown.map(
    (story) => `${story.passes ? '✓' : '✗'} ${inertLine(story.id, Infinity)} ${inertLine(story.title, Infinity)}`,
  );
  return `${passing} of ${stories.length} passing (${listed.join('; ')}${moreStories(more)}).`;
}

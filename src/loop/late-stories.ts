import type { Prd, UserStory } from '../memory/prd.js';
import type { IterationRun } from './iteration.js';
import type { IterationOutcome } from './outcome.js';

/**
 * Stories the user added to the task's checklist while an iteration ran. The agent never saw them
 * (its prompt and prd.json were made before), so its completion claim cannot cover them: the claim
 * is refused and the next iteration works on them, or, with no iteration left, the failure report
 * names them as added too late. Nothing the user adds is dropped.
 */

/** Stories in `after` (prd.json once the checklist was read again) that `seen` lacked and that do not pass. */
export function storiesAddedDuring(seen: Prd, after: Prd): UserStory[] {
  const known = new Set(seen.userStories.map((story) => story.id));
  return after.userStories.filter((story) => !known.has(story.id) && !story.passes);
}

/** "S-2 added late, S-3 docs": how the reports and the log name them. */
export function nameStories(stories: readonly Pick<UserStory, 'id' | 'title'>[]): string {
  return stories.map((story) => `${story.id} ${story.title}`.trim()).join(', ');
}

/** Why a claim is refused when stories were added during the run; goes into the next prompt. */
export function addedStoriesRefusal(added: readonly Pick<UserStory, 'id' | 'title'>[]): string {
  return (
    `You printed the completion promise, but while you worked the user added ${added.length === 1 ? 'a story' : 'stories'} to the task's checklist: ` +
    `${nameStories(added)}. ${added.length === 1 ? 'It is' : 'They are'} now in prd.json with "passes": false; work on ${added.length === 1 ? 'it' : 'them'} before claiming completion.`
  );
}

/**
 * The iteration's outcome and history line once the checklist has been read again after the run.
 * An accepted claim becomes a refused one while an added story fails; the line counts the stories
 * the task has now. Anything else is returned as it was.
 */
export function withStoriesAddedDuringRun(
  run: Pick<IterationRun, 'outcome' | 'record'>,
  added: readonly UserStory[],
  after: Prd,
): Pick<IterationRun, 'outcome' | 'record'> {
  if (added.length === 0) return run;
  const record = {
    ...run.record,
    storiesPassing: after.userStories.filter((story) => story.passes).length,
    storiesTotal: after.userStories.length,
  };
  const { outcome } = run;
  if (outcome.kind !== 'claimed' || !outcome.accepted) return { outcome, record };
  const refusal = addedStoriesRefusal(added);
  const refused: IterationOutcome = { ...outcome, accepted: false, refusal };
  return { outcome: refused, record: { ...record, outcome: 'refused', completionAccepted: false, refusal } };
}

/** A rejection's reason, with the stories that came too late for any iteration to work on. */
export function withLateStoriesNote(reason: string, late: readonly Pick<UserStory, 'id' | 'title'>[]): string {
  if (late.length === 0) return reason;
  const which = nameStories(late);
  return `${reason}; added too late: ${which} ${late.length === 1 ? 'was' : 'were'} added to the checklist during the last iteration, and no iteration was left to work on ${late.length === 1 ? 'it' : 'them'}`;
}

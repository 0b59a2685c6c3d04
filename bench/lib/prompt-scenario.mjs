// One task with 5 stories, and the memory a loop has for it at iteration 1 and at iteration 10, as
// plain data: the prompt-economy phase builds wiggum's prompt from it, and bench/peers/ builds
// each peer's prompt for the same task from it. Nothing here depends on dist/.
import { taskText } from './fixtures.mjs';

const TASK_INDEX = 0; // area "billing"
export const STORY_COUNT = 5;
export const MAX_ITERATIONS = 10;
export const PROMISE = 'COMPLETE';
export const TASK_ID = 'improve-billing-flow';
export const SESSION_DIR = `/home/me/vault/.wiggum/sessions/${TASK_ID}`;
export const START_MS = Date.parse('2026-01-27T10:05:00Z');

/** The user's words added mid-loop by iteration 10 (`wiggum context add`, ralph's `--add-context`). */
export const CONTEXT_NOTE =
  'Keep the v1 route: the mobile app still calls it. Use the `AppError` helpers for every new error.';

const text = taskText(TASK_INDEX, { stories: STORY_COUNT });
const front = text.slice(0, text.indexOf('\n---\n', 4) + 5);

/** The task's title (frontmatter `title:` without its comment) and its body, as the user wrote them. */
export const TITLE = /^title: (.*?)\s+#/m.exec(front)[1];
export const BRANCH = /^branch: (\S+)/m.exec(front)[1];
export const BODY = text.slice(front.length);

/** The stories of the body's checklist: id, title and the indented acceptance criteria. */
export const STORIES = [...BODY.matchAll(/^- \[ \] (US-\d+) (.+)\n((?: {2}- .+\n)+)/gm)].map((m, index) => ({
  id: m[1],
  title: m[2],
  priority: index + 1,
  acceptanceCriteria: m[3]
    .trimEnd()
    .split('\n')
    .map((line) => line.replace(/^ {2}- /, '')),
}));
if (STORIES.length !== STORY_COUNT) throw new Error(`prompt scenario: ${STORIES.length} stories parsed`);

/**
 * The loop's memory before iteration `n` (1 or 10): stories 1–4 pass by iteration 10 and the fifth is
 * under way, the body's checklist is ticked as wiggum ticks it, nine progress entries with learnings
 * and three codebase patterns were written by the agent, and the user has added one note.
 */
export function memoryAt(n) {
  const passing = n === 1 ? 0 : STORY_COUNT - 1;
  const body = BODY.replace(/^- \[ \] (US-\d+)/gm, (line, id) =>
    Number(id.slice(3)) <= passing ? line.replace('[ ]', '[x]') : line,
  );
  return {
    iteration: n,
    passing,
    body,
    context: n === 1 ? '' : CONTEXT_NOTE,
    progressEntries: n - 1,
    stories: STORIES.map((story) => ({ ...story, passes: story.priority <= passing })),
  };
}

/** progress.txt as the agent leaves it after `entries` iterations (the format both Ralph loops ask for). */
export function progressText(entries) {
  const date = (k) => new Date(START_MS + k * 23 * 60_000).toISOString().slice(0, 19).replace('T', ' ');
  const patterns =
    entries < 3
      ? []
      : [
          '- Billing handlers validate with `parseInput` before touching the service',
          '- `npm test -- billing` runs only the billing suite (about 20 s)',
          '- Errors are `AppError(code, message)`; the codes live in `src/errors.ts`',
        ];
  const lines = [
    `# Ralph Progress Log`,
    `Started: ${date(0)} UTC`,
    '---',
    '',
    '## Codebase Patterns',
    ...patterns,
    '',
    '---',
  ];
  for (let k = 1; k <= entries; k += 1) {
    const story = STORIES[Math.min(Math.floor((k - 1) / 2), STORY_COUNT - 1)];
    lines.push(
      '',
      `## ${date(k)} UTC - ${story.id}`,
      `- ${k % 2 === 1 ? 'Implemented' : 'Fixed the failing test of'} ${story.title.toLowerCase()} in services/billing/`,
      `- Files changed: services/billing/handler.ts, services/billing/handler.test.ts${k % 3 === 0 ? ', src/errors.ts' : ''}`,
      '- **Learnings for future iterations:**',
      `  - the billing fixtures in test/fixtures/billing/ must be regenerated after a schema change (step ${k})`,
      '  - the lint rule on floating promises flags un-awaited audit writes',
      '---',
    );
  }
  return `${lines.join('\n')}\n`;
}

/** prd.json as snarktank/ralph's skill writes it for this task (its `prd.json.example` shape). */
export function snarktankPrd(memory) {
  return `${JSON.stringify(
    {
      project: TITLE,
      branchName: BRANCH,
      description:
        'Improve the billing flow: tidy the server side, add the missing checks, say what the page is doing.',
      userStories: memory.stories.map((story) => ({
        id: story.id,
        title: story.title,
        description: `As a user of the billing pages, I want: ${story.title.toLowerCase()}.`,
        acceptanceCriteria: story.acceptanceCriteria,
        priority: story.priority,
        passes: story.passes,
        notes: '',
      })),
    },
    null,
    2,
  )}\n`;
}

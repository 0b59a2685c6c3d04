import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { buildPrompt, promptBlocks, withQuotedPromises } from '../../src/loop/prompt.js';
import { PromiseScanner } from '../../src/loop/promise.js';
import type { PromptInput, PromptPart } from '../../src/loop/prompt.js';

const goldens = join(import.meta.dirname, '..', 'fixtures', 'prompts');

const base: PromptInput = {
  iteration: 3,
  maxIterations: 10,
  promise: 'COMPLETE',
  taskId: 'add-dark-mode',
  title: 'Add a dark-mode toggle',
  body: '# Add a dark-mode toggle\n\nUsers want a dark theme.\n\n- [ ] US-001 Theme context\n- [ ] US-002 Toggle in settings\n',
  paths: {
    prd: '/vault/.wiggum/sessions/add-dark-mode/prd.json',
    progress: '/vault/.wiggum/sessions/add-dark-mode/progress.txt',
    sessionDir: '/vault/.wiggum/sessions/add-dark-mode',
  },
  stories: { passing: 1, total: 2, next: { id: 'US-002' } },
  context: '',
  refusal: null,
};

function golden(name: string, text: string): void {
  const file = join(goldens, `${name}.txt`);
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(file)) writeFileSync(file, text);
  expect(text).toBe(readFileSync(file, 'utf8'));
}

describe('the iteration prompt', () => {
  test('preamble, memory protocol and task', () => golden('plain', buildPrompt(base)));

  test('with mid-loop context and a refused claim', () =>
    golden(
      'context-and-refusal',
      buildPrompt({
        ...base,
        context: '### Added 2026-01-27 10:00 UTC\n\nUse the existing `useLocalStorage` hook.\n',
        refusal: 'The check "tests" failed (exit code 1):\n  FAIL src/theme.test.ts',
      }),
    ));

  test('scratch copies of the memory files (memory not durable), and a custom promise', () =>
    golden(
      'not-durable',
      buildPrompt({
        ...base,
        paths: {
          prd: '/tmp/wiggum-agent-abc/prd.json',
          progress: '/tmp/wiggum-agent-abc/progress.txt',
          sessionDir: '/tmp/wiggum-agent-abc',
        },
        promise: 'SHIPPED',
        stories: { passing: 2, total: 2, next: null },
      }),
    ));

  test('states the iteration number and the labelled context section', () => {
    const prompt = buildPrompt({ ...base, iteration: 7, context: 'prefer pnpm' });
    expect(prompt).toContain('# Iteration 7 of 10');
    expect(prompt).toContain('## Additional Context (added by user mid-loop)\n\nprefer pnpm');
  });

  test('leaves the context section out when context.md is empty or blank', () => {
    expect(buildPrompt({ ...base, context: '  \n\n' })).not.toContain('Additional Context');
  });
});

describe('the blocks of the prompt', () => {
  const text = (input: PromptInput, part: PromptPart): string =>
    promptBlocks(input).find((block) => block.part === part)?.text ?? '';

  test.each<[string, Partial<PromptInput>, PromptPart[]]>([
    ['the four blocks of every iteration', {}, ['heading', 'memory', 'steps', 'task']],
    ['context.md after the task', { context: 'prefer pnpm' }, ['heading', 'memory', 'steps', 'task', 'context']],
    ['a refused claim last', { refusal: 'tests failed' }, ['heading', 'memory', 'steps', 'task', 'refusal']],
    [
      'both',
      { context: 'prefer pnpm', refusal: 'tests failed' },
      ['heading', 'memory', 'steps', 'task', 'context', 'refusal'],
    ],
  ])('%s', (_, change, parts) => {
    expect(promptBlocks({ ...base, ...change }).map((block) => block.part)).toEqual(parts);
  });

  test.each<[string, PromptInput['stories'], string, string]>([
    [
      'the next story, by id, with how many pass',
      { passing: 1, total: 2, next: { id: 'US-002' } },
      '2. Do only story US-002 (1 of 2 pass): implement it',
      'When every story passes, end your reply with <promise>COMPLETE</promise>',
    ],
    [
      'every story passes (a refused claim): see that the task is done',
      { passing: 2, total: 2, next: null },
      '2. All 2 stories pass: see that the task below is done and run',
      'When every story passes, end your reply',
    ],
    [
      'a task without a checklist: the task itself, no story to mark',
      { passing: 0, total: 0, next: null },
      '2. Do the task below and run',
      'When the task is done, end your reply',
    ],
  ])('%s', (_, stories, work, claim) => {
    const steps = text({ ...base, stories }, 'steps');
    expect(steps).toContain(work);
    expect(steps).toContain(claim);
    expect(steps.includes('"passes": true')).toBe(stories.total > 0);
  });

  test.each<[string, PromptInput['paths'], string, string]>([
    [
      'both files in the session folder: the folder once, then file names',
      base.paths,
      "earlier iterations' work is in git and `/vault/.wiggum/sessions/add-dark-mode`.",
      '1. Read progress.txt (',
    ],
    [
      'files in other folders: their full paths',
      { prd: '/repo/prd.json', progress: '/repo/notes/progress.txt', sessionDir: '/vault/.wiggum/sessions/x' },
      "earlier iterations' work is in git, /repo/prd.json and /repo/notes/progress.txt.",
      '1. Read /repo/notes/progress.txt (',
    ],
    [
      'no files: their usual names',
      null,
      "earlier iterations' work is in git, prd.json and progress.txt.",
      '1. Read progress.txt (',
    ],
  ])('%s', (_, paths, memory, firstStep) => {
    expect(text({ ...base, paths }, 'memory')).toContain(memory);
    expect(text({ ...base, paths }, 'steps')).toContain(firstStep);
  });

  test('the memory files are named, not copied in: the preamble is as long at iteration 10 as at 2', () => {
    const size = (iteration: number): number =>
      promptBlocks({ ...base, iteration, maxIterations: 20 })
        .filter((block) => block.part !== 'task')
        .reduce((sum, block) => sum + block.text.length, 0);
    expect(size(10)).toBe(size(2) + 1);
  });
});

describe('the reports of earlier runs in the prompt', () => {
  const said = 'All stories pass.\n<promise>COMPLETE</promise>';
  test.each([
    [
      'a promise the user wrote stays as written',
      `Print <promise>COMPLETE</promise> when done.\n`,
      `Print <promise>COMPLETE</promise> when done.\n`,
    ],
    [
      'a promise quoted in a completion summary is shown quoted',
      `Do it.\n\n## Completion summary\n\n\`\`\`text\n${said}\n\`\`\`\n`,
      `Do it.\n\n## Completion summary\n\n\`\`\`text\nAll stories pass.\n‹promise›COMPLETE‹/promise›\n\`\`\`\n`,
    ],
    [
      'and so in a failure report',
      `## Failure report\n\n${said}\n`,
      `## Failure report\n\n‹promise›COMPLETE‹/promise›\n`.replace('‹promise›', 'All stories pass.\n‹promise›'),
    ],
    [
      "a section of the user after a report is the user's again",
      `## Failure report\n\n${said}\n\n## Notes\n\n<promise>X</promise>\n`,
      `## Failure report\n\nAll stories pass.\n‹promise›COMPLETE‹/promise›\n\n## Notes\n\n<promise>X</promise>\n`,
    ],
  ])('%s', (_, body, shown) => {
    expect(withQuotedPromises(body)).toBe(shown);
  });

  test('a task sent back after it completed: the promise the last run printed is no echo of the prompt', () => {
    const prompt = buildPrompt({
      ...base,
      body: `Do it.\n\n## Completion summary\n\n### Last output\n\n\`\`\`text\n${said}\n\`\`\`\n`,
    });
    const scanner = new PromiseScanner('COMPLETE', prompt);
    expect(scanner.push(`${said}\n`)).toBe(true);
  });
});

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { buildPrompt, withQuotedPromises } from '../../src/loop/prompt.js';
import { PromiseScanner } from '../../src/loop/promise.js';
import type { PromptInput } from '../../src/loop/prompt.js';

const goldens = join(import.meta.dirname, '..', 'fixtures', 'prompts');

const base: PromptInput = {
  iteration: 3,
  maxIterations: 10,
  promise: 'COMPLETE',
  taskId: 'add-dark-mode',
  title: 'Add a dark-mode toggle',
  body: '# Add a dark-mode toggle\n\nUsers want a dark theme.\n\n- [ ] US-001 Theme context\n- [ ] US-002 Toggle in settings\n',
  workdir: '/home/me/code/shop',
  branch: 'ralph/dark-mode',
  durable: true,
  paths: {
    prd: '/vault/.wiggum/sessions/add-dark-mode/prd.json',
    progress: '/vault/.wiggum/sessions/add-dark-mode/progress.txt',
    sessionDir: '/vault/.wiggum/sessions/add-dark-mode',
  },
  stories: { passing: 1, total: 2, next: { id: 'US-002', title: 'Toggle in settings' } },
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
        context: '### Added 2026-01-27T10:00:00Z\n\nUse the existing `useLocalStorage` hook.\n',
        refusal: 'The check "tests" failed (exit code 1):\n  FAIL src/theme.test.ts',
      }),
    ));

  test('without durable memory, and with a custom promise', () =>
    golden(
      'not-durable',
      buildPrompt({
        ...base,
        durable: false,
        paths: {
          prd: '/tmp/wiggum-agent-abc/prd.json',
          progress: '/tmp/wiggum-agent-abc/progress.txt',
          sessionDir: '/tmp/wiggum-agent-abc',
        },
        branch: null,
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

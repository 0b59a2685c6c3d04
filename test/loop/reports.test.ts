import { describe, expect, test } from 'vitest';
import type { ErrorCode } from '../../src/errors.js';
import type { IterationRecord } from '../../src/memory/history.js';
import { NOTHING_SPENT } from '../../src/memory/spent.js';
import { completionSummary, failureReport, fence, invalidTaskReport, isAgentReported } from '../../src/loop/reports.js';
import type { FailureFacts, LoopFacts } from '../../src/loop/reports.js';

/** The two reports a finished task gets, built from plain facts: what a person reads in Done/ and Rejected/. */
const facts: LoopFacts = {
  taskId: 'add-dark-mode',
  harness: 'claude',
  iterations: 3,
  maxIterations: 10,
  startedAt: '2027-01-15T08:00:00Z',
  endedAt: '2027-01-15T08:04:10Z',
  activeMs: 250_000,
  spent: NOTHING_SPENT,
  stories: [
    { id: 'US-001', title: 'Toggle', passes: true },
    { id: 'US-002', title: 'Persist', passes: false },
  ],
  sessionDir: '.wiggum/sessions/add-dark-mode',
  history: [],
  lastOutput: '',
};

const run = (iteration: number, attempt: number, extra: Partial<IterationRecord> = {}): IterationRecord =>
  ({
    iteration,
    attempt,
    startedAt: '2027-01-15T08:00:00Z',
    durationMs: 1500,
    exitCode: 0,
    signal: null,
    outcome: 'continue',
    completionFound: false,
    storiesPassing: 1,
    storiesTotal: 2,
    nextState: 'next iteration',
    ...extra,
  }) as IterationRecord;

const failure = (extra: Partial<FailureFacts> = {}): FailureFacts => ({
  ...facts,
  code: 'E_MAX_ITERATIONS',
  reason: 'reached max_iterations (10)',
  failedIteration: 10,
  errorDetail: '',
  errorChain: null,
  checkpoint: { completed_steps: ['US-001'], current_step: 'US-002' },
  logFile: '.wiggum/sessions/add-dark-mode/logs/0010.log',
  ...extra,
});

describe('the completion summary', () => {
  test.each<[string, Partial<LoopFacts>, string[]]>([
    ['one iteration, counted in the singular', { iterations: 1 }, ['after 1 iteration, 250 s of work']],
    [
      'retries said beside the iterations',
      { history: [run(1, 0), run(2, 0), run(2, 1)] },
      ['after 3 iterations and 1 retry,'],
    ],
    ['each story with whether it passes', {}, ['Stories: 1 of 2 passing (✓ US-001 Toggle; ✗ US-002 Persist).']],
    ['no stories', { stories: [] }, ['- Stories: none.']],
    ['memory that was not durable', { sessionDir: null }, ['- Memory: not durable in this run']],
    ['the last output, fenced', { lastOutput: 'All done.\n' }, ['### Last output', '```text\nAll done.\n```']],
  ])('%s', (_, change, expected) => {
    const text = completionSummary({ ...facts, ...change });
    expect(text.startsWith('## Completion summary\n')).toBe(true);
    for (const part of expected) expect(text).toContain(part);
  });

  test('no last output section when the agent printed nothing', () => {
    expect(completionSummary(facts)).not.toContain('### Last output');
  });
});

describe('the failure report', () => {
  test.each<[ErrorCode, string]>([
    ['E_MAX_ITERATIONS', 'raise `max_iterations`'],
    ['E_NO_PROGRESS', '`wiggum context add add-dark-mode "..."`'],
    ['E_TOTAL_TIMEOUT', '`persistence_loop.timeout.total`'],
    ['E_MEMORY_CORRUPT', '`wiggum retry add-dark-mode --fresh`'],
    ['E_HARNESS_AUTH', 'log in, set its API key'],
    ['E_HARNESS_MISSING', 'install it'],
    ['E_BUDGET', "raise the task's `max_tokens`, `max_cost_usd` or `max_duration`"],
    ['E_HARNESS_CONTEXT', 'shorten the task body, context.md or progress.txt'],
    ['E_HARNESS_BILLING', 'Add credits or raise the quota'],
    ['E_RETRIES_EXHAUSTED', 'Check it is reachable and has quota'],
    ['E_HARNESS_USAGE_LIMIT', 'Check it is reachable and has quota'],
    ['E_TASK_SCHEMA', '`wiggum validate FILE`'],
    ['E_TASK_YAML', '`wiggum validate FILE`'],
    ['E_HARNESS_EXIT', 'Fix the cause above'],
  ])('%s: what to do next names the fix and the task', (code, fix) => {
    const text = failureReport(failure({ code }));
    const next = text.slice(text.indexOf('### What to do next'));
    expect(next).toContain(fix);
    expect(next).toContain('wiggum retry add-dark-mode');
  });

  test("wiggum's own error: its chain folded shut in an Obsidian callout, every line quoted", () => {
    const chain = 'WiggumError: reached max_iterations\n    at TaskLoop.loop (task-loop.ts:120:11)';
    const text = failureReport(failure({ errorChain: chain }));
    const callout = text.slice(text.indexOf('> [!failure]-'));
    const lines = callout.slice(0, callout.indexOf('\n\n')).split('\n');
    expect(lines[0]).toMatch(/^> \[!failure\]- Stack/);
    expect(lines.every((line) => line.startsWith('> '))).toBe(true);
    expect(lines).toContain('>     at TaskLoop.loop (task-loop.ts:120:11)');
  });

  test('a failure the agent reported: its stderr, no stack', () => {
    expect(isAgentReported('E_HARNESS_EXIT')).toBe(true);
    expect(isAgentReported('E_MAX_ITERATIONS')).toBe(false);
    const text = failureReport(failure({ code: 'E_HARNESS_EXIT', errorDetail: 'fatal: not a git repository' }));
    expect(text).toContain('### Error\n\n```text\nfatal: not a git repository\n```');
    expect(text).not.toContain('[!failure]');
  });

  test('the runs as a table, a pipe in an error escaped so the table holds', () => {
    const history = [
      run(1, 0),
      run(2, 0, { outcome: 'hard-failure', error: { code: 'E_HARNESS_EXIT', message: 'a | b' } }),
    ];
    const text = failureReport(failure({ history }));
    expect(text).toContain('| iteration | attempt | started | duration | exit | outcome | promise | stories | next |');
    expect(text).toContain(
      '| 2 | 0 | 2027-01-15T08:00:00Z | 1.5 s | 0 | hard-failure: a \\| b | no | 1/2 | next iteration |',
    );
  });

  test('only the last 60 runs in the table, and it says so', () => {
    const history = Array.from({ length: 75 }, (_, i) => run(i + 1, 0));
    const text = failureReport(failure({ history }));
    expect(text).toContain('The last 60 of 75 runs (all of them are in history.jsonl):');
    expect(text).not.toContain('| 15 | 0 |');
    expect(text).toContain('| 16 | 0 |');
  });

  test.each<[string, Partial<FailureFacts>, string]>([
    ['the bound used up, in the plural', {}, '- Used all 10 iterations without completing, at 2027-01-15T08:04:10Z'],
    ['the only iteration used up', { maxIterations: 1 }, '- Used its only iteration without completing'],
    [
      'a failure counts the iterations finished, and says which one failed',
      { code: 'E_HARNESS_AUTH', failedIteration: 4 },
      '- Failed after 3 iterations of at most 10 (the 4th could not finish), at 2027-01-15T08:04:10Z, after 250 s of work (started 2027-01-15T08:00:00Z).',
    ],
    [
      'refused before any iteration ran',
      { code: 'E_HARNESS_UNKNOWN', noMemoryYet: true, iterations: 0 },
      '- Refused before any iteration ran, at 2027-01-15T08:04:10Z: nothing was run.',
    ],
    [
      'refused before its next iteration, some done',
      { code: 'E_WORKDIR', noMemoryYet: true, iterations: 3 },
      '- Refused before its next iteration could run, at 2027-01-15T08:04:10Z, with 3 iterations of at most 10 done.',
    ],
    [
      'refused before the first iteration: no memory yet',
      { code: 'E_HARNESS_UNKNOWN', noMemoryYet: true, iterations: 0 },
      '- Memory: none yet (the task was refused before its first iteration).',
    ],
    [
      'the checkpoint: completed steps and the current one',
      {},
      '- Checkpoint: completed steps US-001; current step US-002.',
    ],
    [
      'the checkpoint: nothing yet',
      { checkpoint: { completed_steps: [], current_step: null } },
      '- Checkpoint: completed steps none; current step none.',
    ],
    [
      'the checkpoint: state data as JSON',
      { checkpoint: { completed_steps: [], current_step: null, state_data: { phase: 'tests' } } },
      '; state data {"phase":"tests"}.',
    ],
    [
      'the log of the failing run',
      {},
      '- Full output of the failing run: `.wiggum/sessions/add-dark-mode/logs/0010.log`.',
    ],
  ])('%s', (_, change, expected) => {
    expect(failureReport(failure(change))).toContain(expected);
  });

  test('no log of a failing run: no line for it', () => {
    expect(failureReport(failure({ logFile: null }))).not.toContain('Full output');
  });

  test('no run finished: said in words', () => {
    expect(failureReport(failure())).toContain('No iteration finished.');
  });
});

describe('fence', () => {
  test.each([
    ['plain text', '```text\nplain text\n```'],
    ['a ``` fence inside', '````text\na ``` fence inside\n````'],
    ['five ````` inside', '``````text\nfive ````` inside\n``````'],
  ])('%s cannot break out of its block', (text, expected) => {
    expect(fence(text)).toBe(expected);
  });
});

describe('the report of a task file that is not valid', () => {
  test('each problem at its line, and how to send the task back', () => {
    const text = invalidTaskReport(
      [
        {
          file: 'Rejected/fix.md',
          line: 3,
          col: 1,
          key: 'max_iterations',
          message: 'max_iterations: expected a number',
        },
      ],
      '2027-01-15T08:04:10Z',
    );
    expect(text).toContain('- Reason: the task file is not valid, so no iteration was run (E_TASK_SCHEMA).');
    expect(text).toContain('- Rejected at 2027-01-15T08:04:10Z.');
    expect(text).toContain('Rejected/fix.md:3:1: max_iterations: expected a number');
    expect(text).toContain('`wiggum validate FILE`');
  });
});

import { describe, expect, test } from 'vitest';
import { decide } from '../../src/loop/decide.js';
import type { LoopState } from '../../src/loop/decide.js';
import {
  QUESTION_MAX_CHARS,
  QuestionScanner,
  askingOf,
  boundQuestion,
  questionInMessage,
} from '../../src/loop/question.js';
import { buildPrompt } from '../../src/loop/prompt.js';
import { NOTHING_SPENT } from '../../src/memory/spent.js';

const PROMPT = buildPrompt({
  iteration: 1,
  maxIterations: 5,
  promise: 'COMPLETE',
  taskId: 't',
  title: 'T',
  body: 'Do it.',
  paths: null,
  stories: { passing: 0, total: 0, next: null },
  context: '',
  refusal: null,
});

function scan(chunks: string[], prompt = PROMPT): string | null {
  const scanner = new QuestionScanner(prompt);
  for (const chunk of chunks) scanner.push(chunk);
  return scanner.question?.text ?? null;
}

describe('the question in a final message', () => {
  test.each([
    ['none', 'All done.', null],
    ['one', 'Stuck.\n<question>Postgres or SQLite?</question>\n', 'Postgres or SQLite?'],
    ['white space trimmed', '<question>\n  Which one?\n</question>', 'Which one?'],
    ['the last of two', '<question>a?</question> then <question>b?</question>', 'b?'],
    ['empty', '<question></question>', ''],
    ['unclosed', '<question>which', null],
  ])('%s', (_name, text, want) => {
    expect(questionInMessage(text)?.text ?? null).toBe(want);
  });

  test('a question longer than the bound is cut to it, and its length kept', () => {
    const asked = questionInMessage(`<question>${'x'.repeat(102_400)}</question>`);
    expect(asked?.text.length).toBe(QUESTION_MAX_CHARS);
    expect(asked?.length).toBe(102_400);
  });
});

describe('the question in a stream of output', () => {
  test.each([
    ['a plain question', ['I need a decision.\n<question>Which DB?</question>\n'], 'Which DB?'],
    ['split across chunks, tags too', ['<quest', 'ion>Which', ' DB?</quest', 'ion>'], 'Which DB?'],
    ['an echo of the prompt is not a question', [PROMPT, 'All done.\n<promise>COMPLETE</promise>\n'], null],
    ['an echo in small chunks is not a question', PROMPT.match(/[\s\S]{1,7}/g) ?? [], null],
    ['an echo, then a real question', [PROMPT, '\nI am stuck.\n<question>Which DB?</question>'], 'Which DB?'],
  ])('%s', (_name, chunks, want) => {
    expect(scan(chunks)).toBe(want);
  });

  test('100 KB of question costs a bounded memory and is cut', () => {
    const scanner = new QuestionScanner(PROMPT);
    scanner.push('<question>');
    for (let i = 0; i < 100; i += 1) scanner.push('y'.repeat(1024));
    scanner.push('</question>');
    expect(scanner.question?.text.length).toBe(QUESTION_MAX_CHARS);
    expect(scanner.question?.length).toBe(102_400);
  });
});

describe('which question counts', () => {
  const q = (text: string) => boundQuestion(text);
  test.each([
    ['neither', null, null, 'none'],
    ['the message', q('a?'), null, 'asked:message:a?'],
    ['the file', null, q('f?'), 'asked:file:f?'],
    ['the message before the file', q('a?'), q('f?'), 'asked:message:a?'],
    ['an empty tag beside a file question: the file', q(' '), q('f?'), 'asked:file:f?'],
    ['an empty tag', q(''), null, 'empty:message'],
    ['an empty file', null, q('\n'), 'empty:file'],
  ])('%s', (_name, message, file, want) => {
    const asking = askingOf(message, file);
    const got =
      asking.kind === 'none'
        ? 'none'
        : asking.kind === 'empty'
          ? `empty:${asking.source}`
          : `asked:${asking.source}:${asking.question.text}`;
    expect(got).toBe(want);
  });
});

describe('deciding on a question', () => {
  const state: LoopState = {
    iteration: 2,
    maxIterations: 5,
    attempt: 1,
    usageWaits: 0,
    waitingSinceMs: null,
    noProgressStreak: 1,
    activeMs: 1000,
    refusal: null,
    warned: false,
    spent: NOTHING_SPENT,
  };
  const policy = {
    retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 100, retriable: [] },
    noProgressLimit: 3,
    usageLimitMaxWaitMs: 1000,
    outageMaxWaitMs: 1000,
    failFast: false,
  } as unknown as Parameters<typeof decide>[2];

  test('asking blocks the task without counting the iteration or the stuck streak', () => {
    const decision = decide({ kind: 'asked', question: boundQuestion('Which?') }, state, policy, 0, () => 0.5);
    expect(decision.action).toEqual({ kind: 'block', question: { text: 'Which?', length: 6 } });
    expect(decision.state.iteration).toBe(2);
    expect(decision.state.noProgressStreak).toBe(1);
    expect(decision.state.attempt).toBe(0);
  });
});

describe('the prompt', () => {
  test('tells the agent how to ask', () => {
    expect(PROMPT).toContain('<question>');
  });
  test('carries an answered question in a part of its own, without the sections meant for the person', () => {
    const prompt = buildPrompt({
      iteration: 2,
      maxIterations: 5,
      promise: 'COMPLETE',
      taskId: 't',
      title: 'T',
      body: 'Do it.\n\n## Question\n\nThe agent asked in iteration 1:\n\n> Which DB?\n\nTo answer: …\n\n## Answer\n\nSQLite.\n',
      answers: [{ question: 'Which DB?', answer: 'SQLite.' }],
      paths: null,
      stories: { passing: 0, total: 0, next: null },
      context: '',
      refusal: null,
    });
    expect(prompt).toContain('Question: Which DB?\n\nAnswer: SQLite.');
  });
});

import { describe, expect, test } from 'vitest';
import {
  answerSection,
  answerState,
  questionRounds,
  questionSection,
  withoutQuestionSections,
} from '../../src/task/question-section.js';

const asked = (text: string, length = text.length): string =>
  questionSection({ taskId: 't1', iteration: 3, askedAt: '2025-01-01T00:00:00Z', text, length });

describe('the question section', () => {
  test('says the question, the iteration and what to do', () => {
    const section = asked('Which DB?');
    expect(section).toMatch(/^## Question\n/);
    expect(section).toContain('> Which DB?');
    expect(section).toContain('iteration 3');
    expect(section).toContain('## Answer');
    expect(section).toContain('wiggum answer t1');
  });
  test('quotes every line, so a heading in the question stays inside it', () => {
    const body = `Task.\n\n${asked('line one\n## Not a heading\nline three')}\n`;
    expect(answerState(body)).toEqual({ kind: 'unanswered', question: 'line one\n## Not a heading\nline three' });
  });
  test('says a cut question was cut', () => {
    expect(asked('x'.repeat(10), 500)).toMatch(/500 characters long, longer than the 10 kept: it was cut to 10/);
  });
});

describe('where the answer stands', () => {
  const q = asked('Which DB?');
  test.each([
    ['no question', 'Just a task.', 'none'],
    ['asked, no answer', `Task.\n\n${q}\n`, 'unanswered'],
    ['answered below', `Task.\n\n${q}\n\n${answerSection('SQLite.')}\n`, 'answered:SQLite.'],
    ['an empty answer section', `Task.\n\n${q}\n\n## Answer\n\n\n`, 'empty'],
    ['an answer above the question', `## Answer\n\nSQLite.\n\n${q}\n`, 'misplaced'],
    ['an answer under another heading level', `Task.\n\n${q}\n\n### Answer\n\nSQLite.\n`, 'misplaced'],
    [
      'a second question after an answered one',
      `Task.\n\n${q}\n\n## Answer\n\nSQLite.\n\n${asked('Which port?')}\n`,
      'unanswered',
    ],
    [
      'the second answered',
      `Task.\n\n${q}\n\n## Answer\n\nSQLite.\n\n${asked('Which port?')}\n\n## Answer\n\n8080\n`,
      'answered:8080',
    ],
    ['a heading in a code block is not an answer', `Task.\n\n${q}\n\n\`\`\`\n## Answer\nno\n\`\`\`\n`, 'unanswered'],
  ])('%s', (_name, body, want) => {
    const state = answerState(body);
    expect(state.kind === 'answered' ? `answered:${state.answer}` : state.kind).toBe(want);
  });

  test('every round, with its answer', () => {
    const body = `Task.\n\n${asked('A?')}\n\n## Answer\n\nyes\n\n${asked('B?')}\n`;
    expect(questionRounds(body)).toEqual([
      { question: 'A?', answer: 'yes' },
      { question: 'B?', answer: null },
    ]);
  });

  test('the prompt body keeps the user text and drops the question and answer sections', () => {
    const body = `Task.\n\n## Notes\n\nkeep\n\n${asked('A?')}\n\n## Answer\n\nyes\n`;
    const shown = withoutQuestionSections(body);
    expect(shown).toContain('## Notes\n\nkeep');
    expect(shown).not.toContain('A?');
    expect(shown).not.toContain('yes');
  });
});

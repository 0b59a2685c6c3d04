/**
 * The `## Question` section wiggum appends to a blocked task, and the `## Answer` a person writes
 * below it. Pure text in, text out: table-tested in test/task/question-section.test.ts.
 *
 * The question is written as a block quote, so that whatever it holds (a `## ` line, a
 * `<promise>` tag) is never read back as a heading of the file or as a tag of the protocol.
 */

import { inertBlock, unfenced } from './inert-text.js';

export const QUESTION_HEADING = '## Question';
export const ANSWER_HEADING = '## Answer';

export interface QuestionFacts {
  taskId: string;
  /** The iteration that asked (not counted: the next run is this iteration again). */
  iteration: number;
  askedAt: string;
  text: string;
  /** Characters of the question as asked; more than `text.length` when it was cut. */
  length: number;
}

/** The section appended below everything the user wrote. */
export function questionSection(facts: QuestionFacts): string {
  // Fenced inside the quote: whatever the agent wrote (HTML, images, embeds, links, a callout) shows
  // as the text it is (inert-text.ts); `quotedText` takes the fence off again.
  const quoted = inertBlock(facts.text)
    .split('\n')
    .map((line) => (line === '' ? '>' : `> ${line}`))
    .join('\n');
  const lines = [
    QUESTION_HEADING,
    '',
    `The agent asked in iteration ${facts.iteration} (${facts.askedAt}):`,
    '',
    quoted,
    '',
  ];
  if (facts.length > facts.text.length)
    lines.push(
      `(The question was ${facts.length} characters long, longer than the ${facts.text.length} kept: it was cut to ${facts.text.length}.)`,
      '',
    );
  lines.push(
    `To answer: write under a \`${ANSWER_HEADING}\` heading at the end of this file and move the file back to Approved/, or run \`wiggum answer ${facts.taskId} "your answer"\` (it does both).`,
  );
  return lines.join('\n');
}

export function answerSection(text: string): string {
  return `${ANSWER_HEADING}\n\n${text.trim()}`;
}

/** One question and the answer given to it (null: none yet). */
export interface QuestionRound {
  question: string;
  answer: string | null;
}

/** Where the last question of a file stands. */
export type AnswerState =
  /** No `## Question` in the file. */
  | { kind: 'none' }
  | { kind: 'answered'; question: string; answer: string }
  /** No `## Answer` below the last question. */
  | { kind: 'unanswered'; question: string }
  /** A `## Answer` below it with nothing in it. */
  | { kind: 'empty'; question: string }
  /** An answer, but not as `## Answer` below the last question (above it, or under another heading level). */
  | { kind: 'misplaced'; question: string; where: string };

interface Section {
  heading: string;
  level: number;
  /** The heading's line number (0-based). */
  line: number;
  lines: string[];
}

/** The sections of a body, split at Markdown headings outside fenced code. */
function sections(body: string): Section[] {
  const out: Section[] = [];
  let fenced = false;
  let current: Section | null = null;
  for (const [index, line] of body.split(/\r?\n/).entries()) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading !== null) {
      current = { heading: heading[2] ?? '', level: heading[1]?.length ?? 0, line: index, lines: [] };
      out.push(current);
    } else current?.lines.push(line);
  }
  return out;
}

const isQuestion = (section: Section): boolean => section.level === 2 && section.heading === 'Question';
const isAnswer = (section: Section): boolean => section.level === 2 && section.heading === 'Answer';
/** `# Answer`, `### answer:`: meant as an answer, but not the heading wiggum reads. */
const looksLikeAnswer = (section: Section): boolean => /^answer\s*:?$/i.test(section.heading) && !isAnswer(section);

function quotedText(section: Section): string {
  const quoted = section.lines
    .filter((line) => line.startsWith('>'))
    .map((line) => line.replace(/^> ?/, ''))
    .join('\n')
    .trim();
  return unfenced(quoted).trim();
}

function plainText(section: Section): string {
  return section.lines.join('\n').trim();
}

/** Every question of the file with the answer below it, in order. */
export function questionRounds(body: string): QuestionRound[] {
  const rounds: QuestionRound[] = [];
  for (const section of sections(body)) {
    if (isQuestion(section)) rounds.push({ question: quotedText(section), answer: null });
    else if (isAnswer(section) && rounds.length > 0) {
      const text = plainText(section);
      const round = rounds[rounds.length - 1];
      if (round !== undefined && text !== '')
        round.answer = round.answer === null ? text : `${round.answer}\n\n${text}`;
    }
  }
  return rounds;
}

/** Where the last question stands: answered, waiting, or an answer the person put where it is not read. */
export function answerState(body: string): AnswerState {
  const all = sections(body);
  const lastQ = all.findLastIndex(isQuestion);
  if (lastQ < 0) return { kind: 'none' };
  const question = quotedText(all[lastQ] as Section);
  const after = all.slice(lastQ + 1);
  const answers = after.filter(isAnswer).map(plainText);
  const given = answers.filter((text) => text !== '');
  if (given.length > 0) return { kind: 'answered', question, answer: given.join('\n\n') };
  const elsewhere = after.find((section) => looksLikeAnswer(section) && plainText(section) !== '');
  if (elsewhere !== undefined)
    return {
      kind: 'misplaced',
      question,
      where: `under "${'#'.repeat(elsewhere.level)} ${elsewhere.heading}", which is not read: use \`${ANSWER_HEADING}\``,
    };
  // An `## Answer` above the first question answers nothing: written in the wrong place.
  const firstQ = all.findIndex(isQuestion);
  const above = all
    .slice(0, firstQ)
    .find((section) => (isAnswer(section) || looksLikeAnswer(section)) && plainText(section) !== '');
  if (above !== undefined)
    return {
      kind: 'misplaced',
      question,
      where: `above the \`${QUESTION_HEADING}\` (line ${above.line + 1} of the body), where it answers nothing: write it under \`${ANSWER_HEADING}\` below the question`,
    };
  return answers.length > 0 ? { kind: 'empty', question } : { kind: 'unanswered', question };
}

/** What a person reads about a file moved back without an answer (status, Dashboard, log). */
export function unansweredText(state: AnswerState): string {
  switch (state.kind) {
    case 'empty':
      return `no answer yet: the ${ANSWER_HEADING} section is empty; write the answer in it (or run wiggum answer ID "text")`;
    case 'misplaced':
      return `no answer yet: an answer was written ${state.where}`;
    case 'answered':
    case 'none':
    case 'unanswered':
    default:
      return `no answer yet: write it under ${ANSWER_HEADING} at the end of the file (or run wiggum answer ID "text"); the agent is not run until then`;
  }
}

/**
 * The body as the agent's prompt shows it: without the question and answer sections, which the
 * prompt gives a part of its own (and whose "to answer" lines are for the person, not the agent).
 */
export function withoutQuestionSections(body: string): string {
  const lines = body.split('\n');
  const kept: string[] = [];
  let skipping = false;
  let fenced = false;
  for (const line of lines) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading !== null) skipping = heading[1] === '##' && (heading[2] === 'Question' || heading[2] === 'Answer');
    if (!skipping) kept.push(line);
  }
  return kept.join('\n');
}

/**
 * An agent asks a person by ending its reply with `<question>…</question>` or by writing the file
 * named by `$WIGGUM_QUESTION`. Read like the promise (promise.ts): from the final message when the
 * driver has one, else from stdout with the copies that come from an echo of the prompt ignored
 * (the prompt's protocol shows the tag). Pure, except for the streaming scanner's own state.
 */

/** The longest question kept: a task file is read by a person, and a question is a few lines. */
export const QUESTION_MAX_CHARS = 4096;

const OPEN = '<question>';
const CLOSE = '</question>';

/** A question as the agent asked it: its text (cut to the bound) and how long it was. */
export interface AskedText {
  /** The text, trimmed, at most QUESTION_MAX_CHARS characters. */
  text: string;
  /** Characters of the trimmed text as asked; more than `text.length` when it was cut. */
  length: number;
}

/** What the agent's asking came to, for the loop's decision. */
export type Asking =
  | { kind: 'none' }
  /** A tag or file with nothing but white space: not a question (the iteration goes on as a normal one). */
  | { kind: 'empty'; source: QuestionSource }
  | { kind: 'asked'; question: AskedText; source: QuestionSource };

export type QuestionSource = 'message' | 'file';

/** Trims and bounds a raw question. */
export function boundQuestion(raw: string): AskedText {
  const trimmed = raw.trim();
  return {
    text: trimmed.length > QUESTION_MAX_CHARS ? trimmed.slice(0, QUESTION_MAX_CHARS) : trimmed,
    length: trimmed.length,
  };
}

/** Whether the question was longer than the bound and so was cut. */
export function wasCut(question: AskedText): boolean {
  return question.length > question.text.length;
}

/**
 * The question of a run: the tag in the agent's final message first (its own words in its reply),
 * else the `$WIGGUM_QUESTION` file. `null` for either means it was not there.
 */
export function askingOf(fromMessage: AskedText | null, fromFile: AskedText | null): Asking {
  for (const [source, question] of [
    ['message', fromMessage],
    ['file', fromFile],
  ] as const) {
    if (question === null) continue;
    if (question.text === '') {
      // An empty tag beside a real file question: the file's question counts.
      if (source === 'message' && fromFile !== null && fromFile.text !== '')
        return { kind: 'asked', question: fromFile, source: 'file' };
      return { kind: 'empty', source };
    }
    return { kind: 'asked', question, source };
  }
  return { kind: 'none' };
}

/** The last `<question>…</question>` of a final message (no echo can occur there), or null. */
export function questionInMessage(text: string): AskedText | null {
  const close = text.lastIndexOf(CLOSE);
  if (close < 0) return null;
  const open = text.lastIndexOf(OPEN, close);
  if (open < 0) return null;
  return boundQuestion(text.slice(open + OPEN.length, close));
}

/**
 * Finds the last genuine `<question>…</question>` in a stream of output. An opening tag counts as
 * an echo when the text just before it (white space collapsed) is the text before one of the
 * prompt's own opening tags. Memory stays bounded: at most QUESTION_MAX_CHARS of a question are
 * kept while the rest is only counted, so a 100 MB output costs no more than a short one.
 */
export class QuestionScanner {
  private readonly echoContexts = new Set<string>();
  /** Output not yet judged: enough for a tag split across chunks and the context before it. */
  private carry = '';
  /** The carry was left by a search for an opening tag: any tag in it was judged already. */
  private carryJudged = false;
  /** The question being read (an opening tag seen, its closing tag not yet). */
  private open: { kept: string; length: number } | null = null;
  private last: AskedText | null = null;

  constructor(
    prompt: string,
    private readonly contextChars = 48,
  ) {
    for (let at = prompt.indexOf(OPEN); at >= 0; at = prompt.indexOf(OPEN, at + 1))
      this.echoContexts.add(this.contextBefore(prompt, at));
  }

  push(text: string): void {
    let buffer = this.carry + text;
    let judged = this.carryJudged ? this.carry.length : 0;
    this.carry = '';
    this.carryJudged = false;
    for (;;) {
      if (this.open !== null) {
        const close = buffer.indexOf(CLOSE);
        if (close < 0) {
          // Keep what may be the start of a split closing tag for the next push.
          const safe = Math.max(0, buffer.length - (CLOSE.length - 1));
          this.take(buffer.slice(0, safe));
          this.carry = buffer.slice(safe);
          return;
        }
        this.take(buffer.slice(0, close));
        const raw = this.open.kept;
        const bounded = boundQuestion(raw);
        // Trimming happened on the kept part only; the counted length adds what was not kept.
        this.last = { text: bounded.text, length: bounded.length + (this.open.length - raw.length) };
        this.open = null;
        buffer = buffer.slice(close + CLOSE.length);
        judged = 0;
        continue;
      }
      const at = this.findGenuineOpen(buffer, judged);
      if (at === null) {
        const keep = this.contextChars * 8 + OPEN.length;
        this.carry = buffer.length > keep ? buffer.slice(buffer.length - keep) : buffer;
        this.carryJudged = true;
        return;
      }
      this.open = { kept: '', length: 0 };
      buffer = buffer.slice(at + OPEN.length);
    }
  }

  /** The last complete question seen, or null. */
  get question(): AskedText | null {
    return this.last;
  }

  private take(text: string): void {
    if (this.open === null) return;
    const room = QUESTION_MAX_CHARS + 64 - this.open.kept.length;
    if (room > 0) this.open.kept += text.slice(0, room);
    this.open.length += text.length;
  }

  /** The first opening tag that is not an echo; one that ends within the first `judged` characters was judged before. */
  private findGenuineOpen(buffer: string, judged: number): number | null {
    for (let at = buffer.indexOf(OPEN); at >= 0; at = buffer.indexOf(OPEN, at + 1))
      if (at + OPEN.length > judged && !this.echoContexts.has(this.contextBefore(buffer, at))) return at;
    return null;
  }

  private contextBefore(text: string, index: number): string {
    const raw = text.slice(Math.max(0, index - this.contextChars * 8), index);
    return raw.replace(/\s+/g, ' ').trimEnd().slice(-this.contextChars).trimStart();
  }
}

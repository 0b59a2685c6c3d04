/**
 * Finds `<promise>TEXT</promise>` in an agent's output, with any whitespace or newlines around
 * TEXT, while ignoring the copies of the tag that come from an echo of the prompt:
 * the prompt itself tells the agent how to write the promise, and an agent (or `cat`) that prints
 * its input back must not complete the task by doing so.
 *
 * An occurrence counts as an echo when the text just before it (whitespace collapsed) is the text
 * just before one of the prompt's own occurrences. The scanner works on a stream with a bounded
 * carry-over, so a 100 MB output costs no more memory than a short one.
 */
export class PromiseScanner {
  private readonly pattern: RegExp;
  private readonly echoContexts = new Set<string>();
  private carry = '';
  private found = false;

  constructor(
    promiseText: string,
    prompt: string,
    private readonly contextChars = 48,
  ) {
    this.pattern = promisePattern(promiseText);
    for (const match of prompt.matchAll(this.pattern)) this.echoContexts.add(this.contextBefore(prompt, match.index));
  }

  /** Feeds more output; returns whether a genuine promise has been seen so far. */
  push(text: string): boolean {
    if (this.found) return true;
    const buffer = this.carry + text;
    const fresh = this.carry.length;
    for (const match of buffer.matchAll(this.pattern)) {
      // A match that ends inside the carry was judged by an earlier push.
      if (match.index + match[0].length <= fresh) continue;
      if (!this.echoContexts.has(this.contextBefore(buffer, match.index))) {
        this.found = true;
        this.carry = '';
        return true;
      }
    }
    // Keep enough for a tag split across chunks plus the context before it (whitespace runs
    // collapse, so the raw context needed can be longer than contextChars).
    const keep = this.contextChars * 8 + 1024;
    this.carry = buffer.length > keep ? buffer.slice(buffer.length - keep) : buffer;
    return false;
  }

  get detected(): boolean {
    return this.found;
  }

  /** The last `contextChars` of the whitespace-normalised text before `index`. */
  private contextBefore(text: string, index: number): string {
    const raw = text.slice(Math.max(0, index - this.contextChars * 8), index);
    const normalised = raw.replace(/\s+/g, ' ').trimEnd();
    return normalised.slice(-this.contextChars).trimStart();
  }
}

/** Whether `text` (an agent's final message) holds the promise; no echo can occur there. */
export function containsPromise(text: string, promiseText: string): boolean {
  return promisePattern(promiseText).test(text);
}

function promisePattern(promiseText: string): RegExp {
  const escaped = promiseText.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`<promise>\\s*${escaped}\\s*</promise>`, 'g');
}

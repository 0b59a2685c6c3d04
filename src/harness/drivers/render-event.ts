import type { AgentEvent } from './agent-event.js';

/**
 * The live view of an agent's run, the same for every CLI: its text as it is, one line per tool
 * call and per result, its notices and errors, a closing summary. Never raw JSON; the raw stream
 * stays in the iteration's log file.
 */

const SHOWN_CHARS = 400;

/** Renders events one by one; it remembers whether streamed text left a line open. */
export class EventRenderer {
  private lineOpen = false;
  private shownSession: string | null = null;

  constructor(private readonly agent: string) {}

  render(event: AgentEvent): string {
    const shown = this.shown(event);
    if (shown === '') return '';
    if (event.type === 'text' && event.partial === true) {
      this.lineOpen = !shown.endsWith('\n');
      return shown;
    }
    const prefix = this.lineOpen ? '\n' : '';
    this.lineOpen = false;
    return prefix + shown;
  }

  private shown(event: AgentEvent): string {
    switch (event.type) {
      case 'session': {
        // Most lines of a stream repeat the session id: it is shown once, and again only if it changes.
        if (event.sessionId === null || event.sessionId === this.shownSession) return '';
        this.shownSession = event.sessionId;
        const parts = [`● ${this.agent}${event.version == null ? '' : ` ${event.version}`}`];
        if (event.model != null) parts.push(`model ${event.model}`);
        parts.push(`session ${event.sessionId}`);
        return `${parts.join(' · ')}\n`;
      }
      case 'text':
        if (event.partial === true) return event.text;
        return event.text.trim() === '' ? '' : `${event.text.trimEnd()}\n`;
      case 'thinking':
        return event.text.trim() === '' ? '' : `· ${oneLine(event.text, 300)}\n`;
      case 'tool_use':
        return `→ ${event.name}: ${shorten(event.summary)}\n`;
      case 'tool_result':
        return toolResult(event.ok, event.output, event.exitCode);
      case 'notice':
        return event.text === '' ? '' : `${event.text.trimEnd()}\n`;
      case 'error':
        return event.said === '' ? '' : `! ${shorten(event.said)}\n`;
      case 'finished': {
        const facts = event.facts.length === 0 ? '' : ` (${event.facts.join(', ')})`;
        if (event.ok) return `✓ ${event.agent} finished${facts}\n`;
        return `✗ ${event.agent} ended with an error${facts}${event.said === undefined || event.said === '' ? '' : `: ${event.said}`}\n`;
      }
      case 'raw':
        return `${event.text}\n`;
      case 'final_message':
      case 'usage':
        return '';
    }
  }
}

/** A tool's result: its first line and how many more, or the exit code when it failed silently. */
function toolResult(ok: boolean, output: string, exitCode: number | null | undefined): string {
  const lines = output.split('\n').filter((line) => line.trim() !== '');
  const marker = ok ? '←' : '✗';
  const exit = exitCode === undefined || exitCode === null || exitCode === 0 ? '' : ` (exit ${exitCode})`;
  if (lines.length === 0) return `  ${marker} (no output)${exit}\n`;
  const more = lines.length > 1 ? ` (+${lines.length - 1} more lines)` : '';
  return `  ${marker} ${shorten(lines[0] ?? '')}${more}${exit}\n`;
}

/** Text on one line, newlines shown as ⏎, cut at a readable length. */
export function shorten(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, ' ⏎ ');
  return flat.length > SHOWN_CHARS ? `${flat.slice(0, SHOWN_CHARS)}…` : flat;
}

/** A one-line summary of a value (tool inputs), whitespace collapsed. */
export function oneLine(value: unknown, maxChars = 200): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > maxChars ? `${flat.slice(0, maxChars)}…` : flat;
}

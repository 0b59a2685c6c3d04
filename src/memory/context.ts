import { WiggumError } from '../errors.js';
import { appendSectionText } from './progress.js';

/**
 * context.md holds what the user adds mid-loop (`--add-context`). Each addition is
 * stamped with the minute it was added (UTC: the agent compares it with progress.txt's dates); the
 * loop reloads the whole file every iteration, so the stamp is short.
 */
export function contextEntry(text: string, atMs: number): string {
  const trimmed = text.replace(/\r\n?/g, '\n').trim();
  if (trimmed === '') {
    throw new WiggumError(
      'E_USAGE',
      'the context to add is empty: pass the text to add, or use --clear-context to empty it',
    );
  }
  return `### Added ${minuteUtc(atMs)}\n\n${trimmed}\n`;
}

export function appendContextText(existing: string, text: string, atMs: number): string {
  return appendSectionText(existing, contextEntry(text, atMs));
}

/** `2026-01-27 13:05 UTC`: two tokens fewer than the ISO form with seconds, in every prompt after it. */
function minuteUtc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

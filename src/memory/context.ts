import { WiggumError } from '../errors.js';
import { isoSeconds } from '../time/clock.js';
import { appendSectionText } from './progress.js';

/**
 * context.md holds what the user adds mid-loop (`--add-context`). Each addition is
 * stamped with the time it was added; the loop reloads the whole file every iteration.
 */
export function contextEntry(text: string, atMs: number): string {
  const trimmed = text.replace(/\r\n?/g, '\n').trim();
  if (trimmed === '') {
    throw new WiggumError(
      'E_USAGE',
      'the context to add is empty: pass the text to add, or use --clear-context to empty it',
    );
  }
  return `### Added ${isoSeconds(atMs)}\n\n${trimmed}\n`;
}

export function appendContextText(existing: string, text: string, atMs: number): string {
  return appendSectionText(existing, contextEntry(text, atMs));
}

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';

/**
 * docs/architecture.md's "Where things happen" sends a newcomer to a file and a function. A rename
 * or a move that forgets the map would send them nowhere, so every path it names must exist and
 * every function or class it names must be declared in a file its entry (or the section's opening)
 * names.
 */
const ROOT = join(import.meta.dirname, '..', '..');
const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
const section = /^## Where things happen\n([\s\S]*?)(?=^## )/m.exec(doc)?.[1] ?? '';

/** The opening paragraph, then one entry per bullet (its continuation lines joined). */
function entries(): { opening: string; bullets: string[] } {
  const [opening = '', ...rest] = section.split(/^- /m);
  return { opening, bullets: rest.map((bullet) => bullet.replace(/\n\s+/g, ' ').trim()) };
}

function codeSpans(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? '');
}

/** `loop/ending.ts` → src/loop/ending.ts; anything else is not a source path. */
function sourcePaths(text: string): string[] {
  return codeSpans(text)
    .filter((span) => /^[a-z][\w/-]*\.ts$/.test(span))
    .map((span) => join('src', span));
}

/** camelCase and PascalCase names (`writeCheckpoint`, `TaskLoop.checkpoint`): the code's own words. */
function symbols(text: string): string[] {
  return codeSpans(text).filter(
    (span) => /^[A-Za-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)?$/.test(span) && /[a-z]/.test(span) && /[A-Z]/.test(span),
  );
}

function declares(source: string, symbol: string): boolean {
  const [owner = '', member] = symbol.split('.');
  const declaration = new RegExp(`\\b(?:function\\*?|class|interface|type|const|let)\\s+${owner}\\b`);
  if (!declaration.test(source)) return false;
  return (
    member === undefined ||
    new RegExp(`^\\s+(?:(?:private|readonly|async|static)\\s+)*${member}\\s*[(:<]`, 'm').test(source)
  );
}

describe('the "Where things happen" map', () => {
  const { opening, bullets } = entries();

  test('has an entry for each behaviour a newcomer looks for', () => {
    const titles = bullets.map((bullet) => /^\*\*([^*]+)\*\*/.exec(bullet)?.[1]?.toLowerCase() ?? '');
    for (const behaviour of [
      'checkpoint',
      'resume',
      'backoff',
      'stop flag',
      'stop`',
      'completion',
      'usage-limit',
      'done/',
      'failure report',
      'harness spawn',
      'watcher',
      'status',
      'dashboard',
      'config',
      'task ids',
      'ralph',
    ]) {
      expect(
        titles.some((title) => title.includes(behaviour)),
        behaviour,
      ).toBe(true);
    }
  });

  test.each(bullets.map((bullet) => [/^\*\*([^*]+)\*\*/.exec(bullet)?.[1] ?? bullet.slice(0, 40), bullet]))(
    '%s: its files exist and declare what it names',
    (_title, bullet) => {
      const paths = [...sourcePaths(opening), ...sourcePaths(bullet)];
      expect(sourcePaths(bullet).length).toBeGreaterThan(0);
      for (const path of paths) expect(existsSync(join(ROOT, path)), path).toBe(true);
      const sources = paths.map((path) => readFileSync(join(ROOT, path), 'utf8'));
      for (const symbol of symbols(bullet)) {
        expect(
          sources.some((source) => declares(source, symbol)),
          `${symbol} is declared in none of ${paths.join(', ')}`,
        ).toBe(true);
      }
    },
  );
});

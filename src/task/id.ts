import { basename } from 'node:path';
import { TASK_ID_PATTERN } from './vocabulary.js';

/**
 * The id when the frontmatter has none: the file name without `.md`, with characters an id may not
 * hold turned into `-`, so that an Obsidian note called "Add dark mode.md" becomes `Add-dark-mode`.
 */
export function idFromFileName(file: string): string {
  const stem = basename(file).replace(/\.md$/i, '');
  const slug = stem
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 128);
  return TASK_ID_PATTERN.test(slug) ? slug : `task-${Buffer.from(stem).toString('hex').slice(0, 32) || 'unnamed'}`;
}

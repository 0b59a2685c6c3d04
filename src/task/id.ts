import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { TASK_ID_PATTERN } from './vocabulary.js';
import { transliterate } from './transliterate.js';

/** The longest id made for a name whose letters have no Latin form: short enough to type and to read in a listing. */
export const SHORT_ID_MAX = 24;
/** How much of a name's spelled part an id keeps when the rest of the name could not be spelled. */
const MIXED_HEAD_MAX = 40;
const ASCII = /^[\x00-\x7f]*$/;

/**
 * The id when the frontmatter has none: the file name without `.md`, spelled in ASCII, with every
 * run of characters an id may not hold turned into `-`, so that an Obsidian note called
 * "Add dark mode.md" becomes `Add-dark-mode` and "Café crème.md" `Cafe-creme`. Letters of scripts
 * with no Latin form (Han, Arabic, …) cannot be spelled: the id then names the script and ends with
 * a short hash of the whole name, so two such names never share an id.
 */
export function idFromFileName(file: string): string {
  const stem = stemOf(file);
  // An ASCII name keeps the id it always had, byte for byte: sessions and workspaces are named by it.
  if (ASCII.test(stem)) return legacyIdFromFileName(stem);
  const { text, untold } = transliterate(stem);
  // Punctuation at the end ("Café!") spells nothing: no trailing dash on a new id.
  const slug = slugOf(text).replace(/-+$/, '');
  if (untold.length === 0) return slug !== '' && TASK_ID_PATTERN.test(slug) ? slug : `task-${hashOf(stem)}`;
  const hash = hashOf(stem);
  // What could be spelled stays in front; the scripts and the hash tell the rest apart.
  const head = slug.slice(0, MIXED_HEAD_MAX).replace(/[-._]+$/, '');
  const prefix = head === '' ? 'task' : head;
  const limit = head === '' ? SHORT_ID_MAX : prefix.length + SHORT_ID_MAX;
  const labels: string[] = [];
  for (const label of untold) {
    if ([prefix, ...labels, label, hash].join('-').length <= limit) labels.push(label);
  }
  return [prefix, ...labels, hash].join('-');
}

/**
 * The id wiggum derived from a file name before ids were spelled in ASCII: other characters were
 * dropped (`Café crème` → `Caf-cr-me`) and a name with no ASCII letter became a hex string. Kept so
 * a task already running under such an id keeps its session (memory/kept-id.ts).
 */
export function legacyIdFromFileName(file: string): string {
  const stem = basename(file).replace(/\.md$/i, '');
  const slug = slugOf(stem);
  return TASK_ID_PATTERN.test(slug) ? slug : `task-${Buffer.from(stem).toString('hex').slice(0, 32) || 'unnamed'}`;
}

function stemOf(file: string): string {
  return basename(file).replace(/\.md$/i, '').normalize('NFC');
}

/** The same rule as before transliteration, so that an ASCII name keeps the id it always had. */
function slugOf(text: string): string {
  return text
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 128);
}

/** Six base-36 characters of the name's SHA-256: stable across machines and versions. */
function hashOf(stem: string): string {
  const digest = createHash('sha256').update(stem, 'utf8').digest();
  return (digest.readUInt32BE(0) % 36 ** 6).toString(36).padStart(6, '0');
}

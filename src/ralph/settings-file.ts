import { isMap, isScalar, parseDocument } from 'yaml';
import type { Node as YamlNode, Pair } from 'yaml';
import { WiggumError } from '../errors.js';
import { formatProblem } from '../problem.js';
import { locateFrontmatter } from '../task/frontmatter.js';
import { parseTask } from '../task/parse.js';
import type { TaskFrontmatter } from '../task/schema.js';
import type { LoopSettings } from './loop-settings.js';

/**
 * A loop's settings live in its task file's frontmatter, under the keys a vault task uses for the
 * same things (`harness`, `max_iterations`, `completion_promise`): the loop reads them there like
 * any task's, `wiggum validate` checks them, and they leave with the file when the loop ends, so a
 * new loop for the same change starts from nothing recorded. `fail_fast` has no task key; only
 * ralph reads it back.
 */
const KEYS = {
  harness: 'harness',
  maxIterations: 'max_iterations',
  completionPromise: 'completion_promise',
  failFast: 'fail_fast',
} as const;

/** The settings recorded in a loop's task file. */
export function recordedSettings(frontmatter: TaskFrontmatter, file: string): LoopSettings {
  const failFast: unknown = (frontmatter as Record<string, unknown>)[KEYS.failFast];
  if (failFast !== undefined && failFast !== null && typeof failFast !== 'boolean') {
    throw new WiggumError(
      'E_USAGE',
      `${file}: fail_fast must be true or false, not ${JSON.stringify(failFast)}; fix or delete that line and run again`,
    );
  }
  return {
    ...(frontmatter.harness === undefined ? {} : { harness: frontmatter.harness }),
    ...(frontmatter.max_iterations === undefined ? {} : { maxIterations: frontmatter.max_iterations }),
    ...(frontmatter.completion_promise === undefined ? {} : { completionPromise: frontmatter.completion_promise }),
    ...(typeof failFast === 'boolean' ? { failFast } : {}),
  };
}

/** The frontmatter lines for settings, in a fixed order; unset settings have none. */
export function settingLines(settings: LoopSettings): [key: string, line: string][] {
  const lines: [string, string][] = [];
  if (settings.harness !== undefined) lines.push([KEYS.harness, `${KEYS.harness}: ${settings.harness}`]);
  if (settings.maxIterations !== undefined)
    lines.push([KEYS.maxIterations, `${KEYS.maxIterations}: ${settings.maxIterations}`]);
  // A JSON string is a valid YAML double-quoted scalar: any text the user typed stays text.
  if (settings.completionPromise !== undefined)
    lines.push([KEYS.completionPromise, `${KEYS.completionPromise}: ${JSON.stringify(settings.completionPromise)}`]);
  if (settings.failFast !== undefined) lines.push([KEYS.failFast, `${KEYS.failFast}: ${settings.failFast}`]);
  return lines;
}

/**
 * The task file's text with the settings written in: each key replaces the lines it occupies, or is
 * added before the closing `---`; every other byte is kept. A value the task schema refuses (a
 * promise with angle brackets, more than 10000 iterations) is E_USAGE and nothing is written.
 */
export function withSettings(file: string, text: string, settings: LoopSettings): string {
  const layout = locateFrontmatter(text);
  const eol = layout.eol;
  const yamlText = text.slice(layout.yamlStart, layout.yamlEnd);
  const doc = parseDocument(yamlText);
  const pairs = isMap(doc.contents) ? (doc.contents.items as Pair<YamlNode, YamlNode | null>[]) : [];
  const edits: { start: number; end: number; text: string }[] = [];
  const added: string[] = [];
  for (const [key, line] of settingLines(settings)) {
    const pair = pairs.find((item) => isScalar(item.key) && String(item.key.value) === key);
    const range = pair === undefined ? null : pairLines(yamlText, pair);
    if (range === null) added.push(`${line}${eol}`);
    else
      edits.push({
        start: layout.yamlStart + range.start,
        end: layout.yamlStart + range.end,
        text: `${range.indent}${line}${eol}`,
      });
  }
  if (added.length > 0) {
    if (layout.hasFrontmatter) edits.push({ start: layout.yamlEnd, end: layout.yamlEnd, text: added.join('') });
    else edits.push({ start: layout.bodyStart, end: layout.bodyStart, text: `---${eol}${added.join('')}---${eol}` });
  }
  edits.sort((a, b) => b.start - a.start);
  let next = text;
  for (const edit of edits) next = next.slice(0, edit.start) + edit.text + next.slice(edit.end);
  const parsed = parseTask(file, next);
  if (!parsed.ok) {
    throw new WiggumError(
      'E_USAGE',
      `cannot record the loop's settings in ${file}: ${parsed.problems.map(formatProblem).join('; ')}; nothing was changed`,
    );
  }
  return next;
}

/** The whole lines a top-level pair occupies (a block value included), and its indentation. */
function pairLines(
  yamlText: string,
  pair: Pair<YamlNode, YamlNode | null>,
): { start: number; end: number; indent: string } | null {
  const keyRange = pair.key.range;
  if (keyRange === undefined || keyRange === null) return null;
  const start = yamlText.lastIndexOf('\n', keyRange[0] - 1) + 1;
  const indent = yamlText.slice(start, keyRange[0]);
  // Another key before it on the same line (a flow mapping): not a line of its own to replace.
  if (!/^[ \t]*$/.test(indent)) return null;
  const valueRange = pair.value?.range;
  const last = valueRange ? Math.max(valueRange[1], valueRange[2]) : keyRange[2];
  const end =
    last > 0 && yamlText[last - 1] === '\n'
      ? last
      : yamlText.indexOf('\n', last) === -1
        ? yamlText.length
        : yamlText.indexOf('\n', last) + 1;
  return { start, end, indent };
}

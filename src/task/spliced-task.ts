import type { OwnedKeyRange, Task } from './parse.js';
import { renderBlock } from './render.js';
import type { OwnedKeys } from './render.js';
import { persistenceLoopSchema } from './schema.js';

interface Splice {
  start: number;
  end: number;
  text: string;
}

/**
 * The parse of `next`, the text `withOwnedKeys(task, keys)` made, derived from the parse of `task`
 * instead of parsing `next` again: a checkpoint changes only wiggum's two keys, spliced into the
 * ranges they already occupy, so everything else (the user's keys, the body, the stories) is the
 * same, at offsets moved by the splice. That parse was most of a checkpoint's own time.
 *
 * Only for the shape wiggum's own checkpoints leave: `state: <word>` on its line and
 * `persistence_loop:` with a block under it, followed by a top-level key or the closing `---` (so
 * nothing after the block can read as part of it), and both keys to be written. Anything else
 * returns null, and the caller parses `next` as before. Its tests compare it with that parse.
 */
export function splicedTask(task: Task, keys: OwnedKeys, next: string): Task | null {
  const { state, persistence_loop: loop } = keys;
  const stateRange = task.owned.state;
  const loopRange = task.owned.persistence_loop;
  if (state === undefined || loop === undefined || loop === null) return null;
  if (task.unreadOwnedKeys !== undefined || task.emptyMapping !== undefined || !task.layout.hasFrontmatter) return null;
  if (task.keyIndent !== 0) return null;
  const stateValue = stateRange?.value;
  const loopValue = loopRange?.value;
  if (stateValue === undefined || stateValue.block || loopValue === undefined || !loopValue.block) return null;
  if (loopValue.end !== loopRange!.end || !endsTheBlock(task, loopValue.end)) return null;

  const loopFrontmatter = persistenceLoopSchema.safeParse(JSON.parse(JSON.stringify(loop)) as unknown);
  if (!loopFrontmatter.success) return null;
  const block = renderBlock(loop, task.keyIndent + 2, task.layout.eol);
  const splices: Splice[] = [
    { start: stateValue.start, end: stateValue.end, text: state },
    { start: loopValue.start, end: loopValue.end, text: block },
  ].sort((a, b) => a.start - b.start);
  if (splices[0]!.end > splices[1]!.start) return null;
  let text = task.text;
  for (const splice of [...splices].reverse())
    text = text.slice(0, splice.start) + splice.text + text.slice(splice.end);
  // The same edits as withOwnedKeys, or no derivation: the two must never disagree.
  if (text !== next) return null;

  /** Where an offset of the old text is in the new one: moved by every splice that ends at or before it. */
  const moved = (offset: number): number =>
    splices.reduce(
      (at, splice) => (splice.end <= offset ? at + splice.text.length - (splice.end - splice.start) : at),
      offset,
    );
  const shiftedRange = (range: OwnedKeyRange, value: OwnedKeyRange['value'], length: number): OwnedKeyRange => {
    const start = moved(value!.start);
    return {
      start: moved(range.start),
      end: moved(range.end),
      value: { start, end: value!.block ? moved(range.end) : start + length, block: value!.block },
    };
  };

  // Keys below the block move by the lines it gained or lost; `state:` stays one line.
  const blockEndLine = lineOf(task, loopValue.end);
  const linesGained = lineCount(block) - lineCount(task.text.slice(loopValue.start, loopValue.end));
  const keyPositions: Task['keyPositions'] = {};
  for (const [name, position] of Object.entries(task.keyPositions))
    keyPositions[name] = position.line >= blockEndLine ? { ...position, line: position.line + linesGained } : position;

  return {
    ...task,
    text: next,
    layout: { ...task.layout, yamlEnd: moved(task.layout.yamlEnd), bodyStart: moved(task.layout.bodyStart) },
    frontmatter: { ...task.frontmatter, state, persistence_loop: loopFrontmatter.data },
    keyPositions,
    owned: {
      state: shiftedRange(stateRange!, stateValue, state.length),
      persistence_loop: shiftedRange(loopRange!, loopValue, block.length),
    },
  };
}

/** The block ends where a top-level key (not a comment, not indented, not blank) or the closing `---` starts. */
function endsTheBlock(task: Task, end: number): boolean {
  if (end === task.layout.yamlEnd) return true;
  const first = task.text[end];
  return first !== undefined && !/[\s#-]/.test(first);
}

/** 1-based line of a file offset. */
function lineOf(task: Task, offset: number): number {
  return lineCount(task.text.slice(0, offset)) + 1;
}

function lineCount(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count += 1;
  return count;
}

import { Document as YamlDocument, isMap, isSeq, visit } from 'yaml';
import type { Task } from './parse.js';
import { plainBlockText } from './plain-block.js';
import type { LoopStatus, TaskState } from './vocabulary.js';

/** The checkpoint block wiggum writes into `persistence_loop`. */
export interface PersistenceLoopData {
  status: LoopStatus;
  session?: string;
  started?: string;
  updated?: string;
  ended?: string;
  iteration: number;
  max_iterations: number;
  exit_reason?: string;
  /** prd.json and progress.txt are in this folder of the workdir (`.ralph/<task id>/`, `memory.in_workdir`), not in the session folder. */
  memory?: string;
  checkpoint?: {
    completed_steps: string[];
    current_step?: string | null;
    state_data?: Record<string, unknown>;
    timestamp?: string;
  };
}

export interface OwnedKeys {
  state?: TaskState;
  /** null removes the key (a fresh start). */
  persistence_loop?: PersistenceLoopData | null;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

/**
 * The task's text with wiggum's own keys set and not one other byte changed: each key is spliced
 * into the range it already occupies (a comment after `state:` survives), or added just before the
 * closing `---`; a file without frontmatter gets one. New lines use the file's line ending.
 */
export function withOwnedKeys(task: Task, keys: OwnedKeys): string {
  const { layout, text } = task;
  const indent = ' '.repeat(task.keyIndent);
  const eol = layout.eol;
  const edits: Edit[] = [];
  const appended: string[] = [];

  if (keys.state !== undefined) {
    const range = task.owned.state;
    const line = `${indent}state: ${keys.state}${eol}`;
    if (range?.value && !range.value.block)
      edits.push({ start: range.value.start, end: range.value.end, text: keys.state });
    else if (range) edits.push({ start: range.start, end: range.end, text: line });
    else appended.push(line);
  }

  if (keys.persistence_loop === null) {
    const range = task.owned.persistence_loop;
    if (range) edits.push({ start: range.start, end: range.end, text: '' });
  } else if (keys.persistence_loop !== undefined) {
    const range = task.owned.persistence_loop;
    const block = renderBlock(keys.persistence_loop, task.keyIndent + 2, eol);
    if (range?.value?.block) edits.push({ start: range.value.start, end: range.value.end, text: block });
    else if (range)
      edits.push({ start: range.start, end: range.end, text: `${indent}persistence_loop:${eol}${block}` });
    else appended.push(`${indent}persistence_loop:${eol}${block}`);
  }

  if (appended.length > 0) {
    if (task.emptyMapping !== undefined) {
      edits.push({ start: task.emptyMapping.start, end: task.emptyMapping.end, text: appended.join('') });
    } else if (layout.hasFrontmatter) {
      edits.push({ start: layout.yamlEnd, end: layout.yamlEnd, text: appended.join('') });
    } else {
      edits.push({ start: layout.bodyStart, end: layout.bodyStart, text: `---${eol}${appended.join('')}---${eol}` });
    }
  }

  edits.sort((a, b) => b.start - a.start);
  let result = text;
  for (const edit of edits) result = result.slice(0, edit.start) + edit.text + result.slice(edit.end);
  return result;
}

/**
 * Appends a Markdown section (a completion summary, a failure report) after everything the user
 * wrote, so the original text stays intact as a prefix of the result.
 */
export function appendSection(text: string, section: string, eol: '\n' | '\r\n'): string {
  const converted = section.replace(/\r?\n/g, eol).replace(new RegExp(`(?:${eol})*$`), '');
  let base = text;
  if (base !== '' && !base.endsWith('\n')) base += eol;
  const gap = base === '' || base.endsWith(`${eol}${eol}`) ? '' : eol;
  return `${base}${gap}${converted}${eol}`;
}

const LOOP_KEY_ORDER: (keyof PersistenceLoopData)[] = [
  'status',
  'session',
  'started',
  'updated',
  'ended',
  'iteration',
  'max_iterations',
  'exit_reason',
  'memory',
  'checkpoint',
];

/** The last block rendered: a checkpoint renders it for its text, then again to derive its parse (spliced-task.ts). */
let lastBlock: { loop: PersistenceLoopData; indent: number; eol: string; text: string } | null = null;

/** The block under `persistence_loop:`, lists and state data in compact flow style. */
export function renderBlock(loop: PersistenceLoopData, indent: number, eol: string): string {
  if (lastBlock !== null && lastBlock.loop === loop && lastBlock.indent === indent && lastBlock.eol === eol)
    return lastBlock.text;
  const text = renderBlockText(loop, indent, eol);
  lastBlock = { loop, indent, eol, text };
  return text;
}

function renderBlockText(loop: PersistenceLoopData, indent: number, eol: string): string {
  const ordered: Record<string, unknown> = {};
  for (const key of LOOP_KEY_ORDER) {
    const value = loop[key];
    if (value !== undefined) ordered[key] = key === 'checkpoint' ? orderedCheckpoint(loop.checkpoint!) : value;
  }
  return plainBlockText(ordered, indent, eol) ?? yamlBlockText(ordered, indent, eol);
}

/** The block as the `yaml` package writes it: what plain-block.ts writes by hand, and everything it declines. */
export function yamlBlockText(ordered: Record<string, unknown>, indent: number, eol: string): string {
  const doc = new YamlDocument(ordered);
  visit(doc, {
    Node(_key, node, path) {
      // Lists and the state_data map are written inline (`completed_steps: [US-001]`), so the checkpoint stays a few short lines.
      if ((isSeq(node) || isMap(node)) && path.length > 3) node.flow = true;
    },
  });
  const yaml = doc.toString({ lineWidth: 0, indent: 2, flowCollectionPadding: false });
  const pad = ' '.repeat(indent);
  return yaml
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => `${pad}${line}${eol}`)
    .join('');
}

function orderedCheckpoint(checkpoint: NonNullable<PersistenceLoopData['checkpoint']>): Record<string, unknown> {
  const result: Record<string, unknown> = { completed_steps: checkpoint.completed_steps };
  if (checkpoint.current_step !== undefined) result.current_step = checkpoint.current_step;
  if (checkpoint.state_data !== undefined) result.state_data = checkpoint.state_data;
  if (checkpoint.timestamp !== undefined) result.timestamp = checkpoint.timestamp;
  return result;
}

// Prompt economy: the bytes and tokens wiggum adds to each iteration's prompt beyond the user's own
// words, for a task with 5 stories at iteration 1 and 10, part by part, beside the prompts
// snarktank/ralph and open-ralph-wiggum send for the same task (bench/phases/prompt-peers.mjs).
// Built with the real `promptBlocks` from dist/; no process is spawned, so it runs in well under a second.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { promptBlocks } from '../../dist/loop/prompt.js';
import { buildPrd, serializePrd } from '../../dist/memory/prd.js';
import { contextEntry } from '../../dist/memory/context.js';
import { parseChecklist } from '../../dist/task/stories.js';
import {
  BRANCH,
  CONTEXT_NOTE,
  MAX_ITERATIONS,
  PROMISE,
  SESSION_DIR,
  START_MS,
  STORY_COUNT,
  TASK_ID,
  TITLE,
  memoryAt,
  progressText,
} from '../lib/prompt-scenario.mjs';
import { PEER_PROMPTS, PEER_SOURCES } from './prompt-peers.mjs';

const bytes = (text) => Buffer.byteLength(text, 'utf8');
const sum = (texts, measure) => texts.reduce((total, text) => total + measure(text), 0);

/** wiggum's prompt for the scenario before iteration `n`, as `runIteration` builds it. */
function wiggumAt(n) {
  const memory = memoryAt(n);
  const next = memory.stories.find((story) => !story.passes) ?? null;
  // context.md as wiggum keeps it: each note under the time it was added.
  const context = memory.context === '' ? '' : contextEntry(memory.context, START_MS + 3 * 3_600_000);
  const blocks = promptBlocks({
    iteration: n,
    maxIterations: MAX_ITERATIONS,
    promise: PROMISE,
    taskId: TASK_ID,
    title: TITLE,
    body: memory.body,
    paths: { prd: `${SESSION_DIR}/prd.json`, progress: `${SESSION_DIR}/progress.txt`, sessionDir: SESSION_DIR },
    stories: {
      passing: memory.passing,
      total: STORY_COUNT,
      next: next === null ? null : { id: next.id },
    },
    context,
    refusal: null,
  });
  const prompt = `${blocks.map((block) => block.text).join('\n\n')}\n`;
  // The user's own words the prompt carries: the task's title and body, and the note added mid-loop.
  const own = { task: [TITLE, memory.body.trim()], context: memory.context === '' ? [] : [CONTEXT_NOTE] };
  const parts = blocks.map((block) => {
    const user = own[block.part] ?? [];
    return {
      part: block.part,
      addedBytes: bytes(block.text) - sum(user, bytes),
      addedTokens: countTokens(block.text) - sum(user, countTokens),
    };
  });
  const separators = bytes(prompt) - blocks.reduce((sum, block) => sum + bytes(block.text), 0);
  parts.push({ part: 'blank lines between blocks', addedBytes: separators, addedTokens: NaN });
  const ownTexts = Object.values(own).flat();
  const prd = buildPrd({
    taskId: TASK_ID,
    title: TITLE,
    branchName: BRANCH,
    description: memory.body,
    stories: parseChecklist(memory.body),
  });
  return {
    prompt,
    bytes: bytes(prompt),
    tokens: countTokens(prompt),
    addedBytes: bytes(prompt) - sum(ownTexts, bytes),
    addedTokens: countTokens(prompt) - sum(ownTexts, countTokens),
    // What the prompt tells the agent to read: prd.json (made from the checklist) and progress.txt.
    readsBytes: bytes(serializePrd(prd)) + bytes(progressText(memory.progressEntries)),
    parts,
  };
}

/** The figures of the phase; `leanest[n]` is the smallest fixed part a peer adds at iteration n. */
export function promptEconomy() {
  const wiggum = { 1: wiggumAt(1), 10: wiggumAt(10) };
  const leanest = {};
  for (const n of [1, 10]) {
    const peer = PEER_PROMPTS.reduce((min, p) => (p.at[n].addedBytes < min.at[n].addedBytes ? p : min));
    leanest[n] = { name: peer.name, addedBytes: peer.at[n].addedBytes, addedTokens: peer.at[n].addedTokens };
  }
  return {
    stories: STORY_COUNT,
    tokenizer: 'gpt-tokenizer o200k_base',
    wiggum,
    leanest,
    peers: PEER_PROMPTS,
    sources: PEER_SOURCES,
  };
}

/** The side-by-side table printed under the bench's main table. */
export function promptTable(result) {
  const rows = [
    ['loop', 'prompt B (it. 1 / 10)', 'tokens', 'added B', 'added tok', 'agent reads B'],
    ...[{ name: 'wiggum', at: result.wiggum }, ...result.peers].map((row) => [
      row.name,
      `${row.at[1].bytes} / ${row.at[10].bytes}`,
      `${row.at[1].tokens} / ${row.at[10].tokens}`,
      `${row.at[1].addedBytes} / ${row.at[10].addedBytes}`,
      `${row.at[1].addedTokens} / ${row.at[10].addedTokens}`,
      `${row.at[1].readsBytes} / ${row.at[10].readsBytes}`,
    ]),
  ];
  const widths = rows[0].map((_, col) => Math.max(...rows.map((cells) => cells[col].length)));
  const line = (cells) =>
    cells.map((cell, col) => (col === 0 ? cell.padEnd(widths[col]) : cell.padStart(widths[col]))).join('  ');
  const at1 = new Map(result.wiggum[1].parts.map((part) => [part.part, part.addedBytes]));
  const parts = result.wiggum[10].parts.map((part) => `${part.part} ${at1.get(part.part) ?? '-'}/${part.addedBytes}`);
  return [
    `Prompt economy: a ${result.stories}-story task, iterations 1 / 10 (tokens: ${result.tokenizer}; "added" = prompt less the user's own words)`,
    line(rows[0]),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...rows.slice(1).map(line),
    `wiggum's added bytes by part (it. 1/10): ${parts.join(', ')}`,
  ].join('\n');
}

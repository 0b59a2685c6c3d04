#!/usr/bin/env node
// The prompts two other Ralph loops send for the bench's 5-story task, built from their own sources
// at a pinned commit, so that the prompt-economy phase can set wiggum's preamble beside them. Their
// text is not kept in this repository: the sources are fetched into node_modules/.cache/wiggum-bench-peers/,
// and what the bench needs from them, sizes only, is recorded in bench/phases/prompt-peers.mjs.
//
//   node bench/peers/peer-prompts.mjs                         # fetch (once) and print the figures
//   node bench/peers/peer-prompts.mjs --git-dir owner/name=DIR  # read a local clone instead of fetching
//   node bench/peers/peer-prompts.mjs --show NAME@N            # print one rendered prompt (N: 1 or 10)
//   node bench/peers/peer-prompts.mjs --check                  # exit 1 if bench/phases/prompt-peers.mjs is stale
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { MAX_ITERATIONS, PROMISE, memoryAt, progressText, snarktankPrd } from '../lib/prompt-scenario.mjs';

export const PEERS = {
  snarktank: {
    repo: 'snarktank/ralph',
    commit: '6c53cb0b831ebe8739c6a003e22af14902d8b0b5',
    files: ['ralph.sh', 'prompt.md', 'CLAUDE.md'],
  },
  openRalphWiggum: {
    repo: 'Th0rgal/open-ralph-wiggum',
    commit: 'ec503200adf05ccd6b39ddd0fd18f666f595b085',
    files: ['ralph.ts'],
  },
};

export const sourceUrl = (peer, file) => `https://github.com/${peer.repo}/blob/${peer.commit}/${file}`;
const rawUrl = (peer, file) => `https://raw.githubusercontent.com/${peer.repo}/${peer.commit}/${file}`;
// Under node_modules/.cache, where tools keep what they fetch: ignored by git, eslint and prettier alike.
const CACHE = join(import.meta.dirname, '..', '..', 'node_modules', '.cache', 'wiggum-bench-peers');

/** Each peer's files at its pinned commit: from the cache, else from `gitDirs[repo]`, else fetched. */
async function loadSources(gitDirs) {
  const sources = {};
  for (const [name, peer] of Object.entries(PEERS)) {
    sources[name] = {};
    for (const file of peer.files) {
      const cached = join(CACHE, `${peer.repo.replace('/', '+')}@${peer.commit.slice(0, 12)}`, file);
      if (!existsSync(cached)) {
        const gitDir = gitDirs[peer.repo];
        const text =
          gitDir === undefined
            ? await (await fetchOk(rawUrl(peer, file))).text()
            : execFileSync('git', ['--git-dir', gitDir, 'show', `${peer.commit}:${file}`], { encoding: 'utf8' });
        mkdirSync(dirname(cached), { recursive: true });
        writeFileSync(cached, text);
      }
      sources[name][file] = readFileSync(cached, 'utf8');
    }
  }
  return sources;
}

async function fetchOk(url) {
  let response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new Error(`${url}: ${error.cause?.message ?? error.message} (offline? pass --git-dir owner/name=DIR)`, {
      cause: error,
    });
  }
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response;
}

/**
 * The text of a template literal in `source`: from just after `opening` (which ends with the
 * backtick), searched from `anchor`, up to `closing`. Fails loudly if the pinned source differs.
 */
function template(source, anchor, opening, closing) {
  const from = source.indexOf(anchor);
  const start = from < 0 ? -1 : source.indexOf(opening, from);
  const end = start < 0 ? -1 : source.indexOf(closing, start + opening.length);
  if (end < 0) throw new Error(`peer source changed: no template after ${JSON.stringify(anchor)}`);
  return source.slice(start + opening.length, end);
}

/** A template literal's text with each `${expression}` replaced by `values[expression]`; none may be left. */
function fill(text, values) {
  let out = text;
  for (const [expression, value] of Object.entries(values)) out = out.split(`\${${expression}}`).join(value);
  if (out.includes('${'))
    throw new Error(
      `peer template has an expression not filled: ${out.slice(out.indexOf('${'), out.indexOf('${') + 60)}`,
    );
  return out.replaceAll('\\`', '`');
}

/**
 * open-ralph-wiggum's `buildPrompt` (ralph.ts) for the task given as the prompt (`ralph "<task>"`),
 * default mode or tasks mode (`--tasks`, the stories in .ralph/ralph-tasks.md, embedded every iteration).
 */
function openRalphWiggumPrompt(source, { task, context, iteration, tasksFile }) {
  const state = {
    'state.iteration': String(iteration),
    'state.prompt': task,
    'state.completionPromise': PROMISE,
    'state.taskPromise': 'READY_FOR_NEXT_TASK',
    'state.maxIterations > 0 ? ` / ${state.maxIterations}` : " (unlimited)"': ` / ${MAX_ITERATIONS}`,
    'state.minIterations ?? 1': '1',
  };
  const contextSection =
    context === '' ? '' : fill(template(source, 'const contextSection = context', '? `', '`\n    : ""'), { context });
  if (tasksFile === null) {
    const body = template(source, '// Default mode: simple instructions', 'return `', '`.trim();');
    return fill(body, { ...state, contextSection }).trim();
  }
  // getTasksModeSection: the file verbatim, then the in-progress task ([/]) or else the next one ([ ]).
  const current = /^- \[\/\]\s*(.+)/m.exec(tasksFile);
  const next = /^- \[ \]\s*(.+)/m.exec(tasksFile);
  const taskInstructions =
    current !== null
      ? fill(template(source, 'if (currentTask) {', 'taskInstructions = `', '`;'), {
          ...state,
          'currentTask.text': current[1],
        })
      : fill(template(source, '} else if (nextTask) {', 'taskInstructions = `', '`;'), {
          ...state,
          'nextTask.text': next[1],
        });
  const tasksSection = fill(template(source, '## TASKS MODE: Working through task list', '', '`;\n  } catch'), {
    ...state,
    'tasksContent.trim()': tasksFile.trim(),
    taskInstructions,
  });
  const body = template(source, 'const tasksSection = getTasksModeSection(state);', 'return `', '`.trim();');
  return fill(body, { ...state, contextSection, tasksSection: `\n${tasksSection}` }).trim();
}

/** The stories as open-ralph-wiggum's tasks file holds them: top-level items, criteria as sub-items. */
function tasksFileAt(memory) {
  return memory.stories
    .map((story) => {
      const mark = story.passes ? 'x' : story.priority === memory.passing + 1 && memory.iteration > 1 ? '/' : ' ';
      return [`- [${mark}] ${story.id} ${story.title}`, ...story.acceptanceCriteria.map((c) => `  - [ ] ${c}`)].join(
        '\n',
      );
    })
    .join('\n');
}

/** The body without its `## Stories` section (in tasks mode the stories live in the tasks file). */
function withoutStories(body) {
  return body.replace(/## Stories\n\n(?:.*\n)*?\n(?=## )/, '');
}

const bytes = (text) => Buffer.byteLength(text, 'utf8');

/**
 * For one peer prompt: its size, and the fixed part it adds around the task's own words (the
 * prompt's bytes and tokens less those of the user's text it carries: task, stories, context).
 */
function measure(prompt, ownTexts, reads) {
  const own = ownTexts.filter((t) => t !== '');
  return {
    bytes: bytes(prompt),
    tokens: countTokens(prompt),
    addedBytes: bytes(prompt) - own.reduce((sum, t) => sum + bytes(t), 0),
    addedTokens: countTokens(prompt) - own.reduce((sum, t) => sum + countTokens(t), 0),
    readsBytes: reads.reduce((sum, t) => sum + bytes(t), 0),
  };
}

/** Each peer's prompt for the scenario at iteration 1 and 10, with what it carries. */
export function peerPrompts(sources) {
  const out = {};
  for (const n of [1, 10]) {
    const memory = memoryAt(n);
    const task = memory.body.trim();
    const progress = progressText(memory.progressEntries);
    // snarktank/ralph: `cat prompt.md | amp` (or `claude --print < CLAUDE.md`), the same file every
    // iteration; the task is in prd.json, which the agent is told to read, with progress.txt.
    for (const file of ['prompt.md', 'CLAUDE.md']) {
      const prompt = sources.snarktank[file];
      (out[`snarktank ${file}`] ??= {})[n] = { prompt, ...measure(prompt, [], [snarktankPrd(memory), progress]) };
    }
    // open-ralph-wiggum: `ralph "<task>"`; context added mid-loop is shown once, then deleted.
    const plain = openRalphWiggumPrompt(sources.openRalphWiggum['ralph.ts'], {
      task,
      context: memory.context,
      iteration: n,
      tasksFile: null,
    });
    (out['open-ralph-wiggum'] ??= {})[n] = { prompt: plain, ...measure(plain, [task, memory.context], []) };
    const goal = withoutStories(task);
    const tasksFile = tasksFileAt(memory);
    const tasks = openRalphWiggumPrompt(sources.openRalphWiggum['ralph.ts'], {
      task: goal,
      context: memory.context,
      iteration: n,
      tasksFile,
    });
    (out['open-ralph-wiggum --tasks'] ??= {})[n] = {
      prompt: tasks,
      ...measure(tasks, [goal, tasksFile, memory.context], []),
    };
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { 'git-dir': { type: 'string', multiple: true }, show: { type: 'string' }, check: { type: 'boolean' } },
  });
  const gitDirs = Object.fromEntries((values['git-dir'] ?? []).map((pair) => pair.split('=')));
  const prompts = peerPrompts(await loadSources(gitDirs));
  if (values.show !== undefined) {
    const [name, n = '1'] = values.show.split('@');
    process.stdout.write(`${prompts[name][n].prompt}\n`);
  } else {
    const figures = Object.fromEntries(
      Object.entries(prompts).map(([name, byN]) => [
        name,
        Object.fromEntries(Object.entries(byN).map(([n, { prompt: _, ...m }]) => [n, m])),
      ]),
    );
    process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
    if (values.check) {
      const { PEER_PROMPTS } = await import('../phases/prompt-peers.mjs');
      const stale = PEER_PROMPTS.filter((peer) => JSON.stringify(peer.at) !== JSON.stringify(figures[peer.key]));
      process.stdout.write(
        stale.length === 0 ? 'prompt-peers.mjs: up to date\n' : `STALE: ${stale.map((p) => p.key).join(', ')}\n`,
      );
      process.exitCode = stale.length === 0 ? 0 : 1;
    }
  }
}

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { FINISHED_OUTCOMES } from '../../src/loop/resume-plan.js';

/**
 * What a user finds in a vault after a fault campaign, task by task: the invariants the reliability
 * suite holds wiggum to. Every list names the tasks (or files) that break one; all empty is a pass.
 */
export interface VaultFindings {
  /** Tasks that are not in Done/ (still in Approved/, in Rejected/, or nowhere). */
  notDone: string[];
  /** Tasks with more than one copy across Approved/, Done/ and Rejected/ (`x.md` and `x-2.md`). */
  duplicated: string[];
  /** Tasks whose user frontmatter or body is not byte-for-byte what the user wrote. */
  corrupted: string[];
  /** history.jsonl files with a line that is not whole JSON. */
  tornHistory: string[];
  /** Tasks whose history counts an iteration twice, skips one, or disagrees with the checkpoint (see countedIterations). */
  miscounted: string[];
  /** wiggum temp files left in the vault's task folders. */
  tempsLeft: string[];
  /** Harness processes of this vault still alive. */
  orphans: number[];
}

const OWNED = /^(state|persistence_loop):/;

/** The user's lines of a task file: frontmatter without wiggum's keys, and the body as written. */
function userPart(text: string): { frontmatter: string[]; body: string } | null {
  if (!text.startsWith('---\n')) return null;
  const end = text.indexOf('\n---\n', 3);
  if (end === -1) return null;
  const frontmatter: string[] = [];
  let owned = false;
  for (const line of text.slice(4, end).split('\n')) {
    if (!/^[ \t]/.test(line)) owned = OWNED.test(line);
    if (!owned) frontmatter.push(line);
  }
  return { frontmatter, body: text.slice(end + 5) };
}

function mdFiles(folder: string): string[] {
  return existsSync(folder) ? readdirSync(folder).filter((name) => name.endsWith('.md')) : [];
}

/** Processes whose environment names a session of this vault: harnesses (or their children) left running. */
export function harnessesOf(root: string): number[] {
  const needle = `WIGGUM_SESSION_DIR=${root}/`;
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (
        readFileSync(`/proc/${entry}/environ`, 'latin1')
          .split('\0')
          .some((variable) => variable.startsWith(needle))
      )
        pids.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return pids;
}

/** The harnesses of this vault that `daemon` (a pid) started itself: not those a killed daemon left behind. */
export function harnessesStartedBy(root: string, daemon: number): number[] {
  return harnessesOf(root).filter((pid) => {
    try {
      return /^PPid:\s*(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1] === String(daemon);
    } catch {
      return false; // gone meanwhile
    }
  });
}

export interface FindingsOptions {
  /**
   * Each iteration of the agent passes one story (the fake agent's FAKE_STORY_PER_RUN and nothing
   * failing it): a task that counted more iterations than it has stories lost one to a fault, and
   * that is miscounted too, as a crash may cost only the iteration it cut.
   */
  oneStoryPerIteration?: boolean;
}

/**
 * Checks a vault whose tasks (`originals`: file name → the text the user dropped) should all have
 * ended in Done/. `sessions` is `.wiggum/sessions`.
 */
export function findingsOf(root: string, originals: Map<string, string>, options: FindingsOptions = {}): VaultFindings {
  const findings: VaultFindings = {
    notDone: [],
    duplicated: [],
    corrupted: [],
    tornHistory: [],
    miscounted: [],
    tempsLeft: [],
    orphans: harnessesOf(root),
  };
  const folders = ['Approved', 'Done', 'Rejected'].map((name) => ({ name, files: mdFiles(join(root, name)) }));
  for (const [name, original] of originals) {
    const id = name.slice(0, -3);
    const copies = folders.flatMap((folder) =>
      folder.files
        .filter((file) => file === name || new RegExp(`^${id}-\\d+\\.md$`).test(file))
        .map((file) => `${folder.name}/${file}`),
    );
    if (copies.length > 1) findings.duplicated.push(`${name}: ${copies.join(', ')}`);
    const doneFile = join(root, 'Done', name);
    if (!existsSync(doneFile)) {
      findings.notDone.push(`${name}: ${copies.join(', ') || 'nowhere'}`);
      continue;
    }
    const text = readFileSync(doneFile, 'utf8');
    const mine = userPart(original);
    const now = userPart(text);
    if (
      mine === null ||
      now === null ||
      mine.frontmatter.join('\n') !== now.frontmatter.join('\n') ||
      !now.body.startsWith(mine.body)
    )
      findings.corrupted.push(name);

    const history = join(root, '.wiggum', 'sessions', id, 'history.jsonl');
    const records: HistoryLine[] = [];
    let torn = false;
    if (existsSync(history)) {
      for (const line of readFileSync(history, 'utf8').split('\n')) {
        if (line === '') continue;
        try {
          records.push(JSON.parse(line) as HistoryLine);
        } catch {
          torn = true;
        }
      }
    }
    const iterations = countedIterations(records);
    if (torn) findings.tornHistory.push(`${id}/history.jsonl`);
    const checkpointed = /^ {2}iteration: (\d+)$/m.exec(text)?.[1];
    const consecutive = iterations.every((iteration, index) => iteration === index + 1);
    const stories = (original.match(/^- \[ \] /gm) ?? []).length;
    if (!consecutive || iterations.length === 0 || String(iterations.length) !== checkpointed) {
      findings.miscounted.push(`${name}: history [${iterations.join(', ')}], checkpoint ${checkpointed ?? 'none'}`);
    } else if (options.oneStoryPerIteration === true && iterations.length > stories) {
      findings.miscounted.push(`${name}: ${iterations.length} iterations for ${stories} stories`);
    }
  }
  for (const folder of ['Approved', 'Done', 'Rejected']) {
    const path = join(root, folder);
    if (existsSync(path))
      findings.tempsLeft.push(
        ...readdirSync(path)
          .filter((name) => name.endsWith('.tmp'))
          .map((name) => `${folder}/${name}`),
      );
  }
  return findings;
}

interface HistoryLine {
  iteration: number;
  outcome: string;
}

/**
 * The iteration numbers a history counts, in order. A run cut short by a stop, a retry or a wait is
 * recorded too, under the number of the iteration that runs again; a stopped run that made progress
 * counts (the next record then has the next number). Counted correctly, they are 1, 2, …, n.
 */
export function countedIterations(records: readonly HistoryLine[]): number[] {
  return records
    .filter(
      (record, index) =>
        FINISHED_OUTCOMES.has(record.outcome) ||
        (record.outcome === 'stopped' && (records[index + 1]?.iteration ?? 0) > record.iteration),
    )
    .map((record) => record.iteration);
}

/** The number of broken invariants in `findings` (0 is a pass). */
export function problemCount(findings: VaultFindings): number {
  return Object.values(findings as unknown as Record<string, unknown[]>).reduce((sum, list) => sum + list.length, 0);
}

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { Document, parseDocument } from 'yaml';
import { runTask } from '../../src/loop/run-task.js';
import { parseTask } from '../../src/task/parse.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { historyOf } from '../helpers/history.js';
import { isEvent } from '../helpers/log-events.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeVault } from '../helpers/vault.js';
import { waitForFile } from '../helpers/wait.js';
import { runDeps } from '../helpers/run-deps.js';

/**
 * Another program rewrites the whole frontmatter while a task runs, as a YAML library or
 * Obsidian's property editor does: its own quoting, date format, key order and indentation, of
 * wiggum's keys too. wiggum's keys are wiggum's to write again; the user's change is kept; the run
 * goes on to Done/ and never reports success for a file it did not move.
 */

type Rewrite = (frontmatter: Record<string, unknown>) => string;

const ISO = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}):(\d{2})(?:\.(\d+))?Z$/;

function mapDates(value: unknown, date: (iso: RegExpExecArray) => string): unknown {
  if (typeof value === 'string') {
    const match = ISO.exec(value);
    return match === null ? value : date(match);
  }
  if (Array.isArray(value)) return value.map((item) => mapDates(item, date));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapDates(item, date)]));
  return value;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/** PyYAML's `yaml.safe_dump(data, indent=4)`: keys sorted, 4 spaces, `2026-01-27 10:05:00.123000+00:00`. */
const yamlLibrary: Rewrite = (frontmatter) => {
  const dated = mapDates(frontmatter, (m) => `${m[1]} ${m[2]}:${m[3]}.${(m[4] ?? '0').padEnd(6, '0')}+00:00`);
  const doc = new Document(sortKeys(dated));
  return doc.toString({ indent: 4, defaultStringType: 'QUOTE_SINGLE', defaultKeyType: 'PLAIN' });
};

/** Obsidian's property editor: date-time to the minute without a zone, empty values left empty, quoted numbers. */
const obsidian: Rewrite = (frontmatter) => {
  const dated = mapDates(frontmatter, (m) => `${m[1]}T${m[2]}`) as Record<string, unknown>;
  const text = new Document(dated).toString({ indent: 2, nullStr: '' });
  return text
    .replace(/^(\s+)completed_steps: \[\]$/m, '$1completed_steps:')
    .replace(/^(\s+)iteration: (\d+)$/m, '$1iteration: "$2"');
};

/** A hand-written script that gets wiggum's keys wrong: a capitalised status, dates without a time. */
const careless: Rewrite = (frontmatter) => {
  const dated = mapDates(frontmatter, (m) => m[1]!) as Record<string, unknown>;
  return new Document(dated).toString().replace(/^(\s+)status: running$/m, '$1status: Running');
};

function frontmatterOf(text: string): Record<string, unknown> {
  const end = text.indexOf('\n---\n', 4);
  return parseDocument(text.slice(4, end + 1)).toJS() as Record<string, unknown>;
}

describe('another program rewrites the whole frontmatter while the task runs', () => {
  test.each([
    ['a script with a YAML library (PyYAML style)', yamlLibrary, true],
    ["Obsidian's property editor", obsidian, true],
    ["a script that gets wiggum's keys wrong", careless, false],
  ] as const)(
    '%s: the run goes on to Done/, the user change is kept, wiggum writes its keys again',
    async (_name, rewrite, readable) => {
      const gates = tempDir('wiggum-gates-');
      const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1', FAKE_GATE_DIR: gates } });
      writeFileSync(join(gates, 'go-1'), '');
      writeFileSync(join(gates, 'go-3'), '');
      const file = vault.task(
        'rewritten',
        '---\ntitle: Rewritten\n# a comment the rewrite will drop\npriority: high\n---\n- [ ] US-001 Alpha\n- [ ] US-002 Beta\n- [ ] US-003 Gamma\n',
      );
      const { logger, lines } = captureLogger();
      const running = runTask({ file, stream: null, signal: new AbortController().signal }, runDeps(vault, logger));

      // Run 2 is waiting at its gate: the checkpoint of iteration 1 is in the file. Rewrite it all.
      await waitForFile(join(vault.marks, 'run-2'));
      const before = readFileSync(file, 'utf8');
      const data = frontmatterOf(before);
      expect(data.persistence_loop).toMatchObject({ iteration: 1, status: 'running' });
      const body = before.slice(before.indexOf('\n---\n', 4) + 5);
      const rewritten = `---\n${rewrite({ ...data, title: 'Rewritten by hand', reviewed: true })}---\n${body}`;
      expect(rewritten).not.toBe(before);
      // Other programs' shapes of wiggum's own keys are read as they are; the careless one only by a
      // running loop, which writes its keys again (before a run it would be reported, not taken as state).
      expect(parseTask(file, rewritten).ok).toBe(readable);
      expect(parseTask(file, rewritten, { ownedKeysReplaceable: true }).ok).toBe(true);
      writeFileSync(file, rewritten);
      writeFileSync(join(gates, 'go-2'), '');

      const result = await running;
      expect(result).toMatchObject({ status: 'done', iterations: 3 });
      expect(result.file).toBe(join(vault.layout.done, 'rewritten.md'));
      const done = readFileSync(result.file, 'utf8');
      const final = frontmatterOf(done);
      // The user's change survives; wiggum's keys are its own again, in its own format.
      expect(final).toMatchObject({ title: 'Rewritten by hand', reviewed: true, priority: 'high', state: 'Done' });
      expect(final.persistence_loop).toMatchObject({ status: 'done', iteration: 3 });
      expect(String((final.persistence_loop as { updated: string }).updated)).toMatch(
        /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/,
      );
      expect(done).toContain('- [ ] US-001 Alpha\n- [ ] US-002 Beta\n- [ ] US-003 Gamma\n');
      expect(done).toContain('Stories: 3 of 3 passing');
      expect(historyOf(vault.layout.sessions, 'rewritten').map((record) => record.iteration)).toEqual([1, 2, 3]);
      // Never a checkpoint refused for a conflict: every one after the rewrite was written.
      expect(lines.filter((line) => line.code === 'E_CHECKPOINT_CONFLICT')).toEqual([]);
      expect(lines.some(isEvent('checkpoint.keys-rewritten'))).toBe(!readable);
    },
  );
});

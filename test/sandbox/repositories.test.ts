import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { runCli } from '../helpers/child.js';
import { gitRepo } from '../helpers/git-repo.js';
import { NO_TOTAL_BUDGET } from '../helpers/wait.js';

/** A folder outside /tmp (which every confined run hides anyway), removed after the test. */
function outsideTmp(): string {
  const dir = mkdtempSync('/var/tmp/wiggum-repos-');
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('the repositories of vault.allowed_workdirs, seen from a confined agent', () => {
  test(
    'another repository there is hidden; the task’s own workdir is there, writable',
    async () => {
      const root = outsideTmp();
      const code = join(root, 'code');
      for (const name of ['app', 'other']) mkdirSync(join(code, name), { recursive: true });
      const app = gitRepo(join(code, 'app'), { files: { 'app.txt': 'mine\n' } });
      gitRepo(join(code, 'other'), { files: { 'other.txt': 'another-repository-text\n' } });
      const agent = join(root, 'bin', 'agent.sh');
      mkdirSync(join(root, 'bin'));
      writeFileSync(
        agent,
        [
          '#!/bin/sh',
          'cat > /dev/null',
          `cat ${code}/other/other.txt; echo "ATTEMPT other-read rc=$?"`,
          `ls ${code}; echo "ATTEMPT list rc=$?"`,
          `cat ${app}/app.txt; echo "ATTEMPT own rc=$?"`,
          "echo '<promise>COMPLETE</promise>'",
          '',
        ].join('\n'),
        { mode: 0o755 },
      );
      const vault = join(root, 'vault');
      for (const folder of ['Approved', 'Done', 'Rejected', '.wiggum'])
        mkdirSync(join(vault, folder), { recursive: true });
      writeFileSync(
        join(vault, '.wiggum', 'config.yaml'),
        `vault:\n  allowed_workdirs: [${code}]\ngit:\n  enabled: false\nharnesses:\n  a:\n    kind: command\n    command: ${agent}\n`,
      );
      writeFileSync(
        join(vault, 'Approved', 'r.md'),
        `---\ntitle: r\nharness: a\nworkdir: ${app}\nmax_iterations: 1\n---\n# r\n`,
      );
      const ran = await runCli(['run', join(vault, 'Approved', 'r.md'), '--vault', vault]);
      const output = ran.stdout + ran.stderr;
      expect(output).not.toContain('another-repository-text');
      expect(/ATTEMPT other-read rc=(\d+)/.exec(output)?.[1]).not.toBe('0');
      expect(output).toContain('mine');
      expect(/ATTEMPT own rc=(\d+)/.exec(output)?.[1]).toBe('0');
    },
    NO_TOTAL_BUDGET,
  );
});

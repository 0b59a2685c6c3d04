import { describe, expect, test } from 'vitest';
import { prdPlaceProblem } from '../../src/task/prd-file.js';

describe('where a prd: file may be', () => {
  const roots = ['/home/me/vault', '/srv/code/app'];
  test.each([
    // written, real path, allowed
    ['Specs/a.json', '/home/me/vault/Specs/a.json', true],
    ['/srv/code/app/prd.json', '/srv/code/app/prd.json', true],
    ['/home/me/vault', '/home/me/vault', true],
    ['/etc/passwd', '/etc/passwd', false],
    ['../../../etc/passwd', '/etc/passwd', false],
    ['Specs/link.json', '/home/me/.ssh/id_ed25519', false], // a symlink inside leading out
    ['/home/me/vault-old/a.json', '/home/me/vault-old/a.json', false], // a prefix is not inside
    ['/srv/code/other/prd.json', '/srv/code/other/prd.json', false], // another allowed workdir is not the task's
    ['/home/me/x.json', '/home/me/x.json', false],
  ])('%s (really %s): %s', (written, real, allowed) => {
    const problem = prdPlaceProblem(written, real, roots);
    expect(problem === null).toBe(allowed);
    if (problem !== null) expect(problem).toMatch(/^prd: .* is outside the vault and the task's workdir/);
  });

  test('a path that leads elsewhere says where, and nothing of the file', () => {
    expect(prdPlaceProblem('Specs/link.json', '/etc/shadow', roots)).toContain('(it leads to /etc/shadow)');
    expect(prdPlaceProblem('/etc/shadow', '/etc/shadow', roots)).not.toContain('leads to');
  });
});

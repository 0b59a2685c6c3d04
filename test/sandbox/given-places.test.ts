import { describe, expect, test } from 'vitest';
import { folderToMakeIn, givenPlaces, madeAsFolder } from '../../src/sandbox/given-places.js';

const BASE = {
  agentEnv: {},
  homeVariables: [],
  home: '/home/u',
  vault: '/home/u/vault',
  state: '/home/u/vault/.wiggum',
};

describe('the places a person gives an agent by naming them for its harness', () => {
  test.each([
    ['an absolute path in env', { LOG_DIR: '/srv/agent-logs' }, ['/srv/agent-logs']],
    ['a folder of the home', { NOTES: '/home/u/agent-notes' }, ['/home/u/agent-notes']],
    ['normalized', { D: '/srv/x/../y/' }, ['/srv/y']],
    ['not a path: a URL, a word, a relative path', { U: 'http://x/', W: 'yes', R: 'logs/' }, []],
    ['a PATH-like list', { P: '/usr/bin:/bin' }, []],
    ['the root', { R: '/' }, []],
    ['the home, or above it', { H: '/home/u', A: '/home' }, []],
    [
      'the vault, inside it, or above it',
      { V: '/home/u/vault', S: '/home/u/vault/Done', W: '/home/u/vault/.wiggum/x' },
      [],
    ],
    [
      'the secrets of the home, in them or above them',
      { K: '/home/u/.ssh', I: '/home/u/.ssh/id_rsa', C: '/home/u/.config' },
      [],
    ],
    [
      "the system's folders, in them or above them: read, never written",
      { C: '/etc/ssl/cert.pem', U: '/usr/local/lib', V: '/var', L: '/var/log/agent.log' },
      [],
    ],
    ['a folder of /var that is no system one', { T: '/var/tmp/agent' }, ['/var/tmp/agent']],
    ["a check's args, as given", { 0: '--out', 1: '/srv/reports/check' }, ['/srv/reports/check']],
  ])('%s', (_name, configured, expected) => {
    expect(givenPlaces({ ...BASE, named: Object.values(configured) })).toEqual(expected);
  });

  test.each([
    ['/srv/agent/logs', '/srv/agent'],
    ['/tmp/run-1/state', '/tmp/run-1'],
    ['/tmp/agent.log', null],
    ['/srv', null],
  ])('a missing %s: its folder %s is given, for the agent to make it', (path, folder) => {
    expect(folderToMakeIn(path)).toBe(folder);
  });

  test.each([
    ['/srv/agent-logs', true],
    ['/srv/agent.log', false],
    ['/srv/.hidden', false],
  ])('a missing %s no given folder holds is made as a folder: %s', (path, folder) => {
    expect(madeAsFolder(path)).toBe(folder);
  });
});

import { describe, expect, test } from 'vitest';
import { harnessEnvironment } from '../../src/harness/environment.js';

describe('harnessEnvironment', () => {
  const base: NodeJS.ProcessEnv = {
    PATH: '/usr/bin:/bin',
    HOME: '/home/wiggum',
    AWS_SECRET_ACCESS_KEY: 'daemon-secret',
    DEPLOY_TOKEN: 'daemon-token',
    LANG: undefined,
  };

  test('passes only allowlisted variables of the base environment', () => {
    expect(harnessEnvironment(base, ['PATH', 'HOME'], {})).toEqual({ PATH: '/usr/bin:/bin', HOME: '/home/wiggum' });
  });

  test('skips allowlisted names that are unset', () => {
    expect(harnessEnvironment(base, ['PATH', 'LANG', 'TERM'], {})).toEqual({ PATH: '/usr/bin:/bin' });
  });

  test('puts extra variables on top, overriding the base', () => {
    const env = harnessEnvironment(base, ['PATH', 'HOME'], {
      HOME: '/srv/agent',
      WIGGUM_TASK_ID: 'task-1',
      CLAUDE_FLAG: '1',
    });
    expect(env).toEqual({ PATH: '/usr/bin:/bin', HOME: '/srv/agent', WIGGUM_TASK_ID: 'task-1', CLAUDE_FLAG: '1' });
  });

  test('never leaks a variable that is not allowlisted', () => {
    const env = harnessEnvironment(base, ['PATH'], { WIGGUM_ITERATION: '2' });
    expect(Object.keys(env).sort()).toEqual(['PATH', 'WIGGUM_ITERATION']);
    expect(Object.values(env)).not.toContain('daemon-secret');
    expect(Object.values(env)).not.toContain('daemon-token');
  });

  test('reads the real process environment', () => {
    const env = harnessEnvironment(process.env, ['PATH'], {});
    expect(env['PATH']).toBe(process.env['PATH']);
  });

  test('a name like __proto__ is an ordinary variable, never a prototype', () => {
    const env = harnessEnvironment({}, ['__proto__'], JSON.parse('{"__proto__": "x"}') as Record<string, string>);
    expect(Object.getPrototypeOf(env)).toBe(Object.prototype);
    expect(Object.hasOwn(env, '__proto__')).toBe(true);
  });
});

import type { CheckDefinition, WiggumConfig } from '../config/config.js';
import { harnessEnvironment } from '../harness/environment.js';
import { systemProcessHost } from '../harness/process-host.js';
import type { ProcessHost } from '../harness/process-host.js';
import { runProcess } from '../harness/run-process.js';
import type { ProcessSpec } from '../harness/run-process.js';

/**
 * How the check's process is confined (sandbox-run.ts `confineCheck`): the spec to start instead,
 * and what its end tells; an error when it must be confined and cannot be.
 */
export type CheckConfinement = (
  spec: ProcessSpec,
) => Promise<
  | { spec: ProcessSpec; finish: (ended: { exitCode: number | null; signal: string | null }) => Promise<string | null> }
  | { refused: string }
>;

export interface CheckResult {
  passed: boolean;
  exitCode: number | null;
  /** "exit code 1", "timed out after 600 s", … */
  summary: string;
  outputTail: string;
}

const TAIL_BYTES = 8 * 1024;

/**
 * Runs a task's `verify` check in its workdir, in its own process group like a harness, so a
 * completion claim is accepted only when the check really exits 0.
 */
export async function runVerifyCheck(
  check: CheckDefinition,
  workdir: string,
  env: NodeJS.ProcessEnv,
  config: WiggumConfig,
  stops: { signal?: AbortSignal; kill?: AbortSignal } = {},
  host: ProcessHost = systemProcessHost,
  confine: CheckConfinement = (spec) => Promise.resolve({ spec, finish: () => Promise.resolve(null) }),
): Promise<CheckResult> {
  const confined = await confine({
    command: check.command,
    args: check.args,
    cwd: workdir,
    env: harnessEnvironment(env, config.harness.envAllowlist, check.env),
    stdin: '',
    timeoutMs: check.timeoutMs,
    idleTimeoutMs: 0,
    stopGraceMs: config.harness.stopGraceMs,
    logFile: null,
    logMaxBytes: 0,
    tailBytes: TAIL_BYTES,
    configKey: `checks.${check.name}.command`,
    ...(stops.signal === undefined ? {} : { signal: stops.signal }),
    ...(stops.kill === undefined ? {} : { kill: stops.kill }),
  });
  if ('refused' in confined) return { passed: false, exitCode: null, summary: confined.refused, outputTail: '' };
  const result = await runProcess(confined.spec, host);
  const limit = await confined.finish(result);
  if (limit !== null) return { passed: false, exitCode: result.exitCode, summary: limit, outputTail: '' };
  const output = `${result.stdoutTail}${result.stderrTail}`.trim().split('\n').slice(-30).join('\n');
  if (result.spawnError !== null)
    return { passed: false, exitCode: null, summary: result.spawnError.message, outputTail: '' };
  const summary = result.timedOut
    ? `timed out after ${Math.round(check.timeoutMs / 1000)} s`
    : result.signal !== null
      ? `killed by ${result.signal}`
      : `exit code ${result.exitCode ?? 'unknown'}`;
  return { passed: result.exitCode === 0 && !result.timedOut, exitCode: result.exitCode, summary, outputTail: output };
}

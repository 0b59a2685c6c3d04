/**
 * `wiggum help harness`: the command-harness protocol in short, where a user writing a harness
 * looks first. docs/harness-protocol.md is the long form; keep the two in step with
 * src/harness/drivers/command-driver.ts (the exit codes) and src/loop/iteration.ts (the variables).
 */
export const HARNESS_HELP = `
A harness of kind: command is any program named under harnesses: in .wiggum/config.yaml; a task
runs it with harness: NAME. wiggum runs it once per iteration in the task's workdir:

  stdin        the iteration's prompt, then end of file
  args         the configured args, with {workdir} {session_dir} {prd} {progress} {context}
               {task_id} {iteration} {promise} filled in
  environment  harness.env_allowlist from wiggum's own, the harness's env, and
               WIGGUM_TASK_ID, WIGGUM_TASK_FILE, WIGGUM_ITERATION, WIGGUM_MAX_ITERATIONS,
               WIGGUM_ATTEMPT, WIGGUM_WORKDIR, WIGGUM_SESSION_DIR, WIGGUM_PRD (prd.json),
               WIGGUM_PROGRESS (progress.txt), WIGGUM_CONTEXT, WIGGUM_PROMISE

Its exit code is the whole protocol (sysexits.h); its text is never guessed from:

  0            the iteration ended; <promise>TEXT</promise> on stdout (TEXT = $WIGGUM_PROMISE)
               claims the task is complete
  75           EX_TEMPFAIL: a temporary failure, retried with backoff
  77, 78       EX_NOPERM, EX_CONFIG: no retry fixes it, the task is rejected at once
  other        a failed iteration, recorded; the loop goes on (unless persistence_loop.fail_fast)

A run past persistence_loop.timeout.per_step, or silent for persistence_loop.timeout.idle, is
stopped: SIGTERM to its process group, SIGKILL after harness.stop_grace. More: docs/harness-protocol.md in the package.`;

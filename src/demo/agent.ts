#!/usr/bin/env node
/**
 * The demo agent: a stand-in for a coding agent that needs no network and no API key. Each run it
 * follows the memory protocol of the prompt: reads prd.json, marks the highest-priority failing story
 * as passing, appends a learning to progress.txt, and prints the completion promise once every story
 * passes. A task can make it misbehave through its `demo:` key, so that retries and rejections can
 * be seen too:
 *
 *   demo:
 *     delay: 400ms             # how long each run "works" (default 400ms)
 *     transient_failures: 1    # the first N runs fail with a rate limit (exit 75: retried)
 *     hard_failure_at: 2       # iteration N fails for good (exit 78: rejected) …
 *     hard_failure: "message"  # … with this message
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { durationMs } from '../config/units.js';
import { EXIT_CONFIG, EXIT_TEMPFAIL } from '../harness/drivers/command-driver.js';
import { parsePrd, serializePrd, storySummary } from '../memory/prd.js';
import { appendSectionText, progressSection } from '../memory/progress.js';
import { writeFileAtomic } from '../store/atomic-write.js';
import { readTaskFile } from '../task/read.js';

interface DemoSettings {
  delayMs: number;
  transientFailures: number;
  hardFailureAt: number | null;
  hardFailure: string;
}

const env = process.env;

async function main(): Promise<number> {
  // A real agent reads its whole prompt first.
  let prompt = '';
  for await (const chunk of process.stdin) prompt += String(chunk);
  const iteration = Number(env.WIGGUM_ITERATION ?? '1');
  const settings = await demoSettings(env.WIGGUM_TASK_FILE);
  const say = (line: string): void => void process.stdout.write(`[demo agent] ${line}\n`);

  say(`iteration ${iteration}: read a prompt of ${prompt.length} characters`);
  // Real time on purpose: the demo agent is a separate executable standing in for a real agent,
  // which takes real time; wiggum's clock does not reach into the processes it runs.
  await new Promise((resolve) => setTimeout(resolve, settings.delayMs));

  if (
    env.WIGGUM_SESSION_DIR &&
    (await countRun(join(env.WIGGUM_SESSION_DIR, 'demo-runs'))) <= settings.transientFailures
  ) {
    process.stderr.write('error: 429 rate limit exceeded, try again later\n');
    return EXIT_TEMPFAIL;
  }
  if (settings.hardFailureAt !== null && iteration >= settings.hardFailureAt) {
    process.stderr.write(`fatal: ${settings.hardFailure}\n`);
    return EXIT_CONFIG;
  }

  const prdPath = env.WIGGUM_PRD;
  if (!prdPath) {
    say('no prd.json was given (WIGGUM_PRD is empty): nothing to do');
    return 0;
  }
  const prd = parsePrd(await readFile(prdPath, 'utf8'), prdPath);
  const next = storySummary(prd).nextStory;
  if (next !== null) {
    say(`working on ${next.id} ${next.title}`);
    next.passes = true;
    await writeFileAtomic(prdPath, serializePrd(prd));
    if (env.WIGGUM_PROGRESS) {
      const progress = await readFile(env.WIGGUM_PROGRESS, 'utf8').catch(() => '');
      const section = progressSection({
        atMs: Date.now(),
        iteration,
        storyId: next.id,
        lines: [
          `Implemented ${next.title} (demo agent)`,
          '**Learnings for future iterations:**',
          `  - ${next.id} needed nothing but a flag flip: the demo agent is not a real agent`,
        ],
      });
      await writeFileAtomic(env.WIGGUM_PROGRESS, appendSectionText(progress, section));
    }
    say(`${next.id} passes`);
  }
  const summary = storySummary(prd);
  say(`${summary.passing} of ${summary.total === 1 ? '1 story passes' : `${summary.total} stories pass`}`);
  if (summary.passing === summary.total)
    process.stdout.write(`All stories pass.\n<promise>${env.WIGGUM_PROMISE ?? 'COMPLETE'}</promise>\n`);
  return 0;
}

async function demoSettings(taskFile: string | undefined): Promise<DemoSettings> {
  const settings: DemoSettings = {
    delayMs: 400,
    transientFailures: 0,
    hardFailureAt: null,
    hardFailure: 'the demo agent was told to fail here',
  };
  if (!taskFile) return settings;
  const read = await readTaskFile(taskFile).catch(() => null);
  const demo = read?.result.ok ? (read.result.task.frontmatter as { demo?: Record<string, unknown> }).demo : undefined;
  if (demo === undefined || demo === null || typeof demo !== 'object') return settings;
  const delay = demo.delay;
  if (typeof delay === 'number' || typeof delay === 'string')
    settings.delayMs = typeof delay === 'number' ? delay : (durationMs(delay) ?? settings.delayMs);
  if (typeof demo.transient_failures === 'number') settings.transientFailures = demo.transient_failures;
  if (typeof demo.hard_failure_at === 'number') settings.hardFailureAt = demo.hard_failure_at;
  if (typeof demo.hard_failure === 'string') settings.hardFailure = demo.hard_failure;
  return settings;
}

/** Counts this run in a file in the session folder; returns the count including this run. */
async function countRun(file: string): Promise<number> {
  const runs = Number(await readFile(file, 'utf8').catch(() => '0')) + 1;
  await writeFileAtomic(file, String(runs));
  return runs;
}

process.exitCode = await main();

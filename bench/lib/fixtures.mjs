// Realistic task files, vaults and the tiny harnesses the bench runs.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const AREAS = ['billing', 'search', 'auth', 'settings', 'exports', 'notifications', 'onboarding', 'reports'];

function pad(n, width = 3) {
  return String(n).padStart(width, '0');
}

function uuidFor(i) {
  const hex = ((i * 2654435761) >>> 0).toString(16).padStart(8, '0');
  return `${hex}-9d1f-4f6e-8a51-${pad(i, 12)}`;
}

/** A persistence_loop block as wiggum writes it, mid-run. */
function loopBlock(i, status) {
  const done = (i % 4) + 1;
  return [
    'state: Approved',
    'persistence_loop:   # owned by wiggum',
    `  status: ${status}`,
    `  session: ${uuidFor(i)}`,
    '  started: 2026-01-27T10:05:00Z',
    '  updated: 2026-01-27T11:42:13Z',
    `  iteration: ${done + 3}`,
    '  max_iterations: 20',
    '  checkpoint:',
    `    completed_steps: [${Array.from({ length: done }, (_, k) => `US-${pad(k + 1)}`).join(', ')}]`,
    `    current_step: US-${pad(done + 1)}`,
    '    state_data:',
    '      attempt: 0',
    `      active_ms: ${180_000 + i * 37}`,
    '      no_progress: 0',
    '      usage_waits: 0',
    '      warned: false',
    '      last_outcome: continue',
    '    timestamp: 2026-01-27T11:42:13Z',
  ];
}

/**
 * A task as a person writes one in Obsidian: commented frontmatter with properties, a body of a few
 * KB with context, a checklist of stories with acceptance criteria, a code block and notes.
 * `loop`: null (never run), or 'running' | 'interrupted' | 'stopped' for a checkpointed task.
 */
export function taskText(i, { loop = null, harness = 'bench', stories = 6, workdir = null, maxIterations = 20 } = {}) {
  const area = AREAS[i % AREAS.length];
  const front = [
    '---',
    `# Drafted from the ${area} triage note of week ${(i % 52) + 1}; wiggum writes only state and persistence_loop.`,
    `title: Improve ${area} flow, part ${i}   # shown on the dashboard`,
    `aliases: [${area} ${i}]`,
    'tags:',
    `  - ${area}`,
    '  - backend',
    '  - q1',
    'created: 2026-01-07T10:30:00Z',
    'due: 2026-02-01                       # the release date',
    'version: 2.30                         # kept exactly as written',
    `priority: ${i % 3 === 0 ? 'high' : 'normal'}`,
    `harness: ${harness}                   # a NAME from the config, never a command`,
    ...(workdir === null ? [] : [`workdir: ${workdir}`]),
    `max_iterations: ${maxIterations}`,
    `branch: ralph/${area}-${i}`,
    ...(loop === null ? [] : loopBlock(i, loop)),
    '---',
  ];
  const body = [
    `# Improve the ${area} flow (${i})`,
    '',
    `Users of the ${area} pages report that the flow is slow and confusing when they come back to it`,
    'after a while. This task tidies the server side, adds the missing checks and makes the page say',
    'what it is doing. Keep the public API unchanged; internal names may change.',
    '',
    '## Context',
    '',
    `- The ${area} service lives in \`services/${area}/\`; its tests run with \`npm test -- ${area}\`.`,
    '- Errors are `AppError(code, message)`; never throw strings.',
    '- The staging database is seeded by `scripts/seed.ts`; do not touch production settings.',
    `- See [[${area} design notes]] and the incident review of 2026-01-12.`,
    '',
    '## Stories',
    '',
  ];
  for (let s = 1; s <= stories; s += 1) {
    body.push(
      `- [ ] US-${pad(s)} ${['Validate the input', 'Cache the lookup', 'Paginate the list', 'Explain the error', 'Add the audit line', 'Remove the dead flag', 'Retry the webhook', 'Document the change'][(i + s) % 8]} of step ${s}`,
    );
    body.push(`  - the ${area} handler returns 400 with a message naming the field when it is missing`);
    body.push(`  - a unit test covers the happy path and the two error paths of step ${s}`);
    body.push('  - `npm run lint` and `npm test` pass');
  }
  body.push(
    '',
    '## Example',
    '',
    '```ts',
    `export async function ${area}Handler(request: Request): Promise<Response> {`,
    '  const input = parseInput(await request.json());',
    `  const result = await ${area}Service.run(input, { timeoutMs: 5_000 });`,
    '  return Response.json(result, { status: 200 });',
    '}',
    '```',
    '',
    '## Notes',
    '',
    'Keep commits small, one story each, with the story id in the subject. If something is unclear,',
    'write the question into progress.txt and pick the next story rather than guess.',
    '',
  );
  return `${front.join('\n')}\n${body.join('\n')}`;
}

/** A finished task as it sits in Done/ or Rejected/: final checkpoint plus the appended section. */
export function finishedTaskText(i, kind) {
  const text = taskText(i, { loop: null, stories: 4 }).replace(
    /\n---\n/,
    `\nstate: ${kind === 'done' ? 'Done' : 'Rejected'}\npersistence_loop:\n  status: ${kind}\n  session: ${uuidFor(i)}\n  started: 2026-01-27T10:05:00Z\n  updated: 2026-01-27T12:00:00Z\n  ended: 2026-01-27T12:00:00Z\n  iteration: 6\n  max_iterations: 20\n  exit_reason: ${kind === 'done' ? 'completed' : 'E_NO_PROGRESS'}\n---\n`,
  );
  const section =
    kind === 'done'
      ? `\n## Completion summary\n\n- Completed after 6 iterations (active 00:12:31), harness bench.\n- Stories: US-001, US-002, US-003, US-004 all pass.\n- Session memory: .wiggum/sessions/task-${i}\n`
      : `\n## Failure report\n\n- Reason: no progress in 5 iterations in a row (E_NO_PROGRESS).\n- Failed at iteration 6 of 20.\n\n### Last output\n\n\`\`\`\nnothing to do\n\`\`\`\n`;
  return text + section;
}

/** The harness of the daemon phases: records its start time, marks every story passing, claims completion. No fork, no exec. */
export function writeBenchAgent(dir) {
  const path = join(dir, 'bench-agent.sh');
  writeFileSync(
    path,
    [
      '#!/bin/bash',
      '# wiggum bench agent: when it started (wall clock, µs), that it ran, then one iteration of work.',
      'printf \'%s\\n\' "$EPOCHREALTIME" > "$BENCH_MARKS/$WIGGUM_TASK_ID.start"',
      'printf \'%s\\n\' "$WIGGUM_TASK_ID" >> "$BENCH_MARKS/runs.log"',
      'IFS= read -r -d \'\' prd < "$WIGGUM_PRD"',
      'printf \'%s\' "${prd//\\"passes\\": false/\\"passes\\": true}" > "$WIGGUM_PRD"',
      'printf \'<promise>%s</promise>\\n\' "$WIGGUM_PROMISE"',
      '',
    ].join('\n'),
  );
  chmodSync(path, 0o755);
  return path;
}

/** An empty vault with `.wiggum/config.yaml` (YAML written by hand: the bench has no YAML writer of its own). */
export function makeVault(root, configYaml) {
  for (const folder of ['Approved', 'Done', 'Rejected', '.wiggum']) mkdirSync(join(root, folder), { recursive: true });
  writeFileSync(join(root, '.wiggum', 'config.yaml'), configYaml);
  return {
    root,
    approved: join(root, 'Approved'),
    done: join(root, 'Done'),
    rejected: join(root, 'Rejected'),
  };
}

/** Config of a daemon vault: the bench agent as the default harness. */
export function daemonConfig(agent, marks) {
  return [
    'harness:',
    '  default: bench',
    'harnesses:',
    '  bench:',
    '    kind: command',
    `    command: ${agent}`,
    '    args: []',
    '    env:',
    `      BENCH_MARKS: ${marks}`,
    '',
  ].join('\n');
}

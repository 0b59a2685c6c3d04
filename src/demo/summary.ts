/**
 * What `npm start` (scripts/demo.mjs) says when the demo's daemon has exited: how many tasks went
 * to Done/ and Rejected/, which files to open, and how to go on. A pure function of the folders'
 * listings, so the words are tested without running the demo.
 */
export interface DemoEnd {
  /** The vault as the user should type it (relative to where they ran `npm start`). */
  vault: string;
  /** Task file names (`add-dark-mode.md`) in each folder. */
  done: readonly string[];
  rejected: readonly string[];
  approved: readonly string[];
  /** The daemon's exit code (null: killed by a signal). */
  exitCode: number | null;
  /** The wrapper passed on a Ctrl-C or SIGTERM. */
  interrupted: boolean;
  /** The command that starts the daemon on this vault again. */
  again: string;
}

export function demoSummary(end: DemoEnd): string[] {
  const lines: string[] = [''];
  const left = end.approved.length;
  if (end.exitCode !== 0)
    lines.push(`wiggum demo: the daemon exited with ${end.exitCode ?? 'a signal'}; see the log above.`);
  else if (left === 0) lines.push('wiggum demo: every task ran to its end; nothing is left in Approved/.');
  else if (end.interrupted)
    lines.push(`wiggum demo: stopped; ${count(left, 'task')} left in Approved/, checkpointed where they stopped.`);
  else lines.push(`wiggum demo: the daemon stopped; ${count(left, 'task')} left in Approved/.`);
  lines.push(`  ${count(end.done.length, 'task')} went to Done/${end.done.length === 0 ? '' : ':'}`);
  for (const name of end.done) lines.push(`    ${end.vault}/Done/${name}`);
  lines.push(
    `  ${count(end.rejected.length, 'task')} went to Rejected/${end.rejected.length === 0 ? '' : ' (each file ends with a report of why):'}`,
  );
  for (const name of end.rejected) lines.push(`    ${end.vault}/Rejected/${name}`);
  lines.push(`  the overview: ${end.vault}/Dashboard.md`);
  lines.push(
    ...(left === 0
      ? ['The demo has exited. To watch the vault again (and drop tasks into Approved/):', `  ${end.again}`]
      : [`To go on from the checkpoints: ${end.again}`]),
  );
  return lines;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

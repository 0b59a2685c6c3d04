import type { IterationRecord } from '../memory/history.js';
import type { LoopStatus } from '../task/vocabulary.js';
import { checkpointData } from './checkpoint.js';
import type { WaitCause } from './decide.js';
import type { EndingDeps } from './ending.js';
import type { LoopEvent } from './events.js';
import { writeCheckpoint } from './write-checkpoint.js';

/** What the pipeline writes into: a run's file as last written, and the keys of its checkpoint (loop-run.ts). */
export interface CheckpointSubject {
  file: string;
  lastText: string;
  readonly taskId: string;
  checkpointKeys(
    status: LoopStatus,
    record?: IterationRecord,
    ending?: undefined,
    wait?: { untilMs: number; why: WaitCause },
  ): Parameters<typeof checkpointData>[0];
  follow(): Promise<void>;
  endingDeps(): EndingDeps;
  event(event: LoopEvent): void;
}

/**
 * A run's checkpoints, in order. An iteration that goes straight on has its checkpoint written
 * behind the next agent's run: its history line is already written (in the page cache, so a kill -9
 * keeps it, and a resume counts it: resume-plan.ts), and the checkpoint's rename still waits for
 * that line's fsync and its own. Whatever follows the next run (the next history line, an ending,
 * another checkpoint) waits for it (`durable`). After a power loss the record of at most this one
 * iteration is lost, and the iteration runs again.
 */
export class CheckpointPipeline {
  /**
   * The folder fsync of the last checkpoint that counted an iteration, not waited for when it was
   * written: the next history line or ending waits for it, so the history is never more than one
   * iteration ahead of a durable checkpoint (resume-plan.ts).
   */
  private synced: Promise<void> | null = null;
  /** The checkpoint of the last iteration while the next agent runs: awaited, with its error, before anything else reads or writes the file or the history. */
  private writing: Promise<void> | null = null;

  constructor(private readonly run: CheckpointSubject) {}

  /** Whether a checkpoint is being written behind the agent now. */
  get behindTheAgent(): boolean {
    return this.writing !== null;
  }

  /**
   * Writes a checkpoint. `after`: the history line this checkpoint counts, which must be durable
   * before it shows; such a checkpoint's folder fsync is waited for later (`durable`).
   */
  async write(
    status: LoopStatus,
    record?: IterationRecord,
    wait?: { untilMs: number; why: WaitCause },
    after?: Promise<void>,
  ): Promise<void> {
    const { run } = this;
    // Taken now: the loop goes on while a checkpoint written behind the next agent waits for its fsyncs.
    const keys = checkpointData(run.checkpointKeys(status, record, undefined, wait));
    await this.written();
    await run.follow();
    const text = await writeCheckpoint(
      run.file,
      run.lastText,
      {
        keys: { state: 'Approved', persistence_loop: keys },
        ...(after === undefined ? {} : { after, deferFolderSync: (synced) => this.deferSync(synced) }),
      },
      run.endingDeps(),
    );
    if (text === null) return;
    run.lastText = text;
    run.event({
      type: 'checkpoint',
      taskId: run.taskId,
      iteration: keys.iteration,
      maxIterations: keys.max_iterations,
    });
  }

  /** The checkpoint of an iteration that goes straight on, written while the next agent runs. */
  behind(record: IterationRecord, historyKept: Promise<void>): void {
    const written = this.write('running', record, undefined, historyKept).then(() => historyKept);
    // Handled when awaited (written); until then its failure must not be an unhandled rejection.
    written.catch(() => undefined);
    this.writing = written;
  }

  /** The checkpoint written behind the agent has been renamed into place (its error, if any, thrown). */
  async written(): Promise<void> {
    const writing = this.writing;
    this.writing = null;
    await writing;
  }

  /** Every checkpoint written so far is on disk, its folder synced. */
  async durable(): Promise<void> {
    await this.written();
    const synced = this.synced;
    this.synced = null;
    await synced;
  }

  /** A loop that ends by an exception leaves no write of its task file behind it. */
  async settle(): Promise<void> {
    await this.writing?.catch(() => undefined);
  }

  private deferSync(synced: Promise<void>): void {
    // Handled when awaited (durable); until then its failure must not be an unhandled rejection.
    synced.catch(() => undefined);
    this.synced = synced;
  }
}

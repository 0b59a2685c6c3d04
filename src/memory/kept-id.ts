import { legacyIdFromFileName } from '../task/id.js';
import type { Task } from '../task/parse.js';
import { sessionPaths } from './paths.js';
import { parseSessionMeta, readMemoryText } from './session-meta.js';

/** What decides the id a run uses, when an older wiggum may have named the task's session differently. */
export interface IdChoice {
  /** The id from the frontmatter or, when it has none, from the file name as wiggum spells it now. */
  derived: string;
  /** True when the frontmatter names the id: nothing is derived, nothing to keep. */
  explicit: boolean;
  /** The id the file name gave before ids were spelled in ASCII. */
  legacy: string;
  /** The session the task's checkpoint resumes (`persistence_loop.session`). */
  checkpointSession: string | undefined;
  /** The session that the folder named by the legacy id belongs to, or null when there is none. */
  legacyFolderSession: string | null;
}

/**
 * The id a task runs under. A task that an older wiggum started under the id it then derived
 * (`Caf-cr-me` for "Café crème.md") keeps that id while its checkpoint resumes the session in that
 * folder: its memory, workspace and history are found where they are. Every other task takes the
 * id as spelled now.
 */
export function chooseTaskId(choice: IdChoice): string {
  if (choice.explicit || choice.legacy === choice.derived || choice.checkpointSession === undefined)
    return choice.derived;
  return choice.legacyFolderSession === choice.checkpointSession ? choice.legacy : choice.derived;
}

/** The task with the id it runs under (see chooseTaskId); reads at most one session.json. */
export function withKeptId(task: Task, sessionsRoot: string): Task {
  const explicit = task.frontmatter.id !== undefined;
  const legacy = legacyIdFromFileName(task.file);
  const checkpointSession = task.frontmatter.persistence_loop?.session;
  const needsLook = !explicit && legacy !== task.id && checkpointSession !== undefined;
  const legacyFolderSession = needsLook ? sessionOf(sessionsRoot, legacy) : null;
  const id = chooseTaskId({ derived: task.id, explicit, legacy, checkpointSession, legacyFolderSession });
  return id === task.id ? task : { ...task, id };
}

function sessionOf(sessionsRoot: string, id: string): string | null {
  const file = sessionPaths(sessionsRoot, id).sessionFile;
  try {
    const text = readMemoryText(file);
    return text === null ? null : parseSessionMeta(text, file).sessionId;
  } catch {
    // An unreadable session.json belongs to no one we can name: the task takes the id spelled now.
    return null;
  }
}

import type { RawConfig } from './schema.js';

/** Where a task's memory is kept, and how much of what an agent wrote into it is read back. */
export interface MemorySettings {
  backend: 'disk' | 'memory';
  /** A task in a git repository keeps prd.json and progress.txt in its workdir (`.ralph/<task id>/`), committed with the code. */
  inWorkdir: boolean;
  /** The largest prd.json, progress.txt and context.md read after an agent ran (memory/limits.ts). */
  limits: { prdBytes: number; progressBytes: number; contextBytes: number };
}

export function compileMemory({ backend, in_workdir, limits }: RawConfig['memory']): MemorySettings {
  const { prd: prdBytes, progress: progressBytes, context: contextBytes } = limits;
  return { backend, inWorkdir: in_workdir, limits: { prdBytes, progressBytes, contextBytes } };
}

import { open, rm } from 'node:fs/promises';
import { QUESTION_MAX_CHARS, boundQuestion } from './question.js';
import type { AskedText } from './question.js';
import { SecretMask } from '../secret-mask.js';

/**
 * Reads the question an agent wrote to `$WIGGUM_QUESTION`, or null when it wrote none, and removes
 * the file (the question lives on in the task file and the history). Only the first bytes are read:
 * a 100 MB file costs no more than a short one; its length is said from its size.
 */
export async function readQuestionFile(path: string, mask: SecretMask = SecretMask.none): Promise<AskedText | null> {
  if (path === '') return null;
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const { size } = await handle.stat();
    // Four bytes per character at most, and room for white space trimmed from the start.
    const buffer = Buffer.alloc(Math.min(size, QUESTION_MAX_CHARS * 4 + 1024));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    // Masked before it is cut, so that a cut question never shows half of a secret.
    const head = mask.text(buffer.subarray(0, bytesRead).toString('utf8'));
    const bounded = boundQuestion(head);
    // Characters not read are counted as bytes: a close enough length for "it was cut".
    return { text: bounded.text, length: bounded.length + (size - bytesRead) };
  } finally {
    await handle.close();
    await rm(path, { force: true });
  }
}

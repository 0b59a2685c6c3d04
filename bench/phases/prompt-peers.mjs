// What two other Ralph loops send as the prompt of each iteration for the bench's 5-story task
// (bench/lib/prompt-scenario.mjs), recorded as sizes: their text is not kept here. Computed by
// `node bench/peers/peer-prompts.mjs` from their sources at the pinned commits below (fetched into
// node_modules/.cache/wiggum-bench-peers/); `--check` compares them with these figures. Tokens are
// o200k_base (gpt-tokenizer); `added` is the prompt less the user's own text it carries (task,
// stories, context note); `reads` is what the prompt tells the agent to read from disk besides.
export const PEER_SOURCES = {
  snarktank: 'https://github.com/snarktank/ralph/blob/6c53cb0b831ebe8739c6a003e22af14902d8b0b5/prompt.md',
  snarktankClaude: 'https://github.com/snarktank/ralph/blob/6c53cb0b831ebe8739c6a003e22af14902d8b0b5/CLAUDE.md',
  snarktankLoop: 'https://github.com/snarktank/ralph/blob/6c53cb0b831ebe8739c6a003e22af14902d8b0b5/ralph.sh',
  openRalphWiggum:
    'https://github.com/Th0rgal/open-ralph-wiggum/blob/ec503200adf05ccd6b39ddd0fd18f666f595b085/ralph.ts',
};

export const PEER_PROMPTS = [
  {
    key: 'snarktank prompt.md',
    name: 'snarktank/ralph (amp, prompt.md)',
    carries:
      'the same 4.2 KB file every iteration (ralph.sh pipes prompt.md to amp): the protocol, a progress-entry template, AGENTS.md advice, browser checks; no task text, no iteration number: the task is in prd.json, which the agent reads with progress.txt',
    at: {
      1: { bytes: 4199, tokens: 933, addedBytes: 4199, addedTokens: 933, readsBytes: 2782 },
      10: { bytes: 4199, tokens: 933, addedBytes: 4199, addedTokens: 933, readsBytes: 6632 },
    },
  },
  {
    key: 'snarktank CLAUDE.md',
    name: 'snarktank/ralph (claude, CLAUDE.md)',
    carries: 'as prompt.md, with CLAUDE.md for AGENTS.md and no Amp thread link',
    at: {
      1: { bytes: 4069, tokens: 909, addedBytes: 4069, addedTokens: 909, readsBytes: 2782 },
      10: { bytes: 4069, tokens: 909, addedBytes: 4069, addedTokens: 909, readsBytes: 6632 },
    },
  },
  {
    key: 'open-ralph-wiggum',
    name: 'open-ralph-wiggum (default)',
    carries:
      'the task text as given (`ralph "<task>"`) inside a fixed frame: iteration, generic steps, promise rules; a mid-loop context note once; no memory files, no story state',
    at: {
      1: { bytes: 3163, tokens: 798, addedBytes: 868, addedTokens: 215, readsBytes: 0 },
      10: { bytes: 3317, tokens: 838, addedBytes: 925, addedTokens: 226, readsBytes: 0 },
    },
  },
  {
    key: 'open-ralph-wiggum --tasks',
    name: 'open-ralph-wiggum (--tasks)',
    carries:
      'as default, plus the whole task list (.ralph/ralph-tasks.md) embedded every iteration, the current task and a second promise per task',
    at: {
      1: { bytes: 3766, tokens: 994, addedBytes: 1425, addedTokens: 385, readsBytes: 0 },
      10: { bytes: 3938, tokens: 1035, addedBytes: 1500, addedTokens: 397, readsBytes: 0 },
    },
  },
];

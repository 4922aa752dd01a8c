// Mocha root hooks, loaded in every worker process (see .mocharc.json).
export const mochaHooks = {};

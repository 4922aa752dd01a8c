// Structured logs (JSON lines on stdout) at LOG_LEVEL. Secrets never reach a log: request bodies
// are not logged, and the Authorization header is redacted wherever a request is.
import pino, { type Logger } from 'pino';

export function createLogger(level: string): Logger {
  return pino({ level, redact: ['req.headers.authorization', '*.authorization'] });
}

export type { Logger };

import { pino, type Logger } from 'pino';

export type { Logger };

/** JSON lines on stdout (the operational contract); tests pass their own destination. */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino({ level, base: { service: 'managed-dns' }, timestamp: pino.stdTimeFunctions.isoTime }, destination ?? process.stdout);
}

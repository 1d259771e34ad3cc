// What the nameserver needs from a logger: pino's (object, message) calls, nothing more, so the
// package stays free of any logging library (the service hands in its pino logger).
export interface NameserverLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

/** A logger that drops everything (benchmarks, fuzzing). */
export const silentLogger: NameserverLogger = {
  info() {},
  warn() {},
  error() {},
  debug() {},
};

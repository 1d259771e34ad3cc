// A DNS server nobody here wrote (knotd, named, pdns_server) run by a test: started on a port,
// tried again on another when that port was taken meanwhile (another test file may take it
// between the choice and the bind: each daemon then exits or fails to get ready), stopped,
// restarted on the same port and data, and cleaned up. What differs per daemon — its
// configuration, its command, when it is ready — is the caller's.
import type { ChildProcess } from 'node:child_process';

export interface Daemon {
  port: number;
  /** What the daemon logged since it was last started. */
  log(): string;
  /** Starts it again on the same port and data. */
  restart(): Promise<void>;
  stop(): Promise<void>;
  /** Stops it and removes what it was given (its directory, its database). */
  close(): Promise<void>;
}

export interface DaemonSpec {
  /** For errors: "<name> did not start". */
  name: string;
  /** A free port to try. */
  port: () => Promise<number>;
  /** Writes the configuration for `port` (called before each first try on a port). */
  configure(port: number): void | Promise<void>;
  /**
   * Spawns the daemon and waits until it serves on `port`; its output goes to `log`. Returns the
   * process, or null when it exited or never got ready (it must then be stopped).
   */
  launch(port: number, log: (text: string) => void): Promise<ChildProcess | null>;
  /** Removes what `configure` made (after the daemon stopped). */
  cleanup(): void | Promise<void>;
}

/** Stops `c` with SIGTERM and waits for it to exit. */
export async function stopProcess(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  const exited = new Promise((r) => c.once('exit', r));
  c.kill('SIGTERM');
  await exited;
}

const ATTEMPTS = 3;

export async function startDaemon(spec: DaemonSpec): Promise<Daemon> {
  let child: ChildProcess | null = null;
  let output = '';
  let port = 0;
  const launch = async (): Promise<boolean> => {
    output = '';
    child = await spec.launch(port, (text) => (output += text));
    return child !== null;
  };
  const stop = async () => {
    const c = child;
    child = null;
    if (c) await stopProcess(c);
  };
  try {
    for (let attempt = 1; ; attempt++) {
      port = await spec.port();
      await spec.configure(port);
      if (await launch()) break;
      if (attempt >= ATTEMPTS) throw new Error(`${spec.name} did not start:\n${output}`);
    }
  } catch (error) {
    await spec.cleanup();
    throw error;
  }
  return {
    get port() {
      return port;
    },
    log: () => output,
    restart: async () => {
      await stop();
      if (!(await launch())) throw new Error(`${spec.name} did not restart:\n${output}`);
    },
    stop,
    close: async () => {
      await stop();
      await spec.cleanup();
    },
  };
}

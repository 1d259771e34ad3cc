// DNS software nobody here wrote (BIND's named-checkzone, Knot's kzonecheck, …), used by tests to
// cross-check what the service produces. On a developer machine without the tool the test is
// skipped; in CI (.ci/run installs the Debian packages and sets REQUIRE_DNS_TOOLS=1) a missing
// tool fails the test instead of silently skipping the check.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, type TestContext } from 'vitest';

/** Debian package of each tool, for the message. */
const PACKAGE_OF: Record<string, string> = {
  'named-checkzone': 'bind9-utils',
  'named-compilezone': 'bind9-utils',
  kzonecheck: 'knot-dnssecutils',
  kdig: 'knot-dnsutils',
  dig: 'dnsutils',
  nsupdate: 'dnsutils',
  knsupdate: 'knot-dnsutils',
  knotd: 'knot',
  pdns_server: 'pdns-server',
  pdnsutil: 'pdns-server',
  unbound: 'unbound',
  delv: 'dnsutils',
  'ldns-verify-zone': 'ldnsutils',
  'ldns-read-zone': 'ldnsutils',
  ddclient: 'ddclient',
  inadyn: 'inadyn',
};

/** The absolute path of an executable on PATH, or null. */
export function findTool(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * The path of `name`. Missing: throws when REQUIRE_DNS_TOOLS=1 (CI), otherwise skips the running
 * test (`ctx.skip`) — pass the test context. Without a context (at collection time) a missing tool
 * gives null when not required, so callers can `it.skipIf(!tool)`.
 */
export function requireTool(name: string, ctx: Pick<TestContext, 'skip'>): string;
export function requireTool(name: string): string | null;
export function requireTool(name: string, ctx?: Pick<TestContext, 'skip'>): string | null {
  const found = findTool(name);
  if (found) return found;
  const hint = PACKAGE_OF[name] ? ` (Debian package ${PACKAGE_OF[name]})` : '';
  if (process.env.REQUIRE_DNS_TOOLS === '1') {
    throw new Error(`${name}${hint} is required (REQUIRE_DNS_TOOLS=1) but is not on PATH`);
  }
  if (ctx) ctx.skip(`${name}${hint} is not installed`);
  return null;
}

export interface ToolRun {
  status: number | null;
  /** stdout and stderr together, as the tool printed them. */
  output: string;
  stdout: string;
}

/** Runs a tool to completion (no shell), with a time limit. */
export function runTool(tool: string, args: string[], options: { input?: string; timeoutMs?: number } = {}): ToolRun {
  const r = spawnSync(tool, args, { input: options.input, encoding: 'utf8', timeout: options.timeoutMs ?? 30_000, maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  return { status: r.status, output: `${r.stdout}${r.stderr}`, stdout: r.stdout };
}

/**
 * Runs a tool without blocking the test process: for clients of a server that lives in the test
 * process (a synchronous spawn would stop it from answering). `input` is written to its stdin
 * (nsupdate's script), which is otherwise closed.
 */
export function runToolAsync(
  tool: string,
  args: string[],
  timeoutMs = 20_000,
  input?: string,
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool, args, { env: options.env ?? process.env, cwd: options.cwd, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    if (input !== undefined) child.stdin!.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Writes `text` to a fresh temporary file and returns its path (and a way to remove it). */
export function tempFile(name: string, text: string): { file: string; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdns-zonefile-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return { file, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Loads a zone file with BIND's named-checkzone and Knot's kzonecheck, as an operator would before
 * serving it; both must accept it. `-i local`: BIND checks the names inside the zone and looks
 * nothing up elsewhere (there is no network here). Returns what each printed.
 */
export function checkWithBindAndKnot(ctx: TestContext, zone: string, text: string, options: { dnssecChecks?: boolean } = {}): { bind: string; knot: string } {
  const named = requireTool('named-checkzone', ctx);
  const kzonecheck = requireTool('kzonecheck', ctx);
  const file = tempFile(`${zone}.zone`, text);
  try {
    const bind = runTool(named, ['-i', 'local', zone, file.file]);
    expect(bind.status, `named-checkzone refused the file:\n${bind.output}\n${text}`).toBe(0);
    expect(bind.output).toMatch(/loaded serial \d+\nOK\n$/);
    const knot = runTool(kzonecheck, [...(options.dnssecChecks === false ? ['-d', 'off'] : []), '-o', zone, file.file]);
    expect(knot.status, `kzonecheck refused the file:\n${knot.output}\n${text}`).toBe(0);
    return { bind: bind.output, knot: knot.output };
  } finally {
    file.remove();
  }
}

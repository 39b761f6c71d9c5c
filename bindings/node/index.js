// Run commands under sandbox-exec-launcher (docs/host-guide.md): a validated
// policy, a supervised run (--outcome-fd, --timeout) that leaves no process
// behind, and the parsed outcome (docs/api.md, "The outcome, schema 1").
// Node's standard library only.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const EXPECTED_VERSION = [0, 1, 0];
export const MODES = ['sandbox', 'no-network', 'confine-fs', 'read-only'];
export const CLASSES = ['project', 'research', 'build', 'offline', 'media', 'tool-server'];
// After a cancellation the command has this long to end on SIGTERM before the
// launcher is killed (the supervised run dies with its launcher).
const GRACE_MS = 2500;
// How long past the launcher's own --timeout the host waits before ending the run itself.
const BACKSTOP_MS = 15000;
// How long the launcher's process group may outlive it (its supervisor ending
// what the command left) before it is killed outright.
const GROUP_GONE_MS = 10000;

export class PolicyError extends Error { constructor(m) { super(m); this.name = 'PolicyError'; } }
export class LauncherError extends Error { constructor(m) { super(m); this.name = 'LauncherError'; } }

const checkPath = (what, p) => {
  if (typeof p !== 'string' || !p.startsWith('/') || p.includes('\0'))
    throw new PolicyError(`${what}: an absolute path without NUL bytes is needed, got ${JSON.stringify(p)}`);
};
const checkPattern = (p) => {
  if (typeof p !== 'string' || p === '' || p.includes('\0'))
    throw new PolicyError(`protect: a non-empty pattern without NUL bytes is needed, got ${JSON.stringify(p)}`);
};

/** The launcher's policy flags, validated; throws PolicyError. */
export function policyFlags(policy = {}) {
  const p = { mode: 'sandbox', addDirs: [], addReads: [], protect: [], ...policy };
  if (!MODES.includes(p.mode)) throw new PolicyError(`mode ${JSON.stringify(p.mode)} is not one of ${MODES.join(', ')}`);
  if (p.class != null && !CLASSES.includes(p.class))
    throw new PolicyError(`class ${JSON.stringify(p.class)} is not one of ${CLASSES.join(', ')}`);
  if (p.mode === 'read-only' && (p.class || p.writableCaches || p.output))
    throw new PolicyError('read-only is a fixed profile: it takes no class, writable caches or output');
  if (p.class === 'media' && !p.output) throw new PolicyError('class media needs its output folder (output)');
  if (p.output && p.class !== 'media') throw new PolicyError('output is the output folder of class media only');
  if (p.addReads.length && !p.class) throw new PolicyError('addReads has no effect without a class');
  const f = ['--' + p.mode];
  if (p.class === 'tool-server') f.push('--tool-server');
  else if (p.class) f.push('--class', p.class);
  for (const [opt, key] of [['--project', 'project'], ['--workdir', 'workdir'], ['--output', 'output'], ['--scratch', 'scratch']]) {
    if (p[key] != null) { checkPath(key, p[key]); f.push(opt, p[key]); }
  }
  for (const d of p.addDirs) { checkPath('addDirs', d); f.push('--add-dir', d); }
  for (const d of p.addReads) {
    checkPath('addReads', d);
    if (d === '/') throw new PolicyError('addReads: never /');
    f.push('--add-read', d);
  }
  for (const pat of p.protect) { checkPattern(pat); f.push('--protect', pat); }
  if (p.writableCaches) f.push('--writable-caches');
  if (p.protectSecrets) f.push('--protect-secrets');
  if (p.netEperm) f.push('--net-eperm');
  if (p.noUserNamespaces) f.push('--no-user-namespaces');
  return f;
}

const versions = new Map();

/** The launcher: explicit path, else $SANDBOX_EXEC_LAUNCHER, else PATH; version checked. */
export function findLauncher(explicit) {
  let p = explicit, where = 'the explicit path';
  if (!p) { p = process.env.SANDBOX_EXEC_LAUNCHER; where = '$SANDBOX_EXEC_LAUNCHER'; }
  if (!p) {
    where = 'PATH';
    p = (process.env.PATH || '').split(':').filter(Boolean).map((d) => path.join(d, 'sandbox-exec-launcher'))
      .find((c) => { try { fs.accessSync(c, fs.constants.X_OK); return fs.statSync(c).isFile(); } catch { return false; } });
    if (!p) throw new LauncherError('sandbox-exec-launcher not found: pass its path, set SANDBOX_EXEC_LAUNCHER, or put it on PATH');
  }
  let st;
  try { fs.accessSync(p, fs.constants.X_OK); st = fs.statSync(p); } catch { st = null; }
  if (!st || !st.isFile()) throw new LauncherError(`sandbox-exec-launcher from ${where} (${p}) is not an executable file`);
  const key = `${p}\0${st.ino}\0${st.mtimeMs}`;
  if (!versions.has(key)) {
    let out;
    try { out = execFileSync(p, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 30000 }); }
    catch (e) { throw new LauncherError(`launcher ${p} cannot be run: ${e.message}`); }
    const m = /(\d+)\.(\d+)\.(\d+)/.exec(out);
    if (!m) throw new LauncherError(`launcher ${p} printed no version (--version said ${JSON.stringify(out)})`);
    versions.set(key, m.slice(1).map(Number));
  }
  const got = versions.get(key);
  const cmp = got.map((v, i) => v - EXPECTED_VERSION[i]).find((d) => d !== 0) || 0;
  if (cmp < 0)
    throw new LauncherError(`launcher ${p} is version ${got.join('.')}; this package needs ${EXPECTED_VERSION.join('.')} or later: install a newer sandbox-exec-launcher`);
  return p;
}

const groupAlive = (pgid) => {
  try { process.kill(-pgid, 0); return true; } catch (e) { return e.code !== 'ESRCH'; }
};

// The launcher's supervisor (same process group) ends what the command left
// after the launcher dies: wait for the group to empty, then kill what remains.
async function groupGone(pgid) {
  const deadline = Date.now() + GROUP_GONE_MS;
  while (groupAlive(pgid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  try { process.kill(-pgid, 'SIGKILL'); } catch { /* already empty */ }
}

function parseOutcome(status, stdout, stderr, text, cancelled) {
  if (!text.trim())
    return { ran: false, status, exitCode: status, signal: null, signalName: null, stdout, stderr,
      records: [], certain: [], hedged: [], sandbox: null, timedOut: false, cancelled,
      summary: null, warning: null, leftoverProcesses: 0, limit: null, limitCertain: false,
      sandboxFailure: null, sandboxFailed: null, raw: null };
  const d = JSON.parse(text);
  const records = d.records || [];
  return { ran: true, status, exitCode: d.exit_code, signal: d.signal, signalName: d.signal_name,
    stdout, stderr, records, certain: records.filter((r) => r.certain),
    hedged: records.filter((r) => !r.certain), sandbox: d.sandbox, timedOut: !!d.timed_out,
    cancelled, summary: d.summary, warning: d.warning, leftoverProcesses: d.leftover_processes || 0,
    limit: d.limit ?? null, limitCertain: !!d.limit_certain,
    sandboxFailure: d.sandbox_failure ?? null, sandboxFailed: d.sandbox_failed ?? null, raw: d };
}

/**
 * Run argv under the launcher, supervised. Resolves (or rejects, with an
 * AbortError on options.signal) only once the process tree is gone.
 */
export async function run(argv, options = {}) {
  const { policy = {}, timeout, cwd, env, stdin, signal, launcher } = options;
  if (!Array.isArray(argv) || argv.length === 0 || !argv.every((a) => typeof a === 'string'))
    throw new TypeError('argv: a non-empty array of strings is needed');
  if (timeout != null && !(timeout > 0)) throw new RangeError('timeout: a positive number of seconds is needed');
  const flags = policyFlags(policy);
  const exe = findLauncher(launcher);
  signal?.throwIfAborted();
  // A file, so nothing has to be drained meanwhile; unlinked before the
  // command starts, since the sandbox may write the temp directory and a
  // command that found the file by name could forge or spoil its outcome.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-outcome-'));
  const fd = fs.openSync(path.join(dir, 'outcome'), 'w+', 0o600);
  fs.rmSync(dir, { recursive: true, force: true });
  try {
    const args = [...flags, '--outcome-fd', '3'];
    // Fixed notation, never an exponent; at least 1 ms, never a 0 the launcher could read as none.
    if (timeout != null) args.push('--timeout', Math.max(timeout, 0.001).toFixed(3));
    args.push('--', ...argv);
    // detached: a session and process group of its own, so the terminal's
    // Ctrl-C reaches the host, which ends the run in order.
    const child = spawn(exe, args, { cwd, env, detached: true,
      stdio: [stdin != null ? 'pipe' : 'ignore', 'pipe', 'pipe', fd] });
    const out = [], err = [];
    child.stdout.on('data', (b) => out.push(b));
    child.stderr.on('data', (b) => err.push(b));
    if (stdin != null) { child.stdin.on('error', () => {}); child.stdin.end(stdin); }
    let cancelled = false, aborted = false, killTimer = null;
    // Cancel: SIGTERM reaches the command; then the launcher is killed. Never a
    // group kill first: it would kill the supervisor before it ends what the
    // command started in other sessions.
    const end = () => {
      if (killTimer) return;
      try { child.kill('SIGTERM'); } catch { /* gone */ }
      killTimer = setTimeout(() => { try { child.kill('SIGKILL'); } catch { /* gone */ } }, GRACE_MS);
    };
    const onAbort = () => { aborted = true; end(); };
    signal?.addEventListener('abort', onAbort, { once: true });
    const backstop = timeout != null ? setTimeout(() => { cancelled = true; end(); }, timeout * 1000 + BACKSTOP_MS) : null;
    const [code, sig] = await new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (c, s) => resolve([c, s]));
    }).finally(() => {
      clearTimeout(backstop); clearTimeout(killTimer);
      signal?.removeEventListener('abort', onAbort);
    });
    if (child.pid) await groupGone(child.pid);
    if (aborted) {
      const e = new Error('the sandboxed run was aborted; its process tree is gone');
      e.name = 'AbortError'; e.cause = signal.reason;
      throw e;
    }
    const status = sig ? 128 + os.constants.signals[sig] : code;
    const buf = Buffer.alloc(fs.fstatSync(fd).size);
    fs.readSync(fd, buf, 0, buf.length, 0);
    const text = buf.toString('utf8');
    return parseOutcome(status, Buffer.concat(out), Buffer.concat(err), text, cancelled);
  } finally {
    fs.closeSync(fd);
  }
}

function jsonAction(args, launcher) {
  const exe = findLauncher(launcher);
  let out;
  try { out = execFileSync(exe, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60000 }); }
  catch (e) { throw new LauncherError(`${args.slice(0, 2).join(' ')} failed with status ${e.status}: ${String(e.stderr || '').trim()}`); }
  return JSON.parse(out);
}

/** `--self-test --json`: what this machine enforces. */
export function selfTest(options = {}) { return jsonAction(['--self-test', '--json'], options.launcher); }

/** `--explain --json`: what the policy would enforce; nothing runs. */
export function explain(policy = {}, options = {}) {
  return jsonAction(['--explain', '--json', ...policyFlags(policy), '--', ...(options.argv || ['true'])], options.launcher);
}

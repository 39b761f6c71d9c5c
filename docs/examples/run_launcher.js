#!/usr/bin/env node
// A Node host running model-written commands through sandbox-exec-launcher.
//   node run_launcher.js [LAUNCHER] [-- CMD ARGS...]
// With --outcome-fd the launcher writes the run's outcome as one JSON object
// (docs/api.md, "The outcome"): the exit status and every refusal the kernel
// reported, certain, as opposed to words in stderr. Its --timeout ends the
// whole process tree (exit 124); if this host dies, or kills the launcher,
// the run dies with it.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

let warned = false; // the host's once-per-process flag

function runSandboxed(launcher, cmd, project, timeoutSeconds = 60) {
  const caps = JSON.parse(spawnSync(launcher, ['--self-test', '--json'], { encoding: 'utf8' }).stdout);
  const flags = [];
  if (caps.network.available) flags.push('--no-network');
  if (caps.filesystem.available) flags.push('--confine-fs');
  const supervised = Boolean(caps.supervised && caps.supervised.available);
  let argv;
  let outFile = null;
  let outFd = null;
  if (flags.length === 0) {
    // Spec 000: no backend, so confinement is not requested; say so once.
    if (!warned) {
      console.error("warning: the OS sandbox is unavailable here; commands run with your account's permissions");
      warned = true;
    }
    argv = cmd;
  } else if (supervised) {
    // A file, not a pipe: nothing to drain while the command runs. The
    // launcher gets it as its descriptor 3. Its name is removed at once and
    // the outcome read back through the descriptor: the temp directory is
    // writable by the command, which could otherwise rename a forged
    // outcome over the name (or a symlink to a file of yours).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-outcome-'));
    outFile = path.join(dir, 'outcome.json');
    outFd = fs.openSync(outFile, 'w+');
    fs.rmSync(dir, { recursive: true, force: true });
    argv = [launcher, ...flags, '--outcome-fd', '3', '--timeout', String(timeoutSeconds),
            '--project', project, '--', ...cmd];
  } else {
    argv = [launcher, ...flags, '--report', '--project', project, '--', ...cmd];
  }
  // The launcher's --timeout ends the tree first; Node's is the last resort,
  // and killing the launcher still ends the run.
  const p = spawnSync(argv[0], argv.slice(1), {
    cwd: project, encoding: 'utf8', timeout: (timeoutSeconds + 30) * 1000,
    stdio: outFd === null ? 'pipe' : ['pipe', 'pipe', 'pipe', outFd],
  });
  let outcome = null;
  if (outFd !== null) {
    const size = fs.fstatSync(outFd).size;
    const buf = Buffer.alloc(size);
    fs.readSync(outFd, buf, 0, size, 0);
    fs.closeSync(outFd);
    const text = buf.toString('utf8');
    if (text.trim()) outcome = JSON.parse(text);
  }
  // A signal N is reported like a shell does: 128 + N.
  const status = p.signal ? 128 + os.constants.signals[p.signal] : p.status;
  let note = outcome ? outcome.summary : null;
  if (!outcome) {
    // Without a supervisor only words are left: the last launcher line.
    const prefix = 'sandbox-exec-launcher: ';
    for (const line of (p.stderr || '').split('\n')) {
      if (line.startsWith(prefix) && line.slice(prefix.length).includes('sandbox')) note = line.slice(prefix.length);
    }
  }
  if (status === 124 && outcome && outcome.timed_out) {
    note = `the command ran past ${timeoutSeconds} s and was ended, with everything it started`;
  }
  if (status === 126 && flags.length && !note) note = 'the sandbox could not be applied; the command did not run';
  return { status, stdout: p.stdout || '', stderr: p.stderr || '', note, outcome };
}

const args = process.argv.slice(2);
const launcher = args.length && args[0] !== '--' ? args.shift() : 'sandbox-exec-launcher';
const cmd = args[0] === '--' ? args.slice(1) : ['sh', '-c', 'echo hello from the sandbox'];
const r = runSandboxed(launcher, cmd, process.cwd());
process.stdout.write(r.stdout);
process.stderr.write(r.stderr);
if (r.outcome) {
  const certain = r.outcome.records.filter(x => x.certain);
  console.log(`outcome: schema ${r.outcome.schema}, ${certain.length} certain record(s)`);
}
console.log(`exit status: ${r.status}` + (r.note ? `; sandbox: ${r.note}` : ''));
process.exit(r.status === 0 || r.status === 126 ? 0 : r.status);

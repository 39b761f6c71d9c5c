#!/usr/bin/env node
// A Node host running model-written commands through sandbox-exec-launcher.
//   node run_launcher.js [LAUNCHER] [-- CMD ARGS...]
'use strict';
const { spawnSync } = require('node:child_process');
const os = require('node:os');

let warned = false; // the host's once-per-process flag

function runSandboxed(launcher, cmd, project) {
  const caps = JSON.parse(spawnSync(launcher, ['--self-test', '--json'], { encoding: 'utf8' }).stdout);
  const flags = [];
  if (caps.network.available) flags.push('--no-network');
  if (caps.filesystem.available) flags.push('--confine-fs');
  let argv;
  if (flags.length === 0) {
    // Spec 000: no backend, so confinement is not requested; say so once.
    if (!warned) {
      console.error("warning: the OS sandbox is unavailable here; commands run with your account's permissions");
      warned = true;
    }
    argv = cmd;
  } else {
    argv = [launcher, ...flags, '--report', '--project', project, '--', ...cmd];
  }
  const p = spawnSync(argv[0], argv.slice(1), { cwd: project, encoding: 'utf8', timeout: 60000 });
  // A signal N is reported like a shell does: 128 + N.
  const status = p.signal ? 128 + os.constants.signals[p.signal] : p.status;
  const prefix = 'sandbox-exec-launcher: ';
  let note = null;
  for (const line of (p.stderr || '').split('\n')) {
    if (line.startsWith(prefix) && line.slice(prefix.length).includes('sandbox')) note = line.slice(prefix.length);
  }
  if (status === 126 && flags.length && note === null) note = 'the sandbox could not be applied; the command did not run';
  return { status, stdout: p.stdout || '', stderr: p.stderr || '', note };
}

const args = process.argv.slice(2);
const launcher = args.length && args[0] !== '--' ? args.shift() : 'sandbox-exec-launcher';
const cmd = args[0] === '--' ? args.slice(1) : ['sh', '-c', 'echo hello from the sandbox'];
const r = runSandboxed(launcher, cmd, process.cwd());
process.stdout.write(r.stdout);
process.stderr.write(r.stderr);
console.log(`exit status: ${r.status}` + (r.note ? `; sandbox: ${r.note}` : ''));
process.exit(r.status === 0 || r.status === 126 ? 0 : r.status);

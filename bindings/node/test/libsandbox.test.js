// Real runs under the launcher named by $SANDBOX_EXEC_LAUNCHER (else PATH).
// Each enforcement check runs the same command unconfined as its control.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { run, explain, selfTest, findLauncher, policyFlags, PolicyError, LauncherError } from '../index.js';

const PY = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
// Outside /tmp: the sandbox may always write the system temp directory.
const mk = (p) => fs.mkdtempSync(`/var/tmp/sbx-node-${p}.`);
function dirs(t) {
  const project = mk('proj'), outside = mk('out');
  t.after(() => { fs.rmSync(project, { recursive: true, force: true }); fs.rmSync(outside, { recursive: true, force: true }); });
  return { project, outside, policy: { project, workdir: project } };
}
const gone = (pid) => {
  try { return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').pop().trim()[0] === 'Z'; }
  catch { return true; }
};
const TREE = 'sleep 100 & echo $! >> pids; setsid sleep 100 & echo $! >> pids; echo $$ >> pids; sleep 100';
const pids = (project) => { try { return fs.readFileSync(path.join(project, 'pids'), 'utf8').split(/\s+/).filter(Boolean).map(Number); } catch { return []; } };

test('a write outside the project is refused; unconfined it works', async (t) => {
  const { project, outside, policy } = dirs(t);
  const target = path.join(outside, 'f');
  const cmd = ['sh', '-c', `echo x > ${target}`];
  const o = await run(cmd, { policy, timeout: 60, cwd: project });
  assert.ok(o.ran);
  assert.notEqual(o.exitCode, 0);
  assert.ok(!fs.existsSync(target));
  // Landlock's EACCES; root's read-only mounts answer EROFS first.
  assert.match(o.stderr.toString(), /ermission denied|ead-only file system/);
  assert.match(o.sandbox, /^on:/);
  const inside = await run(['sh', '-c', 'echo x > inside'], { policy, cwd: project });
  assert.equal(inside.exitCode, 0);
  assert.equal(spawnSync(cmd[0], cmd.slice(1)).status, 0);    // the control
  assert.ok(fs.existsSync(target));
});

test('a socket: SIGSYS and a certain record; EPERM with netEperm', async (t) => {
  const { project, policy } = dirs(t);
  const code = 'import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM)';
  const o = await run([PY, '-c', code], { policy, timeout: 60, cwd: project });
  assert.equal(o.exitCode, null);
  assert.equal(o.signalName, 'SIGSYS');
  assert.equal(o.status, 128 + 31);
  assert.deepEqual(o.certain.map((r) => [r.kind, r.family_name, r.action]), [['socket', 'AF_INET', 'SIGSYS']]);
  assert.equal(spawnSync(PY, ['-c', code]).status, 0);      // the control
  const e = await run([PY, '-c', code], { policy: { ...policy, netEperm: true }, timeout: 60, cwd: project });
  assert.equal(e.exitCode, 1);
  assert.match(e.stderr.toString(), /PermissionError/);
  assert.deepEqual(e.certain.map((r) => [r.family_name, r.action]), [['AF_INET', 'EPERM']]);
});

test('a protected .env is unreadable; stdin, env and cwd reach the command', async (t) => {
  const { project, policy } = dirs(t);
  fs.writeFileSync(path.join(project, '.env'), 'TOKEN=secret\n');
  const o = await run(['cat', '.env'], { policy: { ...policy, protectSecrets: true }, timeout: 60, cwd: project });
  assert.notEqual(o.exitCode, 0);
  assert.ok(!o.stdout.toString().includes('secret'));
  assert.equal(spawnSync('cat', ['.env'], { cwd: project, encoding: 'utf8' }).stdout, 'TOKEN=secret\n');
  const s = await run(['sh', '-c', 'cat; echo "$SBX_X"; pwd'], { policy, cwd: project, stdin: 'in\n',
    env: { PATH: '/usr/bin:/bin', SBX_X: 'y' } });
  assert.deepEqual(s.stdout.toString().trim().split('\n'), ['in', 'y', fs.realpathSync(project)]);
});

test('the outcome file has no name the command could find', async (t) => {
  const { project, policy } = dirs(t);
  const { tmpdir } = await import('node:os');
  const o = await run(['ls', '-a', tmpdir()], { policy, cwd: project });
  assert.equal(o.exitCode, 0);
  assert.ok(!o.stdout.toString().includes('sbx-outcome'));
});

test('a timeout ends the whole tree', async (t) => {
  const { project, policy } = dirs(t);
  const o = await run(['sh', '-c', TREE], { policy, timeout: 1, cwd: project });
  assert.ok(o.timedOut);
  assert.equal(o.limit, 'timeout');
  assert.equal(o.status, 124);
  const p = pids(project);
  assert.equal(p.length, 3);
  assert.deepEqual(p.filter((x) => !gone(x)), []);
});

test('an AbortSignal ends the whole tree before the promise rejects', async (t) => {
  const { project, policy } = dirs(t);
  const ac = new AbortController();
  const poll = setInterval(() => { if (pids(project).length === 3) { clearInterval(poll); ac.abort(); } }, 50);
  const t0 = Date.now();
  await assert.rejects(run(['sh', '-c', TREE], { policy, timeout: 60, cwd: project, signal: ac.signal }), { name: 'AbortError' });
  assert.ok(Date.now() - t0 < 30000, 'ended by the abort, not the timeout');
  clearInterval(poll);
  const p = pids(project);
  assert.equal(p.length, 3);
  assert.deepEqual(p.filter((x) => !gone(x)), []);
});

test('a missing or old launcher is a LauncherError; a bad policy spawns nothing', async (t) => {
  const { outside } = dirs(t);
  await assert.rejects(run(['true'], { launcher: '/nonexistent/sandbox-exec-launcher' }), LauncherError);
  const saved = { L: process.env.SANDBOX_EXEC_LAUNCHER, P: process.env.PATH };
  process.env.SANDBOX_EXEC_LAUNCHER = ''; process.env.PATH = outside;
  try { assert.throws(() => findLauncher(), /not found/); }
  finally { process.env.SANDBOX_EXEC_LAUNCHER = saved.L ?? ''; process.env.PATH = saved.P; if (saved.L === undefined) delete process.env.SANDBOX_EXEC_LAUNCHER; }
  const marker = path.join(outside, 'spawned');
  const fake = (v) => {
    const f = path.join(outside, `fake-${v}`);
    fs.writeFileSync(f, `#!/bin/sh\n[ "$1" = --version ] && { echo "sandbox-exec-launcher ${v}"; exit 0; }\ntouch ${marker}\n`, { mode: 0o755 });
    return f;
  };
  await assert.rejects(run(['true'], { launcher: fake('0.0.9') }), /version 0.0.9; this package needs 0.1.0/);
  const ok = fake('9.9.9');
  for (const bad of [{ mode: 'read-only', class: 'build' }, { class: 'media' }, { mode: 'no-net' },
    { class: 'bogus' }, { addDirs: [''] }, { addReads: ['/usr'] }, { project: 'rel' }, { addDirs: ['--net-eperm'] }])
    await assert.rejects(run(['true'], { policy: bad, launcher: ok }), PolicyError);
  await assert.rejects(run([], { launcher: ok }), TypeError);
  assert.ok(!fs.existsSync(marker));
});

test('explain, selfTest and the flags', async (t) => {
  const { project } = dirs(t);
  const e = explain({ project, workdir: project, netEperm: true, class: 'build' });
  assert.equal(e.project_root, fs.realpathSync(project));
  assert.equal(e.class, 'build');
  assert.equal(e.deny_action, 'eperm');
  const s = selfTest();
  assert.equal(s.platform, 'linux');
  assert.equal(s.supervised.available, true);
  assert.deepEqual(policyFlags({ mode: 'no-network', project: '/p', addDirs: ['/a'], class: 'build', protect: ['*.pem'], protectSecrets: true, netEperm: true }),
    ['--no-network', '--class', 'build', '--project', '/p', '--add-dir', '/a', '--protect', '*.pem', '--protect-secrets', '--net-eperm']);
});

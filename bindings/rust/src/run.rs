//! Finding the launcher, the supervised run and its outcome.

use crate::json::{self, Value};
use crate::{Error, Policy};
use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant, SystemTime};

/// The oldest launcher this crate works with.
pub const EXPECTED_VERSION: [u32; 3] = [0, 1, 0];
/// After a cancellation the command has this long to end on SIGTERM before
/// the launcher is killed (the supervised run dies with its launcher).
const GRACE: Duration = Duration::from_millis(2500);
/// How long past the launcher's own --timeout the host waits before ending the run itself.
const BACKSTOP: Duration = Duration::from_secs(15);
/// How long the launcher's process group may outlive it (its supervisor
/// ending what the command left) before it is killed outright.
const GROUP_GONE: Duration = Duration::from_secs(10);
const POLL: Duration = Duration::from_millis(20);

// The C library's calls the standard library does not expose (std links it anyway).
extern "C" {
    fn setsid() -> i32;
    fn dup2(old: i32, new: i32) -> i32;
    fn fcntl(fd: i32, cmd: i32, ...) -> i32;
    fn kill(pid: i32, sig: i32) -> i32;
}
const F_SETFD: i32 = 2;
const SIGKILL: i32 = 9;
const SIGTERM: i32 = 15;
const ESRCH: i32 = 3;

/// One refusal (docs/api.md, "The outcome, schema 1").
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub kind: String,
    pub certain: bool,
    pub syscall: Option<String>,
    pub family_name: Option<String>,
    pub type_name: Option<String>,
    pub path: Option<String>,
    pub pid: Option<i64>,
    pub comm: Option<String>,
    pub action: Option<String>,
    pub count: i64,
    pub text: Option<String>,
}

/// What a run ended with. `ran` is false when the launcher refused before the
/// command started (126: the sandbox could not be applied; 127: not found):
/// then `exit_code` is the launcher's status and `stderr` says why.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub ran: bool,
    /// The launcher's own exit status (128+N for signal N).
    pub status: i32,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub signal_name: Option<String>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub records: Vec<Record>,
    pub sandbox: Option<String>,
    pub timed_out: bool,
    /// The resource limit that ended the run (`memory`, `pids`, `cpu`, `file-size`,
    /// `timeout`), `None` when none did; `limit_certain`: the kernel's counters say so.
    pub limit: Option<String>,
    pub limit_certain: bool,
    /// The host's backstop (timeout + 15 s) ended the run.
    pub cancelled: bool,
    pub summary: Option<String>,
    pub warning: Option<String>,
    pub leftover_processes: i64,
    /// The sandbox's own supervisor failed after the command started and ended the run
    /// (its exit 126 is the sandbox's, not the command's), or, when it says "after the
    /// command had exited", while ending what the command left (the status is the
    /// command's): why; `None` otherwise.
    pub sandbox_failure: Option<String>,
    /// `"run"` when that failure made the status the sandbox's (126), `"after_exit"` when
    /// the status is the command's own; `None`: no failure.
    pub sandbox_failed: Option<String>,
    pub raw: Option<Value>,
}

impl Outcome {
    /// The refusals the kernel reported.
    pub fn certain(&self) -> Vec<&Record> {
        self.records.iter().filter(|r| r.certain).collect()
    }
    /// The refusals inferred from the command's words.
    pub fn hedged(&self) -> Vec<&Record> {
        self.records.iter().filter(|r| !r.certain).collect()
    }
}

type VersionKey = (PathBuf, u64, i64);
static VERSIONS: Mutex<Vec<(VersionKey, [u32; 3])>> = Mutex::new(Vec::new());

fn version_of(path: &Path, meta: &std::fs::Metadata) -> Result<[u32; 3], Error> {
    let key = (path.to_path_buf(), meta.ino(), meta.mtime_nsec() + meta.mtime() * 1_000_000_000);
    if let Some((_, v)) = VERSIONS.lock().unwrap().iter().find(|(k, _)| *k == key) {
        return Ok(*v);
    }
    let out = Command::new(path).arg("--version").stdin(Stdio::null()).stderr(Stdio::null()).output()
        .map_err(|e| Error::Launcher(format!("launcher {} cannot be run: {}", path.display(), e)))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let v = text.split_whitespace().find_map(|w| {
        let n: Vec<u32> = w.split('.').map(|x| x.parse().ok()).collect::<Option<Vec<u32>>>()?;
        if n.len() == 3 { Some([n[0], n[1], n[2]]) } else { None }
    });
    let v = v.ok_or_else(|| Error::Launcher(format!("launcher {} printed no version (--version said {:?})", path.display(), text)))?;
    VERSIONS.lock().unwrap().push((key, v));
    Ok(v)
}

fn executable(p: &Path) -> Option<std::fs::Metadata> {
    std::fs::metadata(p).ok().filter(|m| m.is_file() && m.mode() & 0o111 != 0)
}

/// The launcher: `explicit`, else `$SANDBOX_EXEC_LAUNCHER`, else `PATH`; its version checked.
pub fn find_launcher(explicit: Option<&str>) -> Result<PathBuf, Error> {
    let env = std::env::var_os("SANDBOX_EXEC_LAUNCHER").filter(|v| !v.is_empty());
    let (p, where_) = match (explicit, env) {
        (Some(p), _) => (PathBuf::from(p), "the explicit path"),
        (None, Some(e)) => (PathBuf::from(e), "$SANDBOX_EXEC_LAUNCHER"),
        (None, None) => {
            let path = std::env::var_os("PATH").unwrap_or_default();
            let found = std::env::split_paths(&path).map(|d| d.join("sandbox-exec-launcher")).find(|c| executable(c).is_some());
            match found {
                Some(p) => (p, "PATH"),
                None => return Err(Error::Launcher("sandbox-exec-launcher not found: pass its path, set SANDBOX_EXEC_LAUNCHER, or put it on PATH".into())),
            }
        }
    };
    let meta = executable(&p).ok_or_else(|| Error::Launcher(format!("sandbox-exec-launcher from {} ({}) is not an executable file", where_, p.display())))?;
    let got = version_of(&p, &meta)?;
    if got < EXPECTED_VERSION {
        let s = |v: [u32; 3]| format!("{}.{}.{}", v[0], v[1], v[2]);
        return Err(Error::Launcher(format!("launcher {} is version {}; this package needs {} or later: install a newer sandbox-exec-launcher", p.display(), s(got), s(EXPECTED_VERSION))));
    }
    Ok(p)
}

/// A run to start: `Run::new(["make", "test"]).policy(p).timeout(d).run()`.
#[derive(Debug, Clone, Default)]
pub struct Run {
    argv: Vec<OsString>,
    policy: Policy,
    timeout: Option<Duration>,
    cwd: Option<PathBuf>,
    env: Option<Vec<(OsString, OsString)>>,
    stdin: Option<Vec<u8>>,
    launcher: Option<String>,
}

impl Run {
    pub fn new<I: IntoIterator<Item = S>, S: Into<OsString>>(argv: I) -> Self {
        Run { argv: argv.into_iter().map(Into::into).collect(), ..Default::default() }
    }
    pub fn policy(mut self, p: Policy) -> Self {
        self.policy = p;
        self
    }
    /// The launcher ends the whole tree after this (status 124, `timed_out`).
    pub fn timeout(mut self, d: Duration) -> Self {
        self.timeout = Some(d);
        self
    }
    pub fn cwd<P: Into<PathBuf>>(mut self, d: P) -> Self {
        self.cwd = Some(d.into());
        self
    }
    /// The command's whole environment (default: the host's).
    pub fn env<I: IntoIterator<Item = (K, V)>, K: Into<OsString>, V: Into<OsString>>(mut self, vars: I) -> Self {
        self.env = Some(vars.into_iter().map(|(k, v)| (k.into(), v.into())).collect());
        self
    }
    pub fn stdin<B: Into<Vec<u8>>>(mut self, data: B) -> Self {
        self.stdin = Some(data.into());
        self
    }
    pub fn launcher(mut self, path: &str) -> Self {
        self.launcher = Some(path.into());
        self
    }

    /// Runs to the end; the process tree is gone when this returns.
    pub fn run(&self) -> Result<Outcome, Error> {
        self.spawn()?.wait()
    }

    /// Starts the run. Dropping the [`Running`] before `wait` ends it and its whole tree.
    pub fn spawn(&self) -> Result<Running, Error> {
        if self.argv.is_empty() {
            return Err(Error::Policy("argv is empty".into()));
        }
        if self.timeout == Some(Duration::ZERO) {
            return Err(Error::Policy("a zero timeout".into()));
        }
        let flags = self.policy.flags()?;
        let exe = find_launcher(self.launcher.as_deref())?;
        let file = outcome_file()?;
        let fd = file.as_raw_fd();
        let mut cmd = Command::new(&exe);
        cmd.args(&flags).args(["--outcome-fd", "3"]);
        if let Some(t) = self.timeout {
            // Fixed notation; at least 1 ms, never a 0 the launcher could read as no timeout.
            cmd.arg("--timeout").arg(format!("{:.3}", t.max(Duration::from_millis(1)).as_secs_f64()));
        }
        cmd.arg("--").args(&self.argv);
        if let Some(d) = &self.cwd {
            cmd.current_dir(d);
        }
        if let Some(vars) = &self.env {
            cmd.env_clear().envs(vars.iter().map(|(k, v)| (k, v)));
        }
        cmd.stdin(if self.stdin.is_some() { Stdio::piped() } else { Stdio::null() });
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        // In the child, between fork and exec, only async-signal-safe calls:
        // a session (and process group) of its own, so the terminal's Ctrl-C
        // reaches the host, which ends the run in order; the outcome file as
        // descriptor 3, without close-on-exec.
        unsafe {
            cmd.pre_exec(move || {
                let r = if setsid() < 0 { -1 } else if fd == 3 { fcntl(3, F_SETFD, 0) } else { dup2(fd, 3) };
                if r < 0 { Err(std::io::Error::last_os_error()) } else { Ok(()) }
            });
        }
        let mut child = cmd.spawn().map_err(|e| Error::Launcher(format!("cannot start {}: {}", exe.display(), e)))?;
        let drain = |r: Option<Box<dyn Read + Send>>| r.map(|mut r| thread::spawn(move || { let mut b = Vec::new(); let _ = r.read_to_end(&mut b); b }));
        let out = drain(child.stdout.take().map(|r| Box::new(r) as Box<dyn Read + Send>));
        let err = drain(child.stderr.take().map(|r| Box::new(r) as Box<dyn Read + Send>));
        if let (Some(mut w), Some(data)) = (child.stdin.take(), self.stdin.clone()) {
            thread::spawn(move || { let _ = w.write_all(&data); });
        }
        let pgid = child.id() as i32;
        Ok(Running { child: Some(child), pgid, file, out, err, backstop: self.timeout.map(|t| Instant::now() + t + BACKSTOP) })
    }
}

fn outcome_file() -> Result<File, Error> {
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
    let p = std::env::temp_dir().join(format!("sbx-outcome-{}-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed), nanos));
    let f = OpenOptions::new().read(true).write(true).create_new(true).mode(0o600).open(&p)?;
    std::fs::remove_file(&p)?; // the descriptor is all that is needed: nothing left behind
    Ok(f)
}

/// A running command. [`Running::wait`] returns its outcome; dropping it (or
/// [`Running::cancel`]) ends the run and its whole tree before returning.
pub struct Running {
    child: Option<Child>,
    pgid: i32,
    file: File,
    out: Option<JoinHandle<Vec<u8>>>,
    err: Option<JoinHandle<Vec<u8>>>,
    backstop: Option<Instant>,
}

fn group_alive(pgid: i32) -> bool {
    let r = unsafe { kill(-pgid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(ESRCH)
}

// The launcher's supervisor (same process group) ends what the command left
// after the launcher dies: wait for the group to empty, then kill what remains.
fn group_gone(pgid: i32) {
    let deadline = Instant::now() + GROUP_GONE;
    while group_alive(pgid) && Instant::now() < deadline {
        thread::sleep(POLL);
    }
    unsafe { kill(-pgid, SIGKILL) };
}

// SIGTERM reaches the command; then the launcher is killed. Never a group kill
// first: it would kill the supervisor before it ends what the command started
// in other sessions.
fn end(child: &mut Child) -> ExitStatus {
    unsafe { kill(child.id() as i32, SIGTERM) };
    let deadline = Instant::now() + GRACE;
    while Instant::now() < deadline {
        if let Ok(Some(st)) = child.try_wait() {
            return st;
        }
        thread::sleep(POLL);
    }
    let _ = child.kill();
    child.wait().unwrap_or_else(|_| ExitStatus::from_raw(SIGKILL))
}

fn s(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(String::from)
}

impl Running {
    /// The launcher's process id (also its process group).
    pub fn id(&self) -> u32 {
        self.pgid as u32
    }

    /// Ends the run now; the process tree is gone when this returns.
    pub fn cancel(mut self) {
        self.finish_cancel();
    }

    fn finish_cancel(&mut self) {
        if let Some(mut child) = self.child.take() {
            end(&mut child);
            group_gone(self.pgid);
            self.out.take().map(JoinHandle::join);
            self.err.take().map(JoinHandle::join);
        }
    }

    /// Waits for the end; the process tree is gone when this returns.
    pub fn wait(mut self) -> Result<Outcome, Error> {
        let mut child = self.child.take().expect("a Running always holds its child until it ends");
        let mut cancelled = false;
        let st = loop {
            match child.try_wait() {
                Ok(Some(st)) => break st,
                Ok(None) => {}
                Err(e) => {
                    self.child = Some(child); // Drop ends it
                    return Err(e.into());
                }
            }
            if self.backstop.map_or(false, |b| Instant::now() >= b) {
                cancelled = true;
                break end(&mut child);
            }
            thread::sleep(POLL);
        };
        group_gone(self.pgid);
        let stdout = self.out.take().and_then(|h| h.join().ok()).unwrap_or_default();
        let stderr = self.err.take().and_then(|h| h.join().ok()).unwrap_or_default();
        let status = st.code().unwrap_or_else(|| 128 + st.signal().unwrap_or(0));
        let mut text = String::new();
        // The launcher's writes moved the offset this descriptor shares with its descriptor 3.
        self.file.seek(SeekFrom::Start(0))?;
        self.file.read_to_string(&mut text)?;
        let mut o = Outcome { ran: false, status, exit_code: Some(status), signal: None, signal_name: None, stdout, stderr,
            records: Vec::new(), sandbox: None, timed_out: false, limit: None, limit_certain: false, cancelled, summary: None, warning: None, leftover_processes: 0, sandbox_failure: None, sandbox_failed: None, raw: None };
        if text.trim().is_empty() {
            return Ok(o);
        }
        let d = json::parse(&text).map_err(Error::Outcome)?;
        o.ran = true;
        o.exit_code = d.get("exit_code").and_then(Value::as_i64).map(|v| v as i32);
        o.signal = d.get("signal").and_then(Value::as_i64).map(|v| v as i32);
        o.signal_name = s(&d, "signal_name");
        o.sandbox = s(&d, "sandbox");
        o.timed_out = d.get("timed_out").and_then(Value::as_bool).unwrap_or(false);
        o.limit = s(&d, "limit");
        o.limit_certain = d.get("limit_certain").and_then(Value::as_bool).unwrap_or(false);
        o.summary = s(&d, "summary");
        o.warning = s(&d, "warning");
        o.leftover_processes = d.get("leftover_processes").and_then(Value::as_i64).unwrap_or(0);
        o.sandbox_failure = s(&d, "sandbox_failure");
        o.sandbox_failed = s(&d, "sandbox_failed");
        o.records = d.get("records").and_then(Value::as_array).map(|a| a.iter().map(|r| Record {
            kind: s(r, "kind").unwrap_or_default(),
            certain: r.get("certain").and_then(Value::as_bool).unwrap_or(false),
            syscall: s(r, "syscall"), family_name: s(r, "family_name"), type_name: s(r, "type_name"),
            path: s(r, "path"), pid: r.get("pid").and_then(Value::as_i64), comm: s(r, "comm"),
            action: s(r, "action"), count: r.get("count").and_then(Value::as_i64).unwrap_or(1), text: s(r, "text"),
        }).collect()).unwrap_or_default();
        o.raw = Some(d);
        Ok(o)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.finish_cancel();
    }
}

fn json_action(launcher: Option<&str>, args: &[String]) -> Result<Value, Error> {
    let exe = find_launcher(launcher)?;
    let out = Command::new(&exe).args(args).stdin(Stdio::null()).output()?;
    if !out.status.success() {
        return Err(Error::Launcher(format!("{} failed with {}: {}", args[..2].join(" "), out.status, String::from_utf8_lossy(&out.stderr).trim())));
    }
    json::parse(std::str::from_utf8(&out.stdout).map_err(|e| Error::Outcome(e.to_string()))?).map_err(Error::Outcome)
}

/// `--self-test --json`: what this machine enforces.
pub fn self_test(launcher: Option<&str>) -> Result<Value, Error> {
    json_action(launcher, &["--self-test".into(), "--json".into()])
}

/// `--explain --json`: what the policy would enforce; nothing runs.
pub fn explain(policy: &Policy, launcher: Option<&str>) -> Result<Value, Error> {
    let mut args = vec!["--explain".to_string(), "--json".to_string()];
    args.extend(policy.flags()?);
    args.extend(["--".to_string(), "true".to_string()]);
    json_action(launcher, &args)
}


//! Real runs under the launcher named by $SANDBOX_EXEC_LAUNCHER (else PATH).
//! Each enforcement check runs the same command unconfined as its control.
use libsandbox::{explain, find_launcher, self_test, Error, Policy, Run, Value};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const TREE: &str = "sleep 100 & echo $! >> pids; setsid sleep 100 & echo $! >> pids; echo $$ >> pids; sleep 100";

fn py() -> &'static str {
    if Path::new("/usr/bin/python3").exists() { "/usr/bin/python3" } else { "python3" }
}

/// A directory outside /tmp (the sandbox may always write the system temp
/// directory), removed on drop.
struct Dir(PathBuf);
impl Dir {
    fn new(tag: &str) -> Dir {
        let out = Command::new("mktemp").args(["-d", &format!("/var/tmp/sbx-rs-{}.XXXXXX", tag)]).output().unwrap();
        Dir(PathBuf::from(String::from_utf8(out.stdout).unwrap().trim()))
    }
    fn s(&self) -> &str {
        self.0.to_str().unwrap()
    }
}
impl Drop for Dir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn policy(project: &Dir) -> Policy {
    Policy::new().project(project.s()).workdir(project.s())
}

fn gone(pid: i64) -> bool {
    match fs::read_to_string(format!("/proc/{}/stat", pid)) {
        Ok(s) => s.rsplit(')').next().unwrap().split_whitespace().next() == Some("Z"),
        Err(_) => true,
    }
}

fn pids(project: &Dir) -> Vec<i64> {
    fs::read_to_string(project.0.join("pids")).unwrap_or_default().split_whitespace().map(|x| x.parse().unwrap()).collect()
}

fn tree_gone(project: &Dir) {
    let p = pids(project);
    assert_eq!(p.len(), 3, "pids {:?}", p);
    let alive: Vec<_> = p.into_iter().filter(|x| !gone(*x)).collect();
    assert!(alive.is_empty(), "survived: {:?}", alive);
}

#[test]
fn outside_write_refused_and_works_unconfined() {
    let (project, outside) = (Dir::new("proj"), Dir::new("out"));
    let target = outside.0.join("f");
    let cmd = format!("echo x > {}", target.display());
    let o = Run::new(["sh", "-c", &cmd]).policy(policy(&project)).timeout(Duration::from_secs(60)).cwd(&project.0).run().unwrap();
    assert!(o.ran);
    assert_ne!(o.exit_code, Some(0), "{:?}", o);
    assert!(!target.exists());
    // Landlock's EACCES; root's read-only mounts answer EROFS first.
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("ermission denied") || err.contains("ead-only file system"), "{}", err);
    assert!(o.sandbox.as_deref().unwrap_or("").starts_with("on:"));
    let inside = Run::new(["sh", "-c", "echo x > inside"]).policy(policy(&project)).cwd(&project.0).run().unwrap();
    assert_eq!(inside.exit_code, Some(0));
    assert!(Command::new("sh").args(["-c", &cmd]).status().unwrap().success()); // the control
    assert!(target.exists());
}

#[test]
fn socket_sigsys_then_eperm_certain_records() {
    let project = Dir::new("proj");
    let code = "import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM)";
    let o = Run::new([py(), "-c", code]).policy(policy(&project)).timeout(Duration::from_secs(60)).cwd(&project.0).run().unwrap();
    assert_eq!((o.exit_code, o.signal_name.as_deref(), o.status), (None, Some("SIGSYS"), 128 + 31), "{:?}", o);
    let c = o.certain();
    assert_eq!(c.len(), 1, "{:?}", o.records);
    assert_eq!((c[0].kind.as_str(), c[0].family_name.as_deref(), c[0].action.as_deref()), ("socket", Some("AF_INET"), Some("SIGSYS")));
    assert!(Command::new(py()).args(["-c", code]).status().unwrap().success()); // the control
    let e = Run::new([py(), "-c", code]).policy(policy(&project).net_eperm(true)).timeout(Duration::from_secs(60)).cwd(&project.0).run().unwrap();
    assert_eq!(e.exit_code, Some(1));
    assert!(String::from_utf8_lossy(&e.stderr).contains("PermissionError"));
    assert_eq!(e.certain().iter().map(|r| r.action.as_deref()).collect::<Vec<_>>(), vec![Some("EPERM")]);
}

#[test]
fn protected_env_unreadable_and_io() {
    let project = Dir::new("proj");
    fs::write(project.0.join(".env"), "TOKEN=secret\n").unwrap();
    let o = Run::new(["cat", ".env"]).policy(policy(&project).protect_secrets(true)).timeout(Duration::from_secs(60)).cwd(&project.0).run().unwrap();
    assert_ne!(o.exit_code, Some(0));
    assert!(!String::from_utf8_lossy(&o.stdout).contains("secret"));
    assert_eq!(Command::new("cat").arg(".env").current_dir(&project.0).output().unwrap().stdout, b"TOKEN=secret\n"); // the control
    let o = Run::new(["sh", "-c", "cat; echo \"$SBX_X\"; pwd"]).policy(policy(&project)).cwd(&project.0)
        .env([("PATH", "/usr/bin:/bin"), ("SBX_X", "y")]).stdin("in\n").run().unwrap();
    let real = fs::canonicalize(&project.0).unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout), format!("in\ny\n{}\n", real.display()));
}

#[test]
fn outcome_file_has_no_name() {
    let project = Dir::new("proj");
    let o = Run::new(["ls", "-a", std::env::temp_dir().to_str().unwrap()]).policy(policy(&project)).cwd(&project.0).run().unwrap();
    assert_eq!(o.exit_code, Some(0));
    assert!(!String::from_utf8_lossy(&o.stdout).contains("sbx-outcome"));
}

#[test]
fn timeout_kills_tree() {
    let project = Dir::new("proj");
    let o = Run::new(["sh", "-c", TREE]).policy(policy(&project)).timeout(Duration::from_secs(1)).cwd(&project.0).run().unwrap();
    assert!(o.timed_out, "{:?}", o);
    assert_eq!(o.limit.as_deref(), Some("timeout"), "{:?}", o);
    assert_eq!(o.status, 124);
    tree_gone(&project);
}

#[test]
fn drop_of_a_running_handle_kills_tree() {
    let project = Dir::new("proj");
    let running = Run::new(["sh", "-c", TREE]).policy(policy(&project)).timeout(Duration::from_secs(60)).cwd(&project.0).spawn().unwrap();
    for _ in 0..600 {
        if pids(&project).len() == 3 {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let t0 = std::time::Instant::now();
    drop(running);
    assert!(t0.elapsed() < Duration::from_secs(30), "ended by the timeout, not the drop");
    tree_gone(&project);
}

fn fake(dir: &Dir, version: &str) -> (String, PathBuf) {
    let marker = dir.0.join("spawned");
    let p = dir.0.join(format!("fake-{}", version));
    fs::write(&p, format!("#!/bin/sh\n[ \"$1\" = --version ] && {{ echo \"sandbox-exec-launcher {}\"; exit 0; }}\ntouch {}\n", version, marker.display())).unwrap();
    Command::new("chmod").args(["755", p.to_str().unwrap()]).status().unwrap();
    (p.to_str().unwrap().to_string(), marker)
}

#[test]
fn launcher_and_policy_errors() {
    let outside = Dir::new("out");
    assert!(matches!(Run::new(["true"]).launcher("/nonexistent/sandbox-exec-launcher").run(), Err(Error::Launcher(_))));
    let (old, marker) = fake(&outside, "0.0.9");
    match Run::new(["true"]).launcher(&old).run() {
        Err(Error::Launcher(m)) => assert!(m.contains("version 0.0.9; this package needs 0.1.0"), "{}", m),
        other => panic!("{:?}", other.map(|o| o.status)),
    }
    let (ok, _) = fake(&outside, "9.9.9");
    for bad in [Policy::new().mode("read-only").class("build"), Policy::new().class("media"), Policy::new().mode("no-net"),
                Policy::new().class("bogus"), Policy::new().add_dir(""), Policy::new().add_read("/usr"),
                Policy::new().project("rel"), Policy::new().add_dir("--net-eperm")] {
        assert!(matches!(Run::new(["true"]).policy(bad.clone()).launcher(&ok).run(), Err(Error::Policy(_))), "{:?}", bad);
    }
    assert!(matches!(Run::new(Vec::<String>::new()).launcher(&ok).run(), Err(Error::Policy(_))));
    assert!(!marker.exists());
    // PATH lookup (environment changes stay in a child test process: tests run in threads).
    let out = Command::new(std::env::current_exe().unwrap()).args(["--exact", "not_on_path_child", "--nocapture", "--ignored"])
        .env("SANDBOX_EXEC_LAUNCHER", "").env("PATH", outside.s()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
#[ignore] // run by launcher_and_policy_errors with an empty PATH
fn not_on_path_child() {
    match find_launcher(None) {
        Err(Error::Launcher(m)) => assert!(m.contains("not found"), "{}", m),
        other => panic!("{:?}", other),
    }
}

#[test]
fn explain_self_test_and_flags() {
    let project = Dir::new("proj");
    let e = explain(&policy(&project).net_eperm(true).class("build"), None).unwrap();
    let real = fs::canonicalize(&project.0).unwrap();
    assert_eq!(e.get("project_root").and_then(Value::as_str), real.to_str());
    assert_eq!(e.get("class").and_then(Value::as_str), Some("build"));
    assert_eq!(e.get("deny_action").and_then(Value::as_str), Some("eperm"));
    let s = self_test(None).unwrap();
    assert_eq!(s.get("platform").and_then(Value::as_str), Some("linux"));
    assert_eq!(s.get("supervised").and_then(|v| v.get("available")).and_then(Value::as_bool), Some(true));
    let f = Policy::new().mode("no-network").project("/p").add_dir("/a").class("build").protect("*.pem").protect_secrets(true).net_eperm(true).flags().unwrap();
    assert_eq!(f, ["--no-network", "--class", "build", "--project", "/p", "--add-dir", "/a", "--protect", "*.pem", "--protect-secrets", "--net-eperm"]);
}

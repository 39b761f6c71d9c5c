//! The launcher's policy flags, validated before anything runs.

use crate::Error;

pub const MODES: &[&str] = &["sandbox", "no-network", "confine-fs", "read-only"];
pub const CLASSES: &[&str] = &["project", "research", "build", "offline", "media", "tool-server"];

/// The launcher's policy flags (`sandbox-exec-launcher --help`), built fluently:
/// `Policy::new().project("/src/app").protect_secrets(true)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Policy {
    pub mode: Option<String>,
    pub project: Option<String>,
    pub workdir: Option<String>,
    pub add_dirs: Vec<String>,
    pub add_reads: Vec<String>,
    pub class: Option<String>,
    pub output: Option<String>,
    pub scratch: Option<String>,
    pub writable_caches: bool,
    pub protect_secrets: bool,
    pub protect: Vec<String>,
    pub net_eperm: bool,
    pub no_user_namespaces: bool,
}

fn check_path(what: &str, p: &str) -> Result<(), Error> {
    let ok = if what == "protect" { !p.is_empty() } else { p.starts_with('/') };
    if !ok || p.contains('\0') {
        return Err(Error::Policy(format!("{}: an absolute path (protect: a non-empty pattern) without NUL bytes is needed, got {:?}", what, p)));
    }
    Ok(())
}

impl Policy {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn mode(mut self, m: &str) -> Self {
        self.mode = Some(m.into());
        self
    }
    pub fn project(mut self, d: &str) -> Self {
        self.project = Some(d.into());
        self
    }
    pub fn workdir(mut self, d: &str) -> Self {
        self.workdir = Some(d.into());
        self
    }
    pub fn add_dir(mut self, d: &str) -> Self {
        self.add_dirs.push(d.into());
        self
    }
    pub fn add_read(mut self, d: &str) -> Self {
        self.add_reads.push(d.into());
        self
    }
    pub fn class(mut self, c: &str) -> Self {
        self.class = Some(c.into());
        self
    }
    pub fn output(mut self, d: &str) -> Self {
        self.output = Some(d.into());
        self
    }
    pub fn scratch(mut self, d: &str) -> Self {
        self.scratch = Some(d.into());
        self
    }
    pub fn writable_caches(mut self, on: bool) -> Self {
        self.writable_caches = on;
        self
    }
    pub fn protect_secrets(mut self, on: bool) -> Self {
        self.protect_secrets = on;
        self
    }
    pub fn protect(mut self, pattern: &str) -> Self {
        self.protect.push(pattern.into());
        self
    }
    pub fn net_eperm(mut self, on: bool) -> Self {
        self.net_eperm = on;
        self
    }
    pub fn no_user_namespaces(mut self, on: bool) -> Self {
        self.no_user_namespaces = on;
        self
    }

    /// Validates the policy and returns its launcher flags.
    pub fn flags(&self) -> Result<Vec<String>, Error> {
        let mode = self.mode.as_deref().unwrap_or("sandbox");
        let class = self.class.as_deref();
        if !MODES.contains(&mode) {
            return Err(Error::Policy(format!("mode {:?} is not one of {}", mode, MODES.join(", "))));
        }
        if let Some(c) = class {
            if !CLASSES.contains(&c) {
                return Err(Error::Policy(format!("class {:?} is not one of {}", c, CLASSES.join(", "))));
            }
        }
        if mode == "read-only" && (class.is_some() || self.writable_caches || self.output.is_some()) {
            return Err(Error::Policy("read-only is a fixed profile: it takes no class, writable caches or output".into()));
        }
        if class == Some("media") && self.output.is_none() {
            return Err(Error::Policy("class media needs its output folder (output)".into()));
        }
        if self.output.is_some() && class != Some("media") {
            return Err(Error::Policy("output is the output folder of class media only".into()));
        }
        if !self.add_reads.is_empty() && class.is_none() {
            return Err(Error::Policy("add_read has no effect without a class".into()));
        }
        let mut f = vec![format!("--{}", mode)];
        match class {
            Some("tool-server") => f.push("--tool-server".into()),
            Some(c) => f.extend(["--class".to_string(), c.to_string()]),
            None => {}
        }
        for (opt, v) in [("--project", &self.project), ("--workdir", &self.workdir), ("--output", &self.output), ("--scratch", &self.scratch)] {
            if let Some(v) = v {
                check_path(&opt[2..], v)?;
                f.extend([opt.to_string(), v.clone()]);
            }
        }
        for (opt, list) in [("--add-dir", &self.add_dirs), ("--add-read", &self.add_reads), ("--protect", &self.protect)] {
            for v in list {
                check_path(&opt[2..], v)?;
                if opt == "--add-read" && v == "/" {
                    return Err(Error::Policy("add_read: never /".into()));
                }
                f.extend([opt.to_string(), v.clone()]);
            }
        }
        for (opt, on) in [("--writable-caches", self.writable_caches), ("--protect-secrets", self.protect_secrets), ("--net-eperm", self.net_eperm), ("--no-user-namespaces", self.no_user_namespaces)] {
            if on {
                f.push(opt.into());
            }
        }
        Ok(f)
    }
}

//! Run commands under `sandbox-exec-launcher` (docs/host-guide.md): a validated
//! policy, a supervised run (`--outcome-fd`, `--timeout`) that leaves no process
//! behind, and the parsed outcome (docs/api.md, "The outcome, schema 1").
//! Standard library only; Linux.

pub mod json;
mod policy;
mod run;

pub use json::Value;
pub use policy::{Policy, CLASSES, MODES};
pub use run::{explain, find_launcher, self_test, Outcome, Record, Run, Running, EXPECTED_VERSION};

use std::fmt;

/// Everything that can go wrong before or around a run.
#[derive(Debug)]
pub enum Error {
    /// A policy the launcher would refuse; nothing was spawned.
    Policy(String),
    /// The launcher is missing, not executable, or older than [`EXPECTED_VERSION`].
    Launcher(String),
    /// The launcher's JSON could not be read.
    Outcome(String),
    Io(std::io::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Policy(m) => write!(f, "libsandbox: policy: {}", m),
            Error::Launcher(m) => write!(f, "libsandbox: {}", m),
            Error::Outcome(m) => write!(f, "libsandbox: outcome: {}", m),
            Error::Io(e) => write!(f, "libsandbox: {}", e),
        }
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}

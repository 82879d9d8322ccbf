//! Running the `netmeas` binary from the CLI tests.
//!
//! Each test binary uses a part of these helpers.
#![allow(dead_code)]

use std::process::{Command, Output};

/// Runs `netmeas` with `args`.
pub fn netmeas(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_netmeas")).args(args).output().expect("netmeas runs")
}

/// The one JSON object a successful run printed.
pub fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "stderr: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("one JSON object")
}

/// Runs `netmeas` with `args` and checks that it refused them as a user must
/// see it: a non-zero exit, nothing on stdout, and `needle` in the error.
pub fn assert_refused(args: &[&str], needle: &str) {
    let o = netmeas(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{args:?} succeeded");
    assert!(o.stdout.is_empty(), "{args:?} printed {}", String::from_utf8_lossy(&o.stdout));
    assert!(err.contains(needle), "{args:?}: {err}");
}

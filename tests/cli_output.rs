//! Where the output goes when it cannot be written: every command that
//! prints, with its stdout a pipe whose reader has gone (`netmeas … | head
//! -c1`) or a full disk (`> /dev/full`). A closed pipe ends the run as it
//! ends any Unix tool (SIGPIPE, no message); a full disk is a one-line error
//! and status 1. Neither is a panic.

use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Output, Stdio};

/// Commands that print on stdout, one of each kind (text and `--json`).
fn printing_commands(dir: &str) -> Vec<Vec<String>> {
    let small = [
        "export h3 --out DIR",
        "run lda --packets 20000",
        "run lda --packets 20000 --json",
        "run rda --packets 20000",
        "run rda --packets 20000 --json",
        "run fridge --requests 20000",
        "run fridge --requests 20000 --json",
        "run dbm",
        "run dbm --json",
        "run expb",
        "run svbf --packets 20000 --epochs 3",
        "run svbf --packets 20000 --epochs 3 --json",
        "svbf dimension",
        "svbf dimension --json",
    ];
    small.iter().map(|c| c.replace("DIR", dir).split(' ').map(String::from).collect()).collect()
}

fn run_with_stdout(args: &[String], stdout: Stdio) -> Output {
    Command::new(env!("CARGO_BIN_EXE_netmeas"))
        .args(args)
        .stdout(stdout)
        .stderr(Stdio::piped())
        .output()
        .expect("netmeas runs")
}

#[test]
fn a_closed_pipe_ends_each_command_quietly() {
    let dir = std::env::temp_dir().join(format!("netmeas-closed-pipe-{}", std::process::id()));
    for args in printing_commands(dir.to_str().unwrap()) {
        // A pipe whose read end is closed before the command starts: its first write fails.
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let o = run_with_stdout(&args, Stdio::from(writer));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.signal(), Some(libc::SIGPIPE), "{args:?}: {:?}, stderr {err}", o.status);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_full_disk_is_a_one_line_error() {
    let dir = std::env::temp_dir().join(format!("netmeas-full-disk-{}", std::process::id()));
    for args in printing_commands(dir.to_str().unwrap()) {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
        let o = run_with_stdout(&args, Stdio::from(full));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: stderr {err}");
        let last = err.lines().last().unwrap_or("");
        assert_eq!(last, "netmeas: error: cannot write to stdout: No space left on device (os error 28)", "{args:?}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

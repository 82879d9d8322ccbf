//! What the CLI writes: for scripts, one JSON object per result, stamped with
//! where it came from (netmeas version, git revision, time); output files,
//! whole or not at all.

use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The provenance stamp of every `--json` object: `{version, git_revision, timestamp}`.
pub fn provenance() -> Value {
    json!({
        "version": env!("CARGO_PKG_VERSION"),
        "git_revision": env!("NETMEAS_GIT_REVISION"),
        "timestamp": humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
    })
}

/// `v` with the provenance stamp added under `netmeas` (an object keeps its
/// fields; anything else is wrapped as `result`).
pub fn stamped(v: impl serde::Serialize) -> Result<Value, String> {
    let v = serde_json::to_value(v).map_err(|e| format!("cannot encode the result as JSON: {e}"))?;
    Ok(match v {
        Value::Object(mut m) => {
            m.insert("netmeas".into(), provenance());
            Value::Object(m)
        }
        other => json!({ "netmeas": provenance(), "result": other }),
    })
}

/// Prints `v` as one JSON line on stdout with the provenance stamp.
pub fn print_json(v: impl serde::Serialize) -> Result<(), String> {
    let line = stamped(v)?.to_string();
    print_line(format_args!("{line}"));
    Ok(())
}

/// Writes one line on stdout (what the crate's `println!` does). A closed
/// stdout ends the process as a closed pipe ends any Unix tool; any other
/// write error (`> /dev/full`) ends it with a one-line error and status 1,
/// never a panic. Output files are written whole or not at all
/// ([`write_atomic`]), so nothing half-written is left behind.
pub fn print_line(args: std::fmt::Arguments) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.write_all(b"\n")).and_then(|()| out.flush()) {
        stdout_failed(&e)
    }
}

/// Ends the process after a failed write to stdout (see [`print_line`]).
fn stdout_failed(e: &std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        // 128 + SIGPIPE: what a shell reports for a tool whose reader went away.
        std::process::exit(141);
    }
    eprintln!("netmeas: error: cannot write to stdout: {e}");
    std::process::exit(1)
}

/// Restores the default action of SIGPIPE (the Rust runtime ignores it), so
/// that `netmeas … | head` ends quietly when `head` has read enough, as any
/// Unix tool does, instead of failing on its next write.
pub fn default_sigpipe() {
    // SAFETY: called once at the start of main, before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Writes `text` to `dir/name` whole or not at all (see [`write_set`]).
pub fn write_atomic(dir: &Path, name: &str, text: &str) -> Result<(), String> {
    write_set(&[(dir.join(name), text.to_string())])
}

/// Writes each item as JSON into `dir` as `<stem>-<index>.json` (a
/// synopsis per period or epoch, what `netmeas station ingest` takes), all
/// or none.
pub fn write_numbered<T: serde::Serialize>(
    dir: &Path,
    stem: &str,
    items: impl Iterator<Item = (u64, T)>,
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut set = Vec::new();
    for (index, item) in items {
        let text = serde_json::to_string(&item).map_err(|e| e.to_string())?;
        set.push((dir.join(format!("{stem}-{index}.json")), text));
    }
    write_set(&set)
}

/// Writes a set of output files, all of them or none
/// ([`netmeas_sim::files::write_all_or_none`]: nothing half-written, no half
/// of a set, a symlinked target followed), and says on stderr which existing
/// files it replaced.
pub fn write_set(files: &[(PathBuf, String)]) -> Result<(), String> {
    for w in netmeas_sim::files::write_all_or_none(files)? {
        if w.replaced {
            let _ = writeln!(std::io::stderr(), "netmeas: replaced {}", w.path.display());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_keep_their_fields_and_gain_the_stamp() {
        let v = stamped(json!({ "core": "lda", "mean": 1.5 })).unwrap();
        assert_eq!(v["core"], "lda");
        assert_eq!(v["mean"], 1.5);
        assert_eq!(v["netmeas"]["version"], env!("CARGO_PKG_VERSION"));
        let rev = v["netmeas"]["git_revision"].as_str().unwrap();
        assert!(!rev.is_empty());
        let ts = v["netmeas"]["timestamp"].as_str().unwrap();
        humantime::parse_rfc3339(ts).unwrap();
        let w = stamped(json!([1, 2])).unwrap();
        assert_eq!(w["result"], json!([1, 2]));
    }
}

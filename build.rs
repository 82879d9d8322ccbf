//! Stamps the CLI with the git revision it was built from (`--json` outputs
//! carry it): the short commit, with `-dirty` when the work tree differs, or
//! `unknown` outside a git checkout.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let o = Command::new("git").args(args).output().ok()?;
    o.status.success().then(|| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

fn main() {
    let rev = match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(r) if !r.is_empty() => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
            if dirty { format!("{r}-dirty") } else { r }
        }
        _ => "unknown".into(),
    };
    println!("cargo:rustc-env=NETMEAS_GIT_REVISION={rev}");
    for p in [".git/HEAD", ".git/index", ".git/refs/heads"] {
        if std::path::Path::new(p).exists() {
            println!("cargo:rerun-if-changed={p}");
        }
    }
}

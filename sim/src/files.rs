//! Output files written as a set, whole or not at all: every export, synopsis
//! set, report and plot goes through [`write_all_or_none`], so a failed run
//! (a full disk, a missing permission, a later step that fails) leaves no
//! half-written file and no half of a set behind.

use std::io::Write;
use std::path::{Path, PathBuf};

/// One file that [`write_all_or_none`] put in place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    /// The file written (a symlinked target's own path: the link is kept).
    pub path: PathBuf,
    /// True when it replaced an existing file.
    pub replaced: bool,
}

/// Writes every `(path, contents)` or none of them. Each file is written and
/// synced to a hidden temporary beside its target, and only when all are
/// written are they renamed into place; on any error the temporaries are
/// removed and the targets are as they were. A target that is a symlink is
/// followed (the file it points at is replaced, the link stays). The error is
/// one line naming the file.
pub fn write_all_or_none<P: AsRef<Path>, C: AsRef<[u8]>>(files: &[(P, C)]) -> Result<Vec<Written>, String> {
    let mut staged: Vec<(PathBuf, PathBuf, bool)> = Vec::with_capacity(files.len());
    let discard = |staged: &[(PathBuf, PathBuf, bool)]| {
        for (tmp, _, _) in staged {
            let _ = std::fs::remove_file(tmp);
        }
    };
    for (path, contents) in files {
        match stage(path.as_ref(), contents.as_ref()) {
            Ok(s) => staged.push(s),
            Err(e) => {
                discard(&staged);
                return Err(e);
            }
        }
    }
    let mut written = Vec::with_capacity(staged.len());
    for (k, (tmp, target, replaced)) in staged.iter().enumerate() {
        if let Err(e) = std::fs::rename(tmp, target) {
            discard(&staged[k..]);
            return Err(format!("cannot write {}: {e}", target.display()));
        }
        written.push(Written { path: target.clone(), replaced: *replaced });
    }
    Ok(written)
}

/// Writes `contents` to a temporary beside `path`'s real target: (temporary, target, target exists).
fn stage(path: &Path, contents: &[u8]) -> Result<(PathBuf, PathBuf, bool), String> {
    let target = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path)
            .map_err(|e| format!("cannot write {}: it is a link to nowhere ({e})", path.display()))?,
        Ok(m) if m.is_dir() => return Err(format!("cannot write {}: it is a folder", path.display())),
        _ => path.to_path_buf(),
    };
    let replaced = target.exists();
    let name = target.file_name().ok_or_else(|| format!("cannot write {}: not a file name", path.display()))?;
    let tmp = target.with_file_name(format!(".{}.{}.tmp", name.to_string_lossy(), std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(contents)?;
        f.sync_all()
    };
    if let Err(e) = write() {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("cannot write {}: {e}", target.display()));
    }
    Ok((tmp, target, replaced))
}

/// Reads an input file (a config, a capture, a synopsis) whole. Only a
/// regular file is read: a FIFO or a device would block or never end, so it
/// is refused by name instead. The error is one line naming the file.
pub fn read_input(path: &Path) -> Result<Vec<u8>, String> {
    let mut data = Vec::new();
    std::io::Read::read_to_end(&mut open_input(path)?, &mut data)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(data)
}

/// Opens an input file to read it as a stream, refusing what [`read_input`]
/// refuses (a folder, a FIFO, a device). The error is one line naming the file.
pub fn open_input(path: &Path) -> Result<std::fs::File, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if !meta.is_file() {
        let what = if meta.is_dir() { "a folder" } else { "not a regular file (a FIFO or a device)" };
        return Err(format!("cannot read {}: it is {what}", path.display()));
    }
    std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// [`read_input`] as UTF-8 text.
pub fn read_input_text(path: &Path) -> Result<String, String> {
    String::from_utf8(read_input(path)?).map_err(|e| format!("cannot read {}: not UTF-8 text ({e})", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("netmeas-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn listing(d: &Path) -> Vec<String> {
        let mut v: Vec<String> =
            std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }

    #[test]
    fn a_set_is_written_whole_and_replacements_are_reported() {
        let d = dir("whole");
        std::fs::write(d.join("b.json"), "old").unwrap();
        let w = write_all_or_none(&[(d.join("a.json"), "1"), (d.join("b.json"), "2")]).unwrap();
        assert_eq!(w.iter().map(|w| w.replaced).collect::<Vec<_>>(), [false, true]);
        assert_eq!(listing(&d), ["a.json", "b.json"]);
        assert_eq!(std::fs::read_to_string(d.join("b.json")).unwrap(), "2");
    }

    #[test]
    fn a_failure_leaves_nothing_of_the_set_behind() {
        let d = dir("none");
        std::fs::write(d.join("a.json"), "old").unwrap();
        // The second target's folder does not exist: the first is not replaced either.
        let e = write_all_or_none(&[(d.join("a.json"), "new"), (d.join("missing/b.json"), "2")]).unwrap_err();
        assert!(e.starts_with("cannot write ") && e.contains("missing/b.json"), "{e}");
        assert_eq!(listing(&d), ["a.json"]);
        assert_eq!(std::fs::read_to_string(d.join("a.json")).unwrap(), "old");
        let e = write_all_or_none(&[(d.clone(), "x")]).unwrap_err();
        assert!(e.ends_with("it is a folder"), "{e}");
    }

    #[test]
    fn only_regular_files_are_read() {
        let d = dir("read");
        std::fs::write(d.join("a.toml"), "x = 1").unwrap();
        assert_eq!(read_input_text(&d.join("a.toml")).unwrap(), "x = 1");
        let fifo = d.join("fifo");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let e = read_input(&fifo).unwrap_err();
        assert!(e.ends_with("it is not a regular file (a FIFO or a device)"), "{e}");
        assert!(read_input(&d).unwrap_err().ends_with("it is a folder"));
        assert!(read_input(&d.join("none")).unwrap_err().starts_with("cannot read "));
    }

    #[test]
    fn a_symlinked_target_keeps_its_link() {
        let d = dir("link");
        std::fs::create_dir_all(d.join("real")).unwrap();
        std::fs::write(d.join("real/plot.svg"), "old").unwrap();
        std::os::unix::fs::symlink(d.join("real/plot.svg"), d.join("plot.svg")).unwrap();
        let w = write_all_or_none(&[(d.join("plot.svg"), "new")]).unwrap();
        assert!(w[0].replaced && w[0].path.ends_with("real/plot.svg"), "{w:?}");
        assert!(std::fs::symlink_metadata(d.join("plot.svg")).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(d.join("plot.svg")).unwrap(), "new");
        assert_eq!(listing(&d.join("real")), ["plot.svg"]);
        std::os::unix::fs::symlink(d.join("nowhere"), d.join("dangling.svg")).unwrap();
        let e = write_all_or_none(&[(d.join("dangling.svg"), "x")]).unwrap_err();
        assert!(e.contains("link to nowhere"), "{e}");
    }
}

//! The CLI walks the core registry: unknown names list every registered
//! block, a block that cannot be built for a target says why, and a config
//! error names its field — each a one-line error, a non-zero exit and
//! nothing on stdout.

mod common;

use common::{assert_refused, json, netmeas};
use netmeas_hdl::registry;

#[test]
fn unknown_blocks_are_refused_with_the_registry_names() {
    for args in [&["export", "ldaa"][..], &["synth", "ldaa", "--target", "ecp5-85k"][..]] {
        assert_refused(args, "unknown block `ldaa`");
        let err = String::from_utf8_lossy(&netmeas(args).stderr).into_owned();
        for name in registry::names() {
            assert!(err.contains(name), "{args:?}: {name} not listed in {err}");
        }
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    assert_refused(&["synth", "lda", "--target", "virtex"], "unknown target `virtex`");
}

#[test]
fn blocks_that_do_not_fit_a_target_say_why() {
    for c in registry::CORES {
        if let Some(why) = c.unfit_for(registry::Target::Ice40Hx8k) {
            assert_refused(&["synth", c.name(), "--target", "ice40-hx8k"], why);
        }
    }
    assert_refused(&["synth", "dbm", "--target", "ice40-hx8k"], "exceed the HX8K");
}

#[test]
fn a_bad_config_names_its_field_and_writes_nothing() {
    let dir = std::env::temp_dir().join(format!("netmeas-registry-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "rows = 2000\naddr_bits = 10\n").unwrap();
    let out = dir.join("out");
    assert_refused(
        &["export", "counter-bank", "--config", bad.to_str().unwrap(), "--out", out.to_str().unwrap()],
        "invalid config: `rows`",
    );
    std::fs::write(&bad, "rowz = 20\n").unwrap();
    assert_refused(
        &["export", "counter-bank", "--config", bad.to_str().unwrap(), "--out", out.to_str().unwrap()],
        "rowz",
    );
    assert!(!out.exists(), "a refused export wrote {}", out.display());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn json_outputs_record_their_provenance() {
    for args in [
        &["run", "lda", "--packets", "20000", "--json"][..],
        &["svbf", "dimension", "--centers", "8", "--target-failure", "0.01", "--json"][..],
    ] {
        let v = json(&netmeas(args));
        let p = &v["netmeas"];
        assert_eq!(p["version"], env!("CARGO_PKG_VERSION"), "{args:?}: {v}");
        let rev = p["git_revision"].as_str().unwrap_or_default();
        assert!(rev == "unknown" || rev.len() >= 12, "{args:?}: {rev}");
        let ts = p["timestamp"].as_str().unwrap_or_default();
        assert!(ts.len() == 20 && ts.ends_with('Z') && ts.starts_with("20"), "{args:?}: {ts}");
    }
}

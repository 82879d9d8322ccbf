//! `netmeas demo --no-synth`: every block of the registry exported and
//! linted, co-simulated against its golden model, its estimate shown next to
//! the truth, and the report written.

use netmeas_hdl::registry;
use std::process::Command;

#[test]
fn demo_shows_every_registered_block_and_writes_the_report() {
    let dir = std::env::temp_dir().join(format!("netmeas-demo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_netmeas"))
        .args(["demo", "--no-synth", "--cycles", "200001"])
        .current_dir(&dir)
        .output()
        .expect("netmeas runs");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "stderr: {}\nstdout: {stdout}", String::from_utf8_lossy(&o.stderr));
    let report = std::fs::read_to_string(dir.join("out/report.md")).expect("out/report.md");
    assert_eq!(stdout.trim(), report.trim(), "the report is what the demo prints");
    assert!(!report.contains("NaN"), "{report}");
    // | block | top module | lint | shipped testbench (Icarus) | co-simulated model | cycles bit-exact | exercised | run synopses | estimate vs truth |
    let row = |name: &str| -> Vec<String> {
        let line = report.lines().find(|l| l.starts_with(&format!("| {name} |"))).unwrap_or_else(|| panic!("{report}"));
        line.split('|').map(|c| c.trim().to_string()).collect()
    };
    let exported: Vec<String> = std::fs::read_dir(dir.join("out/export"))
        .expect("out/export")
        .map(|f| f.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for core in registry::CORES {
        let r = row(core.name());
        let top = r[2].trim_matches('`');
        assert!(exported.contains(&format!("{top}.v")), "{} not exported: {exported:?}", core.name());
        assert_eq!(r[3], "clean", "{r:?}");
        if core.name() == "engine" {
            assert!(r[4].starts_with("none: "), "{r:?}");
        } else {
            // The export's own testbench passed under Icarus, and it was written beside the Verilog.
            assert!(r[4].starts_with("PASS, "), "{r:?}");
            assert!(exported.contains(&format!("{top}_tb.v")) && exported.contains(&format!("{top}_tb.hex")), "{r:?}");
            let cycles: u64 = r[6].parse().unwrap_or_else(|_| panic!("{r:?}"));
            assert!(cycles >= 200_001, "{r:?}");
        }
        match core.name() {
            _ if core.kind() == registry::Kind::Block || core.name() == "link" => {
                assert!(r[9].starts_with("no estimator"), "{r:?}")
            }
            "engine" => assert!(r[9].contains("truth") && r[8] == "checked by the reader", "{r:?}"),
            _ => assert!(r[8] == "bit-identical" && r[9].contains("truth"), "{r:?}"),
        }
    }
    // The models the demo co-simulates are the defaults where one is built (the H3 unit's and the
    // host link's are not: the link's model has a short request timeout to keep its runs short).
    for name in ["counter-bank", "frame-parser", "lda", "rda", "fridge", "expb", "dbm", "svbf"] {
        assert!(!row(name)[5].contains("not the default"), "{:?}", row(name));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

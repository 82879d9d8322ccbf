//! `netmeas demo --no-synth`: both blocks exported and linted, co-simulated
//! against their golden models, and the report written.

use std::process::Command;

#[test]
fn demo_co_simulates_both_blocks_and_writes_the_report() {
    let dir = std::env::temp_dir().join(format!("netmeas-demo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_netmeas"))
        .args(["demo", "--no-synth", "--cycles", "300001"])
        .current_dir(&dir)
        .output()
        .expect("netmeas runs");
    assert!(o.status.success(), "stderr: {}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("co-simulation: 300001 + 300001 cycles bit-exact"), "{stdout}");
    let report = std::fs::read_to_string(dir.join("out/report.md")).expect("out/report.md");
    // | model | streams | cycles | updates | hazards at distance 1, 2, 3, 4 | epochs read | cycles/s |
    let row = |model: &str| -> Vec<String> {
        let line =
            report.lines().find(|l| l.starts_with(&format!("| {model} |"))).unwrap_or_else(|| panic!("{report}"));
        line.split('|').map(|c| c.trim().to_string()).collect()
    };
    let cb = row("cb_default");
    let streams: usize = cb[2].parse().unwrap();
    let expected = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert_eq!(streams, expected, "one stream per core");
    assert_eq!(cb[3], "300001");
    let updates: u64 = cb[4].parse().unwrap();
    assert!(updates > 200_000, "{cb:?}");
    let epochs: u64 = cb[6].parse().unwrap();
    assert!(epochs > 100, "{cb:?}");
    assert_eq!(row("h3_wide")[3], "300001");
    let exported: Vec<String> = std::fs::read_dir(dir.join("out/export"))
        .expect("out/export")
        .map(|f| f.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for top in ["netmeas_counter_bank_r1024_a10_c32_t40.v", "netmeas_h3_"] {
        assert!(exported.iter().any(|f| f.starts_with(top) && f.ends_with(".v")), "{exported:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

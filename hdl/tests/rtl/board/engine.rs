use netmeas_hdl::export::{BlockConfig, export};
use netmeas_sim::board::engine::EngineConfig;

#[test]
fn engine_is_synthesizable() {
    let e = export(&BlockConfig::new(EngineConfig::default())).unwrap();
    let dir = std::env::temp_dir().join(format!("netmeas-engine-lint-{}", std::process::id()));
    let files = e.write(&dir, netmeas_hdl::export::DEFAULT_CLOCK_MHZ, None).unwrap();
    let r = netmeas_hdl::tools::lint(&files[0], &e.top);
    let csr = std::fs::read_to_string(dir.join(format!("{}.csr.json", e.top))).unwrap();
    let md = std::fs::read_to_string(dir.join(format!("{}.registers.md", e.top))).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    r.unwrap();
    assert!(csr.contains("\"SENDER_WINDOW\""), "csr.json lists the read-out windows");
    assert!(md.contains("| 0x4000–0x43FF | `SENDER_WINDOW` | rc |"), "{md}");
    let ports: Vec<&str> = e.ports.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        ports,
        [
            "clock",
            "reset",
            "rx",
            "tx",
            "leds",
            "x_tx_valid",
            "x_tx_ready",
            "x_tx_key",
            "x_tx_ts",
            "x_tx_class",
            "x_tx_flip",
            "x_rx_valid",
            "x_rx_ready",
            "x_rx_key",
            "x_rx_ts",
            "x_rx_class",
            "x_rx_flip"
        ]
    );
}

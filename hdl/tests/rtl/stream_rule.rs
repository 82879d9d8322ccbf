//! The stream rule on every valid/ready port of every registered block,
//! proven by SymbiYosys on the export of the block's formal config with the
//! checker [`formal::stream_checker`] generates from its ports and its
//! datasheet's [`StreamRule`](netmeas_hdl::registry::StreamRule).

use crate::formal::{self, Status};
use netmeas_hdl::export::{Exported, export};
use netmeas_hdl::registry::{self, CORES, StreamProof};

/// Runs the stream-rule checker `checker` on `e` at `depth` (the induction
/// step alone with `induction_only`): its status and seconds.
fn prove(name: &str, e: &Exported, checker: &str, depth: usize, induction_only: bool) -> (Status, f64) {
    let dir = formal::proof_dir(name);
    formal::write_dut(&dir, &e.verilog, &e.top);
    std::fs::write(dir.join("stream_formal.sv"), checker).unwrap();
    std::fs::write(dir.join("stream.sby"), formal::stream_sby(depth, induction_only)).unwrap();
    formal::run(&dir, "stream.sby", "prove")
}

/// Every block whose registry entry says the proof runs: the stream rule
/// closes by k-induction at the stated depth on its formal config.
#[test]
fn every_core_keeps_the_stream_rule() {
    for core in CORES {
        let depth = match core.stream_proof() {
            StreamProof::Induction(depth) => depth,
            StreamProof::Skipped(why) => {
                eprintln!("{}: not proven: {why}", core.name());
                continue;
            }
        };
        let e = export(&core.default_config(None).unwrap()).unwrap();
        let streams = formal::streams(&e.ports);
        assert!(streams.iter().any(|(_, out)| *out), "{}: no valid/ready stream out of the block", core.name());
        let checker = formal::stream_checker(&e.ports, &e.config.stream_rule());
        let (status, secs) = prove(&format!("stream_{}", core.name()), &e, &checker, depth, false);
        assert_eq!(status, Status::Pass, "{}: the stream rule", core.name());
        eprintln!("{}: {} streams, k-induction at depth {depth} closes in {secs:.1} s", core.name(), streams.len());
    }
}

/// The checker's assumptions leave it something to refute: tied to an LDA
/// core that ignores the consumer's `m_ro_ready` (the port tied high inside
/// the checker), the induction step at the proof's depth fails.
#[test]
fn the_stream_checker_refutes_a_core_that_ignores_ready() {
    let core = registry::core("lda").unwrap();
    let StreamProof::Induction(depth) = core.stream_proof() else { panic!("the LDA proof runs") };
    let e = export(&core.default_config(None).unwrap()).unwrap();
    let checker = formal::stream_checker(&e.ports, &e.config.stream_rule());
    let port = ".m_ro_ready(m_ro_ready)";
    assert!(checker.contains(port), "{port} is in the checker");
    let mutant = checker.replacen(port, ".m_ro_ready(1'b1)", 1);
    let (status, secs) = prove("stream_lda_ignores_ready", &e, &mutant, depth, true);
    assert_ne!(status, Status::Pass, "an LDA core ignoring m_ro_ready proves");
    eprintln!("lda ignoring m_ro_ready: refuted in {secs:.1} s");
}

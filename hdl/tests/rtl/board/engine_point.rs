use netmeas_hdl::board::engine_point::*;
use netmeas_sim::lda::LdaConfig;

#[test]
fn engine_point_is_synthesizable() {
    let lda = LdaConfig { key_bits: 64, ..LdaConfig::default() };
    netmeas_hdl::export::lint_block(EnginePoint::<64, 9, 10>::new(&lda, 1, 1), "engine_point").unwrap();
}

use netmeas_hdl::common::h3::*;
use netmeas_sim::h3::H3Config;

fn cfg(registered: bool) -> H3Config {
    H3Config { key_bits: 64, out_bits: 17, seed: 0x5eed, registered, name: None }
}

#[test]
fn h3_unit_is_synthesizable_in_every_form() {
    netmeas_hdl::export::lint_block(H3Unit::<64, 17>::new(&cfg(true)), "h3_registered").unwrap();
    netmeas_hdl::export::lint_block(H3Unit::<64, 17>::new(&cfg(false)), "h3_combinational").unwrap();
    netmeas_hdl::export::lint_block(H3Unit::<64, 17>::new(&cfg(true)).with_key_register(), "h3_key_register").unwrap();
}

#[test]
fn key_register_is_kept_and_feeds_the_xor_trees() {
    // Compare with the generator's indentation folded away.
    let flat = |v: String| v.split_whitespace().collect::<Vec<_>>().join(" ");
    let v = flat(netmeas_hdl::export::generate(H3Unit::<64, 17>::new(&cfg(true)).with_key_register()).0);
    assert!(v.contains("(* keep *) always @(posedge clock) begin key_q <= s_key; end"), "{v}");
    assert!(v.contains("assign hash[16] = ^(key_q & Q_16);"), "{v}");
    let plain = flat(netmeas_hdl::export::generate(H3Unit::<64, 17>::new(&cfg(true))).0);
    assert!(!plain.contains("keep"), "{plain}");
    assert!(plain.contains("key_q = s_key;"), "{plain}");
}

use netmeas_hdl::board::bandwidth_feed::*;
use rust_hdl::prelude::*;

/// Lint clean, and its packets are `bandwidth_packet`'s in rust-hdl's simulator.
#[test]
fn bandwidth_feed_is_synthesizable_and_follows_the_model() {
    netmeas_hdl::export::lint_block(BandwidthFeed::default(), "bandwidth_feed").unwrap();
    let mut uut = BandwidthFeed::default();
    uut.connect_all();
    let gap = 3u16;
    let step = |uut: &mut BandwidthFeed, clk: bool| {
        uut.clock.next = Clock { clk };
        assert!(simulate(uut, 1000));
    };
    // Packet i (its number in key bits 119:64) arrives in clock 2i + 1: the time advances
    // only with packets; the flows draw every count of leading zeros.
    for c in 0..80u64 {
        let i = c / 2;
        let key = (i as u128) << 64 | ((0x8000u128 >> (i % 17)) << 48) | ((i * 37 % 1024) as u128) << 32;
        uut.reset.next = c == 0;
        uut.active.next = true;
        uut.gap.next = (gap as u64).into();
        uut.tx_valid.next = c % 2 == 1;
        uut.tx_len_draw.next = ((key >> 32) as u64 & 0x3FF).into();
        uut.tx_flow_draw.next = ((key >> 48) as u64 & 0xFFFF).into();
        step(&mut uut, false);
        if c % 2 == 1 {
            let want = netmeas_sim::board::engine::bandwidth_packet(key, gap);
            let got =
                (uut.pkt_ts.val().to_u64(), uut.pkt_len.val().to_u64() as u32, uut.pkt_flow.val().to_u64() as u32);
            assert!(uut.pkt_valid.val());
            assert_eq!(got, (want.ts, want.len, want.flow), "packet {i}");
        } else {
            assert!(!uut.pkt_valid.val());
        }
        step(&mut uut, true);
    }
}

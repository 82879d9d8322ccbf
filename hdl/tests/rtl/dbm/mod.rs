//! The DBM cores in rust-hdl's own simulator against the per-clock model.

/// One clock of a DBM core (both cores have the same ports) in rust-hdl's
/// own simulator: inputs applied, outputs sampled, then the rising edge.
macro_rules! sim_step {
    ($uut:expr, $i:expr) => {{
        let (uut, i): (&mut _, &netmeas_sim::dbm::DbmInputs) = ($uut, $i);
        uut.reset.next = i.reset;
        uut.s_valid.next = i.valid;
        uut.s_ts.next = i.ts.into();
        uut.s_len.next = (i.len as u64).into();
        uut.s_flow.next = (i.flow as u64).into();
        uut.now_valid.next = i.now_valid;
        uut.now.next = i.now.into();
        uut.m_ro_ready.next = i.ro_ready;
        uut.clock.next = Clock { clk: false };
        assert!(simulate(uut, 1000));
        let o = netmeas_sim::dbm::DbmOutputs {
            ready: uut.s_ready.val(),
            ro_valid: uut.m_ro_valid.val(),
            ro_end: uut.m_ro_end.val(),
            ro_bucket: netmeas_sim::dbm::Bucket {
                first: uut.m_ro_first.val().to_u64(),
                last: uut.m_ro_last_ts.val().to_u64(),
                mass: uut.m_ro_mass.val().to_u64(),
                n: uut.m_ro_n.val().to_u64() as u32,
                sumsq: uut.m_ro_sumsq.val().to_u128(),
                max: uut.m_ro_max.val().to_u64(),
                min: uut.m_ro_min.val().to_u64(),
                flow: uut.m_ro_flow.val().to_u64() as u32,
                flow_count: uut.m_ro_flow_count.val().to_u64() as u32,
            },
            period_index: uut.period_index.val().to_u64() as u32,
            period_packets: uut.period_packets.val().to_u64(),
            period_merges: uut.period_merges.val().to_u64(),
            period_tail_joins: uut.period_tail_joins.val().to_u64(),
            period_key_saturated: uut.period_key_saturated.val(),
            period_mass_saturated: uut.period_mass_saturated.val(),
            period_interval_saturated: uut.period_interval_saturated.val(),
        };
        uut.clock.next = Clock { clk: true };
        assert!(simulate(uut, 1000));
        o
    }};
}

mod core;
mod interval_core;

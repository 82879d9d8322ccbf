//! The fridge core in the core registry (Zheng et al., §3.2, §4.2, §6).

use crate::export::{Port, generate};
use crate::fridge::FridgeCore;
use crate::point::binding::{PointBinding, RecordField, RecordSource};
use crate::registry::{CoreSpec, FieldOp, Kind, Reference, RmwGeometry, StreamRule, Target};
use netmeas_sim::ConfigError;
use netmeas_sim::csr::RegisterDesc;
use netmeas_sim::fridge::{FRIDGE_ENTRY_BITS, FRIDGE_REG_HIST_POP, FridgeConfig, fridge_registers};

impl CoreSpec for FridgeConfig {
    const NAME: &'static str = "fridge";
    const KIND: Kind = Kind::Core;
    const PAPER: &'static str = "fridges §3, §4.2, §6";
    const RATE: &'static str = "1";
    const DATASHEET: &'static str = "docs/cores/fridge.md";

    /// Two fridges of 2^11 entries.
    fn default_for(_target: Option<Target>) -> Self {
        FridgeConfig::default()
    }
    /// Measured (docs/cores/fridge.md): one fridge of 256 entries needs 9903
    /// of the HX8K's 7680 logic cells.
    fn unfit_for(target: Target) -> Option<&'static str> {
        (target == Target::Ice40Hx8k).then_some(
            "fridge: the core does not fit the HX8K (one fridge of 256 entries needs 9903 of its 7680 logic \
             cells); build it for ecp5-85k",
        )
    }
    fn check(&self) -> Result<(), ConfigError> {
        self.validate()
    }
    fn top(&self) -> String {
        self.top_name()
    }
    fn summary(&self) -> &'static str {
        "Fridge core (Zheng et al., §3.2, §4.2, §6): N fridges in one entry memory, PRNG entry probability, \
         insertion counters, delay samples with x at one packet per clock, in-fabric correction into \
         ping-pong log2 histograms"
    }
    fn registers(&self) -> Vec<RegisterDesc> {
        fridge_registers(self)
    }
    fn csr_data_bits(&self) -> u32 {
        32
    }
    /// The fridges' shared entry memory with the entry arithmetic (overwrite,
    /// or clear on a match).
    fn reference(&self) -> Reference {
        Reference::Rmw(RmwGeometry {
            rows: self.total_entries(),
            addr_bits: self.addr_bits(),
            fields: vec![(FRIDGE_ENTRY_BITS, FieldOp::Entry)],
        })
    }
    /// Behind the frame parser (§2, §6.1): the record's match ID is the
    /// packet ID, a response role makes a response, the ingress time's low 48
    /// bits the timestamp; only records with a role are packets. A flip is a
    /// one-clock request (the core holds it as `flip_pending`).
    fn point_binding(&self) -> Option<PointBinding> {
        Some(PointBinding {
            packet: vec![
                ("s_id".into(), RecordSource::Field(RecordField::Match)),
                ("s_response".into(), RecordSource::RoleIs(2)),
                ("s_ts".into(), RecordSource::Field(RecordField::Ts)),
            ],
            role_only: true,
            flip: Some(("flip".into(), None)),
            readout_last: "m_ro_last".into(),
            epoch_marker: "epoch".into(),
            now: None,
            query: None,
        })
    }
    /// `s_ready` is low only while the memories clear after reset, and a
    /// `HIST_POP` write takes the histogram row presented as `m_ro_ready`
    /// does (docs/cores/fridge.md).
    fn stream_rule(&self) -> StreamRule {
        StreamRule {
            ready_after_reset: vec!["s"],
            register_takes: vec![("m_ro", FRIDGE_REG_HIST_POP as u64)],
            reset_latency: 1,
        }
    }
    fn generate(&self) -> (String, Vec<Port>) {
        match self.addr_bits() {
            1 => generate(FridgeCore::<1>::new(self)),
            2 => generate(FridgeCore::<2>::new(self)),
            3 => generate(FridgeCore::<3>::new(self)),
            4 => generate(FridgeCore::<4>::new(self)),
            5 => generate(FridgeCore::<5>::new(self)),
            6 => generate(FridgeCore::<6>::new(self)),
            7 => generate(FridgeCore::<7>::new(self)),
            8 => generate(FridgeCore::<8>::new(self)),
            9 => generate(FridgeCore::<9>::new(self)),
            10 => generate(FridgeCore::<10>::new(self)),
            11 => generate(FridgeCore::<11>::new(self)),
            12 => generate(FridgeCore::<12>::new(self)),
            13 => generate(FridgeCore::<13>::new(self)),
            14 => generate(FridgeCore::<14>::new(self)),
            15 => generate(FridgeCore::<15>::new(self)),
            16 => generate(FridgeCore::<16>::new(self)),
            17 => generate(FridgeCore::<17>::new(self)),
            other => {
                unreachable!("fridge entry-address width {other} passed validation but has no instance")
            }
        }
    }
    fn test_vectors(&self, seed: u64, cycles: Option<usize>) -> Result<crate::shipped_testbench::Vectors, String> {
        Ok(crate::fridge::vectors::fridge_vectors(self, seed, cycles))
    }
}

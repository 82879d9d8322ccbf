//! The frame parser in the core registry's terms (its [`CoreSpec`]): the
//! measurement point's front end (`docs/cores/frame-parser.md`).

use super::frame_parser::FrameParser;
use crate::export::{Port, generate};
use crate::registry::{CoreSpec, Kind, Reference, StreamProof, Target};
use netmeas_sim::ConfigError;
use netmeas_sim::counter_bank::CounterBankConfig;
use netmeas_sim::frame::FrameParserConfig;

impl CoreSpec for FrameParserConfig {
    const NAME: &'static str = "frame-parser";
    const KIND: Kind = Kind::Block;
    const PAPER: &'static str = "LDA §III-C/§V, MAPLE §4 (packet key); Zheng et al. §2 (fridge roles)";
    const RATE: &'static str = "1 beat (one frame's bytes up to the data width)";
    const DATASHEET: &'static str = "docs/cores/frame-parser.md";

    fn default_for(_target: Option<Target>) -> Self {
        FrameParserConfig::default()
    }
    fn unfit_for(target: Target) -> Option<&'static str> {
        (target == Target::Ice40Hx8k).then_some(
            "frame-parser: the 128-byte window and the stages that carry it take about 9 000 flip-flops \
             (9 124 on the ECP5 at 64 bits), beyond the HX8K's 7 680 logic cells; build it for ecp5-85k",
        )
    }
    fn check(&self) -> Result<(), ConfigError> {
        self.validate()
    }
    fn top(&self) -> String {
        self.top_name()
    }
    fn summary(&self) -> &'static str {
        "Frame parser: Ethernet/VLAN/IPv4/IPv6/TCP/UDP frames on AXI4-Stream to one record per frame \
         (packet key, length, flow ID, class, fridge role and match ID), never back-pressuring the MAC"
    }
    /// The parser has no memory loop of its own; it feeds the cores, so its
    /// clock is set against theirs: the paper's counter bank (LDA §V, 1024
    /// rows of {32-bit count, 40-bit timestamp sum}), built in the same run.
    fn reference(&self) -> Reference {
        Reference::Rmw(crate::common::counter_bank_spec::counter_bank_geometry(&CounterBankConfig::default()))
    }
    fn stream_proof() -> StreamProof {
        StreamProof::Skipped("no valid/ready stream: one beat per clock in, records are never held")
    }
    fn generate(&self) -> (String, Vec<Port>) {
        match self.data_bits {
            64 => generate(FrameParser::<64, 8>::new(self)),
            128 => generate(FrameParser::<128, 16>::new(self)),
            256 => generate(FrameParser::<256, 32>::new(self)),
            512 => generate(FrameParser::<512, 64>::new(self)),
            other => unreachable!("data_bits {other} passed validation but has no instance"),
        }
    }
    fn test_vectors(&self, seed: u64, cycles: Option<usize>) -> Result<crate::shipped_testbench::Vectors, String> {
        Ok(super::vectors::frame_parser_vectors(self, seed, cycles))
    }
}

//! The host link's board side in the core registry (docs/board.md): UART and
//! the register bridge of CRC-checked frames.

use crate::board::link_top::LinkTop;
use crate::export::{Port, generate};
use crate::registry::{CoreSpec, Kind, Reference, StreamProof, Target};
use netmeas_sim::ConfigError;
use netmeas_sim::board::link::LinkConfig;

impl CoreSpec for LinkConfig {
    const NAME: &'static str = "link";
    const KIND: Kind = Kind::System;
    const PAPER: &'static str = "LDA §V (control packets); host link";
    const RATE: &'static str = "-";
    const DATASHEET: &'static str = "docs/board.md";

    fn default_for(_target: Option<Target>) -> Self {
        LinkConfig::default()
    }
    fn check(&self) -> Result<(), ConfigError> {
        self.validate()
    }
    fn top(&self) -> String {
        self.top_name()
    }
    fn summary(&self) -> &'static str {
        "Host link, board side: 8N1 UART receiver and transmitter, register bridge of CRC-16-checked \
         read/write request and response frames onto a register bus (docs/board.md)"
    }
    fn reference(&self) -> Reference {
        Reference::Without("no memory: the host link's clock is the engine's")
    }
    fn stream_proof() -> StreamProof {
        StreamProof::Skipped(
            "no valid/ready stream on its ports (UART pins and the register bus; the register bridge has its own proof)",
        )
    }
    fn generate(&self) -> (String, Vec<Port>) {
        generate(LinkTop::new(self))
    }
    fn test_vectors(&self, seed: u64, cycles: Option<usize>) -> Result<crate::shipped_testbench::Vectors, String> {
        crate::board::link_vectors::link_vectors(self, seed, cycles)
    }
}

//! The H3 hash unit in the core registry (Kompella et al., ToN 2012, §V).

use crate::common::h3::H3Unit;
use crate::export::{Port, generate};
use crate::registry::{CoreSpec, Kind, Reference, StreamProof, Target};
use netmeas_sim::ConfigError;
use netmeas_sim::h3::H3Config;

macro_rules! h3_out {
    ($c:expr, $k:literal; $($o:literal),*) => {
        match $c.out_bits {
            $($o => generate(H3Unit::<$k, $o>::new($c)),)*
            other => unreachable!("out_bits {other} passed validation but has no instance"),
        }
    };
}

macro_rules! h3_key {
    ($c:expr; $($k:literal),*) => {
        match $c.key_bits {
            $($k => h3_out!($c, $k; 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 20, 24, 32, 40, 48, 64),)*
            other => unreachable!("key_bits {other} passed validation but has no instance"),
        }
    };
}

impl CoreSpec for H3Config {
    const NAME: &'static str = "h3";
    const KIND: Kind = Kind::Block;
    const PAPER: &'static str = "LDA §V (H3 hashing)";
    const RATE: &'static str = "1 key";
    const DATASHEET: &'static str = "docs/cores/h3.md";

    fn default_for(_target: Option<Target>) -> Self {
        H3Config::default()
    }
    fn check(&self) -> Result<(), ConfigError> {
        self.validate()
    }
    fn top(&self) -> String {
        self.top_name()
    }
    fn summary(&self) -> &'static str {
        "H3 hash unit (Kompella et al., ToN 2012, §V): hash[j] = ^(key & Q_j), one key per clock"
    }
    fn reference(&self) -> Reference {
        Reference::Without("no memory: the H3 unit is XOR trees between registers")
    }
    fn stream_proof() -> StreamProof {
        StreamProof::Skipped("no valid/ready stream: one key per clock in, one hash per clock out, no back-pressure")
    }
    fn generate(&self) -> (String, Vec<Port>) {
        h3_key!(self; 8, 16, 24, 32, 48, 64, 96, 104, 112, 120, 128)
    }
    fn test_vectors(&self, seed: u64, cycles: Option<usize>) -> Result<crate::shipped_testbench::Vectors, String> {
        Ok(crate::common::h3_vectors::h3_vectors(self, seed, cycles))
    }
}

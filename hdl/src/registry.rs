//! The core registry: every block of the library, each described once by a
//! [`CoreSpec`] implementation on its config type, and listed once in
//! [`CORES`]. `netmeas export|synth|demo`, the co-simulation build
//! (`testbench/build.rs`) and the synthesis flow walk this list instead of
//! matching on names; adding a core is its folders plus one line here
//! (`docs/architecture.md`, "Adding a core").

use crate::export::Port;
use crate::shipped_testbench::Vectors;
use netmeas_sim::ConfigError;
use netmeas_sim::csr::RegisterDesc;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::any::Any;
use std::fmt::Debug;
use std::marker::PhantomData;
use std::path::Path;
use std::sync::Arc;

/// A supported FPGA target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Target {
    /// Lattice ECP5 LFE5U-85F, speed grade 8, CABGA381.
    #[serde(rename = "ecp5-85k")]
    Ecp5_85k,
    /// Lattice iCE40-HX8K, CT256.
    #[serde(rename = "ice40-hx8k")]
    Ice40Hx8k,
}

impl Target {
    /// Every target, in the order the tools print them.
    pub const ALL: [Target; 2] = [Target::Ecp5_85k, Target::Ice40Hx8k];

    /// Parses a CLI name.
    pub fn parse(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| format!("unknown target `{s}`: use ecp5-85k or ice40-hx8k"))
    }

    /// The CLI name.
    pub fn name(self) -> &'static str {
        match self {
            Target::Ecp5_85k => "ecp5-85k",
            Target::Ice40Hx8k => "ice40-hx8k",
        }
    }
}

/// What a block is in the product.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A building block the cores reuse (H3 unit, counter bank).
    Block,
    /// A measurement core from one of the papers.
    Core,
    /// A board-level system (the host link, the measurement engine).
    System,
}

/// How a field of the reference loop's record combines the stored value with
/// the operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldOp {
    /// Modular sum (counters, timestamp sums).
    Add,
    /// Bitwise exclusive or (RDA's ID field).
    Xor,
    /// Bitwise or (an SVBF partition word: inserts set bits).
    Or,
    /// A fridge entry {stamp, ts, ID, spare, valid}: a request operand overwrites, a
    /// response operand (bit 1) clears the valid bit if the entry holds its ID.
    Entry,
    /// An EXPB scale's {max flow, max index, max}: replaced by the operand's max and
    /// flow, with the record's count (its first field) as the index, when the
    /// operand's max is larger or the record is empty.
    ScaleMax,
}

/// The geometry and record arithmetic of a bare registered block-RAM
/// read-modify-write loop: the reference every Fmax is divided by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RmwGeometry {
    /// Rows.
    pub rows: usize,
    /// Address bits.
    pub addr_bits: usize,
    /// Record fields, least significant first: (bits, arithmetic).
    pub fields: Vec<(usize, FieldOp)>,
}

/// What a block's Fmax is measured against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reference {
    /// A reference loop of this geometry, built in the same run.
    Rmw(RmwGeometry),
    /// No block-RAM loop sets this block's clock; why, in words.
    Without(&'static str),
}

/// What a block's datasheet says of its valid/ready streams beyond the
/// stream rule itself (a presented item stays, unchanged, until taken): the
/// stream-rule proofs (`hdl/tests/rtl/stream_rule.rs`) check it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StreamRule {
    /// Streams into the block (`P_valid`, `P_ready`) whose `P_ready` is low
    /// only while the block clears after a reset: once high, it stays high
    /// until the next reset.
    pub ready_after_reset: Vec<&'static str>,
    /// Register writes that take the item a stream out of the block presents,
    /// as its `P_ready` does: (stream, register address).
    pub register_takes: Vec<(&'static str, u64)>,
    /// Clocks from a reset's edge to the ports showing it (1: the next clock).
    pub reset_latency: usize,
}

/// Whether the stream-rule proof of a block runs, and if not, why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StreamProof {
    /// k-induction at this depth closes on the block's formal config.
    Induction(usize),
    /// Not proven formally: why (the co-simulation checks the rule).
    Skipped(&'static str),
}

/// One block of the library, implemented on its config type: what every tool
/// needs to know about it. The config lives in `netmeas-sim` so that the
/// golden model reads the same parameters.
pub trait CoreSpec: Clone + Debug + PartialEq + Serialize + DeserializeOwned + Send + Sync + 'static {
    /// CLI name (`lda`, `counter-bank`).
    const NAME: &'static str;
    /// What it is in the product.
    const KIND: Kind;
    /// The paper and sections it implements.
    const PAPER: &'static str;
    /// Packets (or keys) accepted per clock, in words.
    const RATE: &'static str;
    /// Datasheet, relative to the repository root.
    const DATASHEET: &'static str;

    /// The default config for `target` (`None`: the paper's sizes).
    fn default_for(target: Option<Target>) -> Self;
    /// Why the block cannot be built for `target` whatever its config, if so.
    fn unfit_for(_target: Target) -> Option<&'static str> {
        None
    }
    /// Checks the config; the error names the offending field.
    fn check(&self) -> Result<(), ConfigError>;
    /// The Verilog top module name.
    fn top(&self) -> String;
    /// One line for the Verilog header and the FuseSoC description.
    fn summary(&self) -> &'static str;
    /// The register map (empty without registers).
    fn registers(&self) -> Vec<RegisterDesc> {
        Vec::new()
    }
    /// Width of `csr_wdata` (0 without registers).
    fn csr_data_bits(&self) -> u32 {
        0
    }
    /// Files written beside the Verilog besides the interface, core and
    /// `csr.json` files: (file name, text).
    fn extra_files(&self, _top: &str) -> Vec<(String, String)> {
        Vec::new()
    }
    /// The synthesis reference.
    fn reference(&self) -> Reference;
    /// How the block sits in a measurement point behind the frame parser
    /// (`docs/cores/point.md`): which record field each packet input takes
    /// and how its epochs flip; `None` if it takes no frames.
    fn point_binding(&self) -> Option<crate::point::binding::PointBinding> {
        None
    }
    /// The Verilog (module `top`) and port list of the validated config.
    fn generate(&self) -> (String, Vec<Port>);
    /// The datasheet's rules on the block's streams.
    fn stream_rule(&self) -> StreamRule {
        StreamRule { reset_latency: 1, ..Default::default() }
    }
    /// How the stream rule is proven on the paper's sizes (`default_for(None)`).
    fn stream_proof() -> StreamProof {
        StreamProof::Induction(3)
    }
    /// The shipped testbench's clocks for this config: a directed-random
    /// stimulus drawn from `seed`, `cycles` clocks long (`None`: the block's
    /// own length, long enough to cover its read-outs), and the golden
    /// per-clock model's outputs for it, port by port (see
    /// [`crate::shipped_testbench`]); or why the block has none.
    fn test_vectors(&self, seed: u64, cycles: Option<usize>) -> Result<Vectors, String>;
}

/// A validated-or-not config of any registered block, as the tools pass it.
pub trait AnyConfig: Debug + Send + Sync {
    /// The registry entry of its block.
    fn core(&self) -> &'static dyn Core;
    /// See [`CoreSpec::check`].
    fn validate(&self) -> Result<(), ConfigError>;
    /// See [`CoreSpec::top`].
    fn top_name(&self) -> String;
    /// See [`CoreSpec::summary`].
    fn summary(&self) -> &'static str;
    /// See [`CoreSpec::registers`].
    fn registers(&self) -> Vec<RegisterDesc>;
    /// See [`CoreSpec::csr_data_bits`].
    fn csr_data_bits(&self) -> u32;
    /// See [`CoreSpec::extra_files`].
    fn extra_files(&self, top: &str) -> Vec<(String, String)>;
    /// See [`CoreSpec::reference`].
    fn reference(&self) -> Reference;
    /// See [`CoreSpec::point_binding`].
    fn point_binding(&self) -> Option<crate::point::binding::PointBinding>;
    /// See [`CoreSpec::generate`].
    fn generate(&self) -> (String, Vec<Port>);
    /// See [`CoreSpec::stream_rule`].
    fn stream_rule(&self) -> StreamRule;
    /// See [`CoreSpec::test_vectors`].
    fn test_vectors(&self, seed: u64, cycles: Option<usize>) -> Result<Vectors, String>;
    /// The config as JSON (as written into the Verilog header and interface file).
    fn to_json(&self) -> serde_json::Value;
    /// For downcasting to the config type.
    fn as_any(&self) -> &dyn Any;
    /// Equality with another block's config.
    fn same_as(&self, other: &dyn AnyConfig) -> bool;
}

impl<C: CoreSpec> AnyConfig for C {
    fn core(&self) -> &'static dyn Core {
        const { &Entry::<C>::NEW }
    }
    fn validate(&self) -> Result<(), ConfigError> {
        self.check()
    }
    fn top_name(&self) -> String {
        self.top()
    }
    fn summary(&self) -> &'static str {
        CoreSpec::summary(self)
    }
    fn registers(&self) -> Vec<RegisterDesc> {
        CoreSpec::registers(self)
    }
    fn csr_data_bits(&self) -> u32 {
        CoreSpec::csr_data_bits(self)
    }
    fn extra_files(&self, top: &str) -> Vec<(String, String)> {
        CoreSpec::extra_files(self, top)
    }
    fn reference(&self) -> Reference {
        CoreSpec::reference(self)
    }
    fn point_binding(&self) -> Option<crate::point::binding::PointBinding> {
        CoreSpec::point_binding(self)
    }
    fn generate(&self) -> (String, Vec<Port>) {
        CoreSpec::generate(self)
    }
    fn stream_rule(&self) -> StreamRule {
        CoreSpec::stream_rule(self)
    }
    fn test_vectors(&self, seed: u64, cycles: Option<usize>) -> Result<Vectors, String> {
        CoreSpec::test_vectors(self, seed, cycles)
    }
    fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("configs serialize")
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn same_as(&self, other: &dyn AnyConfig) -> bool {
        other.as_any().downcast_ref::<C>() == Some(self)
    }
}

/// A block and its config: what `netmeas export` builds.
#[derive(Clone, Debug)]
pub struct BlockConfig(Arc<dyn AnyConfig>);

impl BlockConfig {
    /// Wraps the config of a registered block.
    pub fn new<C: CoreSpec>(cfg: C) -> Self {
        Self(Arc::new(cfg))
    }

    /// The registry entry of the block.
    pub fn core(&self) -> &'static dyn Core {
        self.0.core()
    }

    /// The block's CLI name (`h3`, `counter-bank`).
    pub fn block_name(&self) -> &'static str {
        self.core().name()
    }

    /// The config, if it is a `C`.
    pub fn get<C: CoreSpec>(&self) -> Option<&C> {
        self.0.as_any().downcast_ref()
    }
}

impl std::ops::Deref for BlockConfig {
    type Target = dyn AnyConfig;
    fn deref(&self) -> &Self::Target {
        &*self.0
    }
}

impl PartialEq for BlockConfig {
    fn eq(&self, other: &Self) -> bool {
        self.0.same_as(&*other.0)
    }
}

/// A registry entry: one block, seen without its config type.
pub trait Core: Sync {
    /// CLI name.
    fn name(&self) -> &'static str;
    /// What it is in the product.
    fn kind(&self) -> Kind;
    /// The paper and sections it implements.
    fn paper(&self) -> &'static str;
    /// Packets accepted per clock, in words.
    fn rate(&self) -> &'static str;
    /// Datasheet path.
    fn datasheet(&self) -> &'static str;
    /// The default config for `target`, validated, or why there is none.
    fn default_config(&self, target: Option<Target>) -> Result<BlockConfig, String>;
    /// Why the block cannot be built for `target` whatever its config, if so.
    fn unfit_for(&self, target: Target) -> Option<&'static str>;
    /// A config from JSON text (unknown fields are errors).
    fn config_from_json(&self, json: &str) -> Result<BlockConfig, String>;
    /// A config from a file (TOML, or JSON when it ends in `.json`).
    fn load_config(&self, path: &Path) -> Result<BlockConfig, String>;
    /// How the stream rule is proven.
    fn stream_proof(&self) -> StreamProof;
}

/// The [`Core`] of config type `C`.
pub struct Entry<C>(PhantomData<fn() -> C>);

impl<C> Entry<C> {
    /// The entry (a constant, so that `&Entry::<C>::NEW` is `'static`).
    pub const NEW: Self = Entry(PhantomData);
}

impl<C: CoreSpec> Core for Entry<C> {
    fn name(&self) -> &'static str {
        C::NAME
    }
    fn kind(&self) -> Kind {
        C::KIND
    }
    fn paper(&self) -> &'static str {
        C::PAPER
    }
    fn rate(&self) -> &'static str {
        C::RATE
    }
    fn datasheet(&self) -> &'static str {
        C::DATASHEET
    }
    fn default_config(&self, target: Option<Target>) -> Result<BlockConfig, String> {
        if let Some(why) = target.and_then(C::unfit_for) {
            return Err(why.into());
        }
        let c = C::default_for(target);
        c.check().map_err(|e| e.to_string())?;
        Ok(BlockConfig::new(c))
    }
    fn unfit_for(&self, target: Target) -> Option<&'static str> {
        C::unfit_for(target)
    }
    fn config_from_json(&self, json: &str) -> Result<BlockConfig, String> {
        serde_json::from_str::<C>(json).map(BlockConfig::new).map_err(|e| format!("{}: bad JSON config: {e}", C::NAME))
    }
    fn load_config(&self, path: &Path) -> Result<BlockConfig, String> {
        netmeas_sim::error::load_config::<C>(path).map(BlockConfig::new).map_err(|e| e.to_string())
    }
    fn stream_proof(&self) -> StreamProof {
        C::stream_proof()
    }
}

/// Every block of the library, in the order the tools list them.
pub static CORES: &[&dyn Core] = &[
    &Entry::<netmeas_sim::h3::H3Config>::NEW,
    &Entry::<netmeas_sim::counter_bank::CounterBankConfig>::NEW,
    &Entry::<netmeas_sim::frame::FrameParserConfig>::NEW,
    &Entry::<netmeas_sim::lda::LdaConfig>::NEW,
    &Entry::<netmeas_sim::rda::RdaConfig>::NEW,
    &Entry::<netmeas_sim::fridge::FridgeConfig>::NEW,
    &Entry::<netmeas_sim::dbm::ExpbConfig>::NEW,
    &Entry::<netmeas_sim::dbm::DbmConfig>::NEW,
    &Entry::<netmeas_sim::svbf::SvbfConfig>::NEW,
    &Entry::<netmeas_sim::board::link::LinkConfig>::NEW,
    &Entry::<netmeas_sim::board::engine::EngineConfig>::NEW,
];

/// The names of every block, for error messages and help.
pub fn names() -> Vec<&'static str> {
    CORES.iter().map(|c| c.name()).collect()
}

/// The registry entry named `name`, or an error listing every name.
pub fn core(name: &str) -> Result<&'static dyn Core, String> {
    CORES
        .iter()
        .copied()
        .find(|c| c.name() == name)
        .ok_or_else(|| format!("unknown block `{name}`: use {}", names().join(", ")))
}

//! Parameters of the RTL frame parser (`hdl/src/frame/`), the measurement
//! point's front end: raw Ethernet frames on AXI4-Stream in, one
//! [`FrameRecord`](super::FrameRecord) per frame out.

use crate::error::{ConfigError, check_one_of};
use serde::{Deserialize, Serialize};

/// AXI4-Stream data widths the parser is built for, in bits: 64 (10G and
/// 25G MACs) to 512 (100G MACs).
pub const FRAME_DATA_BITS: &[usize] = &[64, 128, 256, 512];

/// Where a record's timestamp comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimestampSource {
    /// The MAC's ingress timestamp on the frame's first beat,
    /// `s_axis_tuser[64:1]` (PTP-style 64-bit ns, as Corundum's and
    /// verilog-ethernet's MACs deliver it).
    #[default]
    Tuser,
    /// The free-running `time_ns` input, sampled at the frame's first beat.
    TimeInput,
}

/// Parameters of one frame parser.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FrameParserConfig {
    /// Width of `s_axis_tdata` in bits (one of [`FRAME_DATA_BITS`]);
    /// `s_axis_tkeep` has one bit per byte.
    pub data_bits: usize,
    /// Where the record's timestamp comes from.
    pub timestamp: TimestampSource,
    /// Top module name of the export; derived from the config when absent.
    pub name: Option<String>,
}

impl Default for FrameParserConfig {
    fn default() -> Self {
        Self { data_bits: 64, timestamp: TimestampSource::Tuser, name: None }
    }
}

impl FrameParserConfig {
    /// Checks every field; the error names the first impossible one.
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_one_of("data_bits", self.data_bits, FRAME_DATA_BITS)?;
        if let Some(n) = &self.name {
            crate::check_module_name("name", n)?;
        }
        Ok(())
    }

    /// Bytes per beat (`s_axis_tkeep` bits).
    pub fn data_bytes(&self) -> usize {
        self.data_bits / 8
    }

    /// The Verilog top module name of this config.
    pub fn top_name(&self) -> String {
        self.name.clone().unwrap_or_else(|| {
            let ts = match self.timestamp {
                TimestampSource::Tuser => "",
                TimestampSource::TimeInput => "_time",
            };
            format!("netmeas_frame_parser_{}{ts}", self.data_bits)
        })
    }
}

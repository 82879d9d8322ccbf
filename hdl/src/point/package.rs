//! The files of a packaged measurement point (`netmeas export <core>
//! --wrap axi|wishbone`, `docs/cores/point.md`): every Verilog file, the
//! interface description, a FuseSoC core, the register map as `csr.json`
//! and a C header, and the two clocks' constraints.

use super::bus::Bus;
use super::regs::WordKind;
use super::top::{PointDesign, top_ports};
use netmeas_sim::csr::Access;
use std::path::{Path, PathBuf};

impl PointDesign {
    /// The ports of the top module.
    pub fn ports(&self) -> Vec<super::top::TopPort> {
        top_ports(
            self.bus,
            self.data_bits,
            self.addr_width,
            self.tdata_bits,
            self.tuser_bits,
            self.query.as_ref(),
            self.inline,
        )
    }

    /// The interface description: the point, its core and bus, its ports,
    /// the read-out's fields.
    pub fn interface_json(&self, core: &crate::export::Exported) -> String {
        let mut v = serde_json::json!({
            "point": self.top,
            "core": { "block": core.config.block_name(), "top": core.top, "config": core.config.to_json() },
            "bus": bus_name(self.bus),
            "parameters": self.params,
            "ports": self.ports(),
            "readout": { "tdata_bits": self.tdata_bits, "fields": tdata_fields(&self.readout, "m_ro_") },
        });
        if let Some(q) = &self.query {
            v["query"] = serde_json::json!({ "tdata_bits": q.query_bits, "fields": tdata_fields(&q.query, "q_") });
            v["answer"] = serde_json::json!({ "tdata_bits": q.answer_bits, "fields": tdata_fields(&q.answer, "r_") });
        }
        serde_json::to_string_pretty(&v).expect("serializes")
    }

    /// The register map as `csr.json`: every word with its byte address,
    /// bits, access (`rw`, `wo`, `ro`, `w1c`), reset value and meaning.
    pub fn csr_json(&self) -> String {
        let words: Vec<serde_json::Value> = self
            .regs
            .words()
            .iter()
            .map(|w| {
                let access = match w.kind {
                    WordKind::Core(Access::Rw) | WordKind::Config(_) => "rw",
                    WordKind::Core(Access::Wo) | WordKind::Command(_) => "wo",
                    WordKind::Core(Access::Ro) | WordKind::Status(_) => "ro",
                    WordKind::Flags => "w1c",
                };
                serde_json::json!({
                    "name": w.name, "addr": w.addr, "bits": w.bits, "access": access, "reset": w.reset, "doc": w.doc,
                })
            })
            .collect();
        serde_json::to_string_pretty(&serde_json::json!({
            "top": self.top,
            "bus": bus_name(self.bus),
            "data_bits": 32,
            "addr_bits": self.addr_width,
            "registers": words,
            "memories": [{
                "name": "READOUT_WINDOW",
                "base": self.window.base,
                "size": self.window.size(),
                "slot_bytes": 4u32 << self.window.stride_bits,
                "tdata_words": self.window.words,
                "doc": "The frozen epoch, beat i in slot i (mod 2^16): its TDATA words, then an info word \
                        (bit 31 there, bit 30 last, low bits the index); reading a beat's last TDATA word takes it. \
                        Read in order; another slot answers SLVERR.",
            }],
        }))
        .expect("serializes")
    }

    /// The register map as a C header ([`crate::c_header`]): each word's
    /// byte address, width, mask and reset value.
    pub fn c_header(&self) -> String {
        let words = self.regs.words();
        let h = crate::c_header::c_header(
            &self.top,
            "/* Byte addresses on the register bus; every word is 32 bits wide. */\n",
            words.iter().map(|w| crate::c_header::CRegister {
                name: &w.name,
                doc: &w.doc,
                addr: u64::from(w.addr),
                bits: w.bits,
                reset: w.reset,
            }),
        );
        // The read-out window: its base, a slot's bytes, where its info word is.
        let p = crate::c_header::ident(&self.top);
        let window = format!(
            "/* READOUT_WINDOW: the frozen epoch, beat i in slot i (mod 2^16); read a slot's info word, \
             then its TDATA words (the last takes the beat). */\n\
             #define {p}_READOUT_WINDOW_BASE 0x{:x}u\n#define {p}_READOUT_WINDOW_SLOT_BYTES {}u\n\
             #define {p}_READOUT_WINDOW_TDATA_WORDS {}u\n#define {p}_READOUT_WINDOW_INFO_WORD {}u\n\n",
            self.window.base,
            4u32 << self.window.stride_bits,
            self.window.words,
            self.window.words
        );
        let end = h.rfind("#endif").expect("the header ends with #endif");
        format!("{}{window}{}", &h[..end], &h[end..])
    }

    /// The clocks for tools that read SDC: the MAC's at `mac_mhz`, the
    /// core's at `core_mhz`, unrelated (only the record FIFO's and the
    /// counters' synchronizers cross between them).
    pub fn sdc(&self, mac_mhz: f64, core_mhz: f64) -> String {
        format!(
            "# {top}: clock constraints (netmeas export --wrap).\n\
             create_clock -name s_axis_aclk -period {mac:.4} [get_ports s_axis_aclk]\n\
             create_clock -name aclk -period {core:.4} [get_ports aclk]\n\
             # The domains cross only through Gray codes into two-flop synchronizers.\n\
             set_clock_groups -asynchronous -group [get_clocks s_axis_aclk] -group [get_clocks aclk]\n",
            top = self.top,
            mac = 1e3 / mac_mhz,
            core = 1e3 / core_mhz
        )
    }

    /// A FuseSoC (CAPI2) core for every Verilog file ([`crate::fusesoc`]):
    /// targets `default`, `lint` (Verilator `-Wall`) and `synth` (Yosys for
    /// ECP5, the `NETMEAS_ECP5` define set).
    pub fn fusesoc_core(&self, summary: &str) -> String {
        crate::fusesoc::CoreFile {
            name: format!("netmeas:points:{}:{}", self.top, env!("CARGO_PKG_VERSION")),
            description: format!("Measurement point on {}: {summary}", bus_name(self.bus)),
            files: self.files.iter().rev().map(|(n, _)| n.clone()).collect(),
            top: self.top.clone(),
            ecp5_doc: "Build the core's memories as ECP5 DP16KD block RAMs".into(),
            ice40: false,
            testbench: None,
        }
        .yaml()
    }

    /// Writes every file of the point into `dir`, all of them or none:
    /// the Verilog files, `<top>.interface.json`, `<top>.core`,
    /// `<top>.csr.json`, `<top>.h` and `<top>.sdc`.
    pub fn write(
        &self,
        dir: &Path,
        core: &crate::export::Exported,
        mac_mhz: f64,
        core_mhz: f64,
    ) -> Result<Vec<PathBuf>, String> {
        for (what, mhz) in [("MAC", mac_mhz), ("core", core_mhz)] {
            if !(mhz.is_finite() && mhz > 0.0 && mhz <= 2000.0) {
                return Err(format!("{what} clock frequency {mhz} MHz is out of range (0, 2000]"));
            }
        }
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let top = &self.top;
        let mut set: Vec<(PathBuf, String)> = self.files.iter().map(|(n, v)| (dir.join(n), v.clone())).collect();
        set.extend([
            (dir.join(format!("{top}.interface.json")), self.interface_json(core)),
            (dir.join(format!("{top}.core")), self.fusesoc_core(core.config.summary())),
            (dir.join(format!("{top}.csr.json")), self.csr_json()),
            (dir.join(format!("{top}.h")), self.c_header()),
            (dir.join(format!("{top}.sdc")), self.sdc(mac_mhz, core_mhz)),
        ]);
        Ok(netmeas_sim::files::write_all_or_none(&set)?.into_iter().map(|w| w.path).collect())
    }
}

/// A stream's `TDATA` fields from bit 0, named without the core port's `prefix`.
fn tdata_fields(fields: &[(String, u32)], prefix: &str) -> Vec<serde_json::Value> {
    let mut at = 0;
    fields
        .iter()
        .map(|(name, bits)| {
            let v = serde_json::json!({ "field": name.trim_start_matches(prefix), "lsb": at, "bits": bits });
            at += bits;
            v
        })
        .collect()
}

fn bus_name(b: Bus) -> &'static str {
    match b {
        Bus::Axil => "axi4-lite",
        Bus::Wishbone => "wishbone-b4-pipelined",
    }
}

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
        top_ports(self.bus, self.data_bits, self.regs.addr_width(), self.tdata_bits)
    }

    /// The interface description: the point, its core and bus, its ports,
    /// the read-out's fields.
    pub fn interface_json(&self, core: &crate::export::Exported) -> String {
        let mut at = 0;
        let readout: Vec<serde_json::Value> = self
            .readout
            .iter()
            .map(|(name, bits)| {
                let v = serde_json::json!({ "field": name.trim_start_matches("m_ro_"), "lsb": at, "bits": bits });
                at += bits;
                v
            })
            .collect();
        serde_json::to_string_pretty(&serde_json::json!({
            "point": self.top,
            "core": { "block": core.config.block_name(), "top": core.top, "config": core.config.to_json() },
            "bus": bus_name(self.bus),
            "ports": self.ports(),
            "readout": { "tdata_bits": self.tdata_bits, "fields": readout },
        }))
        .expect("serializes")
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
                    WordKind::Core(Access::Rw) => "rw",
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
            "addr_bits": self.regs.addr_width(),
            "registers": words,
        }))
        .expect("serializes")
    }

    /// The register map as C `#define`s of byte addresses.
    pub fn c_header(&self) -> String {
        let up = self.top.to_uppercase();
        let mut h =
            format!("/* {}: register map (netmeas export --wrap). */\n#ifndef {up}_H\n#define {up}_H\n\n", self.top);
        for w in self.regs.words() {
            let name: String = w.name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
            h.push_str(&format!("#define {up}_{name} 0x{:04x}u\n", w.addr));
        }
        h.push_str(&format!("\n#endif /* {up}_H */\n"));
        h
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

    /// A FuseSoC (CAPI2) core for every Verilog file: targets `default`,
    /// `lint` (Verilator `-Wall`) and `synth` (Yosys for ECP5, the
    /// `NETMEAS_ECP5` define set).
    pub fn fusesoc_core(&self, summary: &str) -> String {
        use serde_yaml_ng::{Mapping, Value};
        fn map<const N: usize>(entries: [(&str, Value); N]) -> Value {
            Value::Mapping(entries.into_iter().map(|(k, v)| (Value::from(k), v)).collect::<Mapping>())
        }
        let files = Value::Sequence(self.files.iter().rev().map(|(n, _)| Value::from(n.as_str())).collect());
        let top = self.top.as_str();
        let target = |extra: Vec<(&str, Value)>| {
            let mut m = map([("filesets", Value::Sequence(vec!["rtl".into()])), ("toplevel", Value::from(top))]);
            if let Value::Mapping(m) = &mut m {
                m.extend(extra.into_iter().map(|(k, v)| (Value::from(k), v)));
            }
            m
        };
        let doc = map([
            ("name", Value::from(format!("netmeas:points:{top}:{}", env!("CARGO_PKG_VERSION")))),
            ("description", Value::from(format!("Measurement point on {}: {summary}", bus_name(self.bus)))),
            ("filesets", map([("rtl", map([("files", files), ("file_type", Value::from("verilogSource"))]))])),
            (
                "parameters",
                map([(
                    "NETMEAS_ECP5",
                    map([
                        ("datatype", Value::from("bool")),
                        ("paramtype", Value::from("vlogdefine")),
                        ("description", Value::from("Build the core's memories as ECP5 DP16KD block RAMs")),
                    ]),
                )]),
            ),
            (
                "targets",
                map([
                    ("default", target(vec![])),
                    (
                        "lint",
                        target(vec![
                            ("default_tool", Value::from("verilator")),
                            (
                                "tools",
                                map([(
                                    "verilator",
                                    map([
                                        ("mode", Value::from("lint-only")),
                                        ("verilator_options", Value::Sequence(vec!["-Wall".into()])),
                                    ]),
                                )]),
                            ),
                        ]),
                    ),
                    (
                        "synth",
                        target(vec![
                            ("default_tool", Value::from("yosys")),
                            ("parameters", Value::Sequence(vec!["NETMEAS_ECP5=true".into()])),
                            ("tools", map([("yosys", map([("arch", Value::from("ecp5"))]))])),
                        ]),
                    ),
                ]),
            ),
        ]);
        format!("CAPI=2:\n{}", serde_yaml_ng::to_string(&doc).expect("a YAML mapping serializes"))
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

fn bus_name(b: Bus) -> &'static str {
    match b {
        Bus::Axil => "axi4-lite",
        Bus::Wishbone => "wishbone-b4-pipelined",
    }
}

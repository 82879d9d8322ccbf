//! FuseSoC (CAPI2) core files of the exports, written with a YAML library:
//! one builder for a block's export (`netmeas export`) and a packaged
//! measurement point (`netmeas export --wrap`). Every core file has the
//! `NETMEAS_ECP5` define as a parameter and the targets `default`, `lint`
//! (Verilator `-Wall`) and `synth` (Yosys for ECP5, the define set); a
//! block adds `synth_ice40`, and with a shipped testbench `sim` (Icarus
//! Verilog by default, Verilator `--binary` with `--tool verilator`).

use serde_yaml_ng::{Mapping, Value};

/// A shipped testbench in the core file: its top module, its Verilog file
/// and the data file it reads (copied into the simulator's work folder).
#[derive(Clone, Debug)]
pub struct TestbenchFiles {
    /// The testbench's top module.
    pub top: String,
    /// Its Verilog file.
    pub verilog: String,
    /// The file it reads at run time.
    pub data: String,
}

/// What a core file describes.
#[derive(Clone, Debug)]
pub struct CoreFile {
    /// The VLNV name (`netmeas:<library>:<top>:<version>`).
    pub name: String,
    /// One line on what it is.
    pub description: String,
    /// The RTL files, each module's file before the files that use it.
    pub files: Vec<String>,
    /// The top module.
    pub top: String,
    /// What setting `NETMEAS_ECP5` does.
    pub ecp5_doc: String,
    /// Add a `synth_ice40` target.
    pub ice40: bool,
    /// A shipped testbench and its `sim` target.
    pub testbench: Option<TestbenchFiles>,
}

fn map<const N: usize>(entries: [(&str, Value); N]) -> Value {
    Value::Mapping(entries.into_iter().map(|(k, v)| (Value::from(k), v)).collect::<Mapping>())
}

fn list<S: AsRef<str>>(items: &[S]) -> Value {
    Value::Sequence(items.iter().map(|i| Value::from(i.as_ref())).collect())
}

fn insert(m: &mut Value, key: &str, value: Value) {
    if let Value::Mapping(m) = m {
        m.insert(Value::from(key), value);
    }
}

impl CoreFile {
    /// The `.core` file's text.
    pub fn yaml(&self) -> String {
        let target = |extra: Vec<(&str, Value)>| {
            let mut m = map([("filesets", list(&["rtl"])), ("toplevel", Value::from(self.top.as_str()))]);
            for (k, v) in extra {
                insert(&mut m, k, v);
            }
            m
        };
        let yosys = |arch: &str| map([("yosys", map([("arch", Value::from(arch))]))]);
        let mut filesets =
            map([("rtl", map([("files", list(&self.files)), ("file_type", Value::from("verilogSource"))]))]);
        let mut targets = map([
            ("default", target(vec![])),
            (
                "lint",
                target(vec![
                    ("default_tool", Value::from("verilator")),
                    (
                        "tools",
                        map([(
                            "verilator",
                            map([("mode", Value::from("lint-only")), ("verilator_options", list(&["-Wall"]))]),
                        )]),
                    ),
                ]),
            ),
            (
                "synth",
                target(vec![
                    ("default_tool", Value::from("yosys")),
                    ("parameters", list(&["NETMEAS_ECP5=true"])),
                    ("tools", yosys("ecp5")),
                ]),
            ),
        ]);
        if self.ice40 {
            insert(
                &mut targets,
                "synth_ice40",
                target(vec![("default_tool", Value::from("yosys")), ("tools", yosys("ice40"))]),
            );
        }
        if let Some(tb) = &self.testbench {
            let one = |name: &str, attrs: Value| {
                let mut m = Mapping::new();
                m.insert(Value::from(name), attrs);
                Value::Mapping(m)
            };
            let files = Value::Sequence(vec![
                one(&tb.verilog, map([("file_type", Value::from("verilogSource"))])),
                one(&tb.data, map([("file_type", Value::from("user")), ("copyto", Value::from(tb.data.as_str()))])),
            ]);
            insert(&mut filesets, "tb", map([("files", files)]));
            insert(
                &mut targets,
                "sim",
                map([
                    ("filesets", list(&["rtl", "tb"])),
                    ("toplevel", Value::from(tb.top.as_str())),
                    ("default_tool", Value::from("icarus")),
                    (
                        "tools",
                        map([
                            ("icarus", map([("iverilog_options", list(&["-g2005"]))])),
                            (
                                "verilator",
                                map([("mode", Value::from("binary")), ("verilator_options", list(&["-j", "0"]))]),
                            ),
                        ]),
                    ),
                ]),
            );
        }
        let doc = map([
            ("name", Value::from(self.name.as_str())),
            ("description", Value::from(self.description.as_str())),
            ("filesets", filesets),
            (
                "parameters",
                map([(
                    "NETMEAS_ECP5",
                    map([
                        ("datatype", Value::from("bool")),
                        ("paramtype", Value::from("vlogdefine")),
                        ("description", Value::from(self.ecp5_doc.as_str())),
                    ]),
                )]),
            ),
            ("targets", targets),
        ]);
        format!("CAPI=2:\n{}", serde_yaml_ng::to_string(&doc).expect("a YAML mapping serializes"))
    }
}

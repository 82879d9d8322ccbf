//! The self-checking testbench shipped with an export: plain Verilog-2005
//! that runs in any simulator (Icarus Verilog, Verilator `--binary`, the
//! commercial ones) without this project's Rust harness.
//!
//! Each block's golden per-clock model (the same one the Verilator
//! co-simulation checks the RTL against, cycle for cycle) draws a
//! directed-random stimulus and answers it; [`Vectors`] holds both, port by
//! port, and [`Testbench::new`] turns them into
//!
//! - `<top>_tb.hex`, one line per clock for `$readmemh`: a tag byte (`A5`),
//!   the cycle number, every input port, every output port's expected value
//!   and the mask of the bits that are compared (a read-out row's fields only
//!   while it is valid, as in the co-simulation);
//! - `<top>_tb.v`, which checks that the file fits the module (tag, cycle
//!   numbers, length) before it starts, drives the module with the inputs
//!   after each falling edge, compares every output before the rising edge,
//!   stops at the first mismatch with one `FAIL` line naming the cycle, the
//!   port, the expected and the seen value, and otherwise ends with one
//!   `PASS` line. `+vectors=<file>` reads another vector file, `+wave=<file>`
//!   dumps a VCD.

use crate::export::{Dir, Exported, Port};
use num_bigint::BigUint;
use std::fmt::Write as _;

/// One clock of a vector file: every input port's value and every output
/// port's expected value (`None`: not compared this clock), by port name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VectorCycle {
    inputs: Vec<(&'static str, BigUint)>,
    outputs: Vec<(&'static str, Option<BigUint>)>,
}

impl VectorCycle {
    /// Sets input port `name` to `v`.
    pub fn input(&mut self, name: &'static str, v: impl Into<u128>) -> &mut Self {
        self.inputs.push((name, BigUint::from(v.into())));
        self
    }

    /// Sets input port `name`, of any width, to the little-endian `bytes`
    /// (byte 0 in bits 7..0, as an AXI4-Stream lane 0).
    pub fn input_bytes(&mut self, name: &'static str, bytes: &[u8]) -> &mut Self {
        self.inputs.push((name, BigUint::from_bytes_le(bytes)));
        self
    }

    /// Expects `v` on output port `name`.
    pub fn output(&mut self, name: &'static str, v: impl Into<u128>) -> &mut Self {
        self.outputs.push((name, Some(BigUint::from(v.into()))));
        self
    }

    /// Expects `v` on output port `name` when `care` holds (a field that is
    /// meaningful only with its valid), otherwise leaves it unchecked.
    pub fn output_when(&mut self, name: &'static str, care: bool, v: impl Into<u128>) -> &mut Self {
        self.outputs.push((name, care.then(|| BigUint::from(v.into()))));
        self
    }
}

/// A block's vectors: the clocks, and how often the stimulus reached each of
/// the situations the testbench is meant to cover (reported with it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Vectors {
    /// One entry per clock, from power-up.
    pub cycles: Vec<VectorCycle>,
    /// (situation, how many times), e.g. ("flips taken", 3).
    pub coverage: Vec<(&'static str, u64)>,
}

/// The byte that starts every line of a vector file: a file of another
/// width does not put it in the right place.
pub const VECTOR_TAG: u8 = 0xA5;

/// A shipped testbench for one export.
#[derive(Clone, Debug)]
pub struct Testbench {
    /// Testbench module name (`<top>_tb`, also the file stem).
    pub name: String,
    /// The testbench's Verilog.
    pub verilog: String,
    /// The vector file (`$readmemh`).
    pub vectors: String,
    /// Clocks it runs.
    pub cycles: usize,
    /// Bits per vector line.
    pub line_bits: usize,
    /// What the stimulus covered (see [`Vectors::coverage`]).
    pub coverage: Vec<(&'static str, u64)>,
}

/// The ports a vector line carries (every port but `clock`), in declaration order.
fn vector_ports(e: &Exported, dir: Dir) -> Vec<&Port> {
    e.ports.iter().filter(|p| p.dir == dir && p.name != "clock").collect()
}

/// The value of each of `ports` in `named` (each named exactly once, each
/// value within its port's width), or what is wrong.
fn by_port<'a, T>(
    ports: &[&Port],
    named: &'a [(&'static str, T)],
    cycle: usize,
    value: impl Fn(&'a T) -> Option<&'a BigUint>,
) -> Result<Vec<&'a T>, String> {
    if let Some((n, _)) = named.iter().find(|(n, _)| !ports.iter().any(|p| p.name == *n)) {
        return Err(format!("cycle {cycle}: the vectors name `{n}`, which is not a port"));
    }
    ports
        .iter()
        .map(|p| {
            let mut hits = named.iter().filter(|(n, _)| *n == p.name);
            let (Some((_, v)), None) = (hits.next(), hits.next()) else {
                return Err(format!("cycle {cycle}: port `{}` must be given exactly once", p.name));
            };
            if let Some(x) = value(v)
                && x.bits() > p.bits as u64
            {
                return Err(format!("cycle {cycle}: {x:#x} does not fit the {} bits of `{}`", p.bits, p.name));
            }
            Ok(v)
        })
        .collect()
}

impl Testbench {
    /// The testbench of `e` that runs `v`; an error if the vectors do not
    /// name every port but `clock` exactly once per clock, within its width.
    pub fn new(e: &Exported, v: &Vectors) -> Result<Self, String> {
        let ins = vector_ports(e, Dir::In);
        let outs = vector_ports(e, Dir::Out);
        let in_bits: usize = ins.iter().map(|p| p.bits).sum();
        let out_bits: usize = outs.iter().map(|p| p.bits).sum();
        let payload = 32 + in_bits + 2 * out_bits;
        let tag_bits = 8 + (4 - (8 + payload) % 4) % 4;
        let line_bits = tag_bits + payload;
        let digits = line_bits / 4;
        let mut hex = String::new();
        writeln!(
            hex,
            "// {top}_tb.hex: {n} clocks of {top} ({line_bits} bits a line: tag A5, cycle, inputs {ins}, \
             expected outputs then their compare masks {outs}); written by netmeas from the golden model",
            top = e.top,
            n = v.cycles.len(),
            ins = ins.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(" "),
            outs = outs.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(" "),
        )
        .unwrap();
        for (k, c) in v.cycles.iter().enumerate() {
            let iv = by_port(&ins, &c.inputs, k, Some)?;
            let ov = by_port(&outs, &c.outputs, k, Option::as_ref)?;
            let mut line = BigUint::from(VECTOR_TAG) << (tag_bits - 8);
            line = (line << 32u32) | BigUint::from(k as u64 & 0xFFFF_FFFF);
            for (p, x) in ins.iter().zip(&iv) {
                line = (line << p.bits) | *x;
            }
            for (p, x) in outs.iter().zip(&ov) {
                line = (line << p.bits) | (*x).clone().unwrap_or_default();
            }
            for (p, x) in outs.iter().zip(&ov) {
                let mask = if x.is_some() { (BigUint::from(1u8) << p.bits) - 1u8 } else { BigUint::from(0u8) };
                line = (line << p.bits) | mask;
            }
            writeln!(hex, "{:0>digits$}", line.to_str_radix(16)).unwrap();
        }
        let name = format!("{}_tb", e.top);
        let verilog = testbench_verilog(e, &name, &ins, &outs, v.cycles.len(), tag_bits, line_bits);
        Ok(Self { name, verilog, vectors: hex, cycles: v.cycles.len(), line_bits, coverage: v.coverage.clone() })
    }

    /// The vector file's name (`<top>_tb.hex`), which the testbench reads
    /// from its working directory unless `+vectors=` names another.
    pub fn vectors_file(&self) -> String {
        format!("{}.hex", self.name)
    }

    /// The coverage as one line, e.g. `packets 3012, flips taken 3`.
    pub fn coverage_line(&self) -> String {
        self.coverage.iter().map(|(what, n)| format!("{what} {n}")).collect::<Vec<_>>().join(", ")
    }
}

/// The testbench module: see the module documentation.
fn testbench_verilog(
    e: &Exported,
    name: &str,
    ins: &[&Port],
    outs: &[&Port],
    cycles: usize,
    tag_bits: usize,
    line_bits: usize,
) -> String {
    let top = &e.top;
    let mut s = String::new();
    let w = |s: &mut String, l: &str| {
        s.push_str(l);
        s.push('\n');
    };
    w(&mut s, &format!("// {name}: self-checking testbench of {top} (Verilog-2005), generated by netmeas."));
    w(&mut s, "//");
    w(&mut s, &format!("// Reads {name}.hex (or +vectors=<file>): per clock, the inputs and the outputs the golden"));
    w(&mut s, "// per-clock model gives for them. Drives the inputs after each falling edge, compares every");
    w(&mut s, "// output (the bits the mask selects) before the rising edge, stops at the first mismatch with");
    w(&mut s, "// a FAIL line naming the cycle, port, expected and seen value, and ends with one PASS or FAIL line.");
    w(&mut s, "// +wave=<file.vcd> dumps the waveform. No `timescale: like the module, the delays are unitless.");
    w(&mut s, "//");
    w(&mut s, &format!("// Under Icarus:     iverilog -g2005 -o {name}.vvp {name}.v {top}.v && vvp -n {name}.vvp"));
    w(
        &mut s,
        &format!("// Under Verilator:  verilator --binary --top-module {name} {name}.v {top}.v && obj_dir/V{name}"),
    );
    w(&mut s, &format!("module {name};"));
    w(&mut s, &format!("    localparam integer CYCLES = {cycles};"));
    w(&mut s, &format!("    localparam integer W = {line_bits};"));
    w(&mut s, &format!("    localparam [7:0] TAG = 8'h{VECTOR_TAG:02X};"));
    w(&mut s, "");
    w(&mut s, "    // The module under test.");
    w(&mut s, "    reg clock = 1'b0;");
    for p in ins {
        w(&mut s, &format!("    reg [{}:0] {} = {}'d0;", p.bits - 1, p.name, p.bits));
    }
    for p in outs {
        w(&mut s, &format!("    wire [{}:0] {};", p.bits - 1, p.name));
    }
    let conns: Vec<String> = e.ports.iter().map(|p| format!(".{n}({n})", n = p.name)).collect();
    w(&mut s, &format!("    {top} dut (\n        {}\n    );", conns.join(",\n        ")));
    w(&mut s, "");
    w(&mut s, "    // The vectors, and a line buffer as long as a vector line and its newline (longer lines");
    w(&mut s, "    // come in pieces: only the first piece of a line counts).");
    w(&mut s, "    reg [W-1:0] vec [0:CYCLES-1];");
    w(&mut s, "    reg [W-1:0] v;");
    w(&mut s, &format!("    reg [8*{}-1:0] text;", line_bits / 4 + 2));
    w(&mut s, "    reg [8*512-1:0] vectors;");
    w(&mut s, "    reg [8*512-1:0] wave;");
    w(&mut s, "    integer i;");
    w(&mut s, "    integer cycle;");
    w(&mut s, "    integer fd;");
    w(&mut s, "    integer lines;");
    w(&mut s, "    integer got;");
    w(&mut s, "    reg line_start;");
    w(&mut s, "");
    w(&mut s, "    task fail_exit;");
    w(&mut s, "        begin");
    w(&mut s, "`ifdef __ICARUS__");
    w(&mut s, "            $finish_and_return(1);");
    w(&mut s, "`else");
    w(&mut s, "            $stop;");
    w(&mut s, "`endif");
    w(&mut s, "        end");
    w(&mut s, "    endtask");
    w(&mut s, "");
    w(&mut s, "    initial begin");
    w(&mut s, &format!("        if (!$value$plusargs(\"vectors=%s\", vectors)) vectors = \"{name}.hex\";"));
    w(&mut s, "        // The file must hold exactly CYCLES vector lines (comments and blank lines aside).");
    w(&mut s, "        fd = $fopen(vectors, \"r\");");
    w(&mut s, "        if (fd == 0) begin");
    w(&mut s, &format!("            $display(\"FAIL: {name}: cannot open the vector file %0s\", vectors);"));
    w(&mut s, "            fail_exit;");
    w(&mut s, "        end");
    w(&mut s, "        lines = 0;");
    w(&mut s, "        line_start = 1;");
    w(&mut s, "        while (!$feof(fd)) begin");
    w(&mut s, "            got = $fgets(text, fd);");
    w(&mut s, "            if (got > 0) begin");
    w(
        &mut s,
        "                if (line_start && text[8*got-1 -: 8] != \"/\" && text[8*got-1 -: 8] != 8'h0A && text[8*got-1 -: 8] != 8'h0D)",
    );
    w(&mut s, "                    lines = lines + 1;");
    w(&mut s, "                line_start = text[7:0] == 8'h0A;");
    w(&mut s, "            end");
    w(&mut s, "        end");
    w(&mut s, "        $fclose(fd);");
    w(&mut s, "        if (lines != CYCLES) begin");
    w(
        &mut s,
        &format!(
            "            $display(\"FAIL: {name}: vector file %0s does not fit {top}: %0d lines of vectors, not {cycles} (too short, or more than {cycles})\", vectors, lines);"
        ),
    );
    w(&mut s, "            fail_exit;");
    w(&mut s, "        end");
    w(&mut s, "        $readmemh(vectors, vec);");
    w(&mut s, "        for (i = 0; i < CYCLES; i = i + 1) begin");
    w(
        &mut s,
        &format!(
            "            if (vec[i][W-1:W-8] !== TAG || vec[i][W-{}:W-{}] !== i) begin",
            tag_bits + 1,
            tag_bits + 32
        ),
    );
    w(
        &mut s,
        &format!(
            "                $display(\"FAIL: {name}: vector file %0s does not fit {top}: line %0d is not cycle %0d of %0d-bit vectors (wrong width)\", vectors, i + 1, i, W);"
        ),
    );
    w(&mut s, "                fail_exit;");
    w(&mut s, "            end");
    w(&mut s, "        end");
    w(&mut s, "        if ($value$plusargs(\"wave=%s\", wave)) begin");
    w(&mut s, "            $dumpfile(wave);");
    w(&mut s, &format!("            $dumpvars(0, {name});"));
    w(&mut s, "        end");
    w(&mut s, "        for (cycle = 0; cycle < CYCLES; cycle = cycle + 1) begin");
    w(&mut s, "            v = vec[cycle];");
    let mut hi = line_bits - tag_bits - 32;
    for p in ins {
        w(&mut s, &format!("            {} = v[{}:{}];", p.name, hi - 1, hi - p.bits));
        hi -= p.bits;
    }
    w(&mut s, "            #1;");
    let out_bits: usize = outs.iter().map(|p| p.bits).sum();
    for p in outs {
        let (ehi, mhi) = (hi, hi - out_bits);
        let (exp, mask) = (format!("v[{}:{}]", ehi - 1, ehi - p.bits), format!("v[{}:{}]", mhi - 1, mhi - p.bits));
        w(&mut s, &format!("            if ((({} ^ {exp}) & {mask}) !== {}'d0) begin", p.name, p.bits));
        w(
            &mut s,
            &format!(
                "                $display(\"FAIL: {name}: cycle %0d: port {n}: expected %h, seen %h (compared bits %h)\", cycle, {exp}, {n}, {mask});",
                n = p.name
            ),
        );
        w(&mut s, "                fail_exit;");
        w(&mut s, "            end");
        hi -= p.bits;
    }
    w(&mut s, "            #4 clock = 1'b1;");
    w(&mut s, "            #5 clock = 1'b0;");
    w(&mut s, "        end");
    w(&mut s, &format!("        $display(\"PASS: {name}: %0d cycles, every output as the golden model's\", CYCLES);"));
    w(&mut s, "        $finish;");
    w(&mut s, "    end");
    w(&mut s, "endmodule");
    s
}

/// The reset plan every block's vectors follow: clock 0 is the power-up
/// clock (all inputs zero), clock 1 resets the block (the hardware clear
/// follows), and a second reset lands under traffic three fifths in.
pub fn reset_at(cycle: usize, cycles: usize) -> bool {
    cycle == 1 || cycle == cycles * 3 / 5
}

/// Counts of the situations a block's vectors reached, in the order first
/// counted (becomes [`Vectors::coverage`]).
#[derive(Clone, Debug, Default)]
pub struct Tally(Vec<(&'static str, u64)>);

impl Tally {
    /// Counts one `what` when `hit` holds (and lists `what` either way).
    pub fn count(&mut self, what: &'static str, hit: bool) {
        match self.0.iter_mut().find(|(w, _)| *w == what) {
            Some((_, n)) => *n += hit as u64,
            None => self.0.push((what, hit as u64)),
        }
    }

    /// How many `what` so far.
    pub fn get(&self, what: &str) -> u64 {
        self.0.iter().find(|(w, _)| *w == what).map_or(0, |(_, n)| *n)
    }

    /// The vectors `cycles` with these counts.
    pub fn into_vectors(self, cycles: Vec<VectorCycle>) -> Vectors {
        Vectors { cycles, coverage: self.0 }
    }
}

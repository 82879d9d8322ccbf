//! Simple dual-port block RAM with a three-clock read (an address register
//! in front of each depth slice, the RAM's own read register, a register
//! directly behind each slice, then the slice select), optionally lengthened
//! by pipeline registers behind each slice ([`BlockRam::with_stages`]), and a registered write
//! port (address, data and one enable per slice enter registers first), so
//! every RAM input comes straight from a register placed beside its slice.
//!
//! A memory deeper than one physical block is a column of blocks whose
//! outputs must be selected by the read address. Left to synthesis, that
//! select sits between the block-RAM outputs (slow clock-to-out: 4.3 ns on an
//! ECP5 DP16KD) and the first fabric register, and the register lands far from
//! most of the blocks. Here the memory is cut into slices of [`SLICE_ROWS`]
//! rows (the deepest DP16KD mode that is 36 bits wide, ECP5 sysMEM guide
//! TN1264), each slice's output is registered right behind it, and the select
//! over the slices comes after those registers, on a path that starts at a
//! fabric register. The select is an AND-OR under a one-hot register of the
//! read's slice (no mux tree behind a binary index), which synthesis merges
//! with whatever AND-OR select the user has behind it. The registers behind
//! the slices stay plain: clearing the unaddressed ones by a synchronous
//! reset instead (the select then a bare OR) cost 8 % of the counter bank's
//! Fmax over three placements, on the path from a block into its register.
//! On the read side, each slice has its own address register, loaded only
//! when the address falls in that slice (so synthesis keeps one per slice,
//! next to its blocks); on the write side, the slice decode and the user's
//! write-port muxes sit before the write registers.
//! No logic sits between a register and RAMs spread over the die.
//!
//! The register behind a slice is pulled by the placer toward the logic it
//! feeds, which for a wide, deep memory can lie far from the blocks, and the
//! block's clock-to-out (about 4.1 ns on an ECP5 DP16KD without its output
//! register) plus that route then sets the clock. Two measures:
//! - On ECP5 the register behind each slice is the blocks' own output
//!   register (DP16KD `REGMODE = "OUTREG"`, ECP5 sysMEM guide TN1264), so the
//!   path from the RAM array to that register never leaves the block. Yosys
//!   does not infer it, so with `NETMEAS_ECP5` defined (as the project's
//!   synthesis flow does) each slice of at least [`ECP5_BLOCK_MIN_ROWS`] rows
//!   is written as DP16KD primitives in 512 × 36 pseudo-dual-port mode; the
//!   same Verilog without the define infers the same memory and registers,
//!   which is what Verilator and the other targets see. The primitive has
//!   no simulation model in the open toolchain: the synthesis tests check the
//!   mapping, the co-simulation the behaviour of the inferred branch.
//! - Extra pipeline stages behind each slice (`with_stages`) give the first
//!   fabric register a single load, the next register, so it can sit nearer
//!   its block; each adds a clock of read latency.
//!
//! Written as custom Verilog so that synthesis maps each slice to block RAM
//! without emulation logic:
//! - no `initial` on the memory or the read registers (an `initial` on a read
//!   register blocks ECP5 inference, yosys#2486; ASICs have none anyway: the
//!   users of this RAM clear it with a hardware sequence);
//! - `(* no_rw_check *)`: the value read when the same address is written in
//!   the same cycle is left undefined. Every user of this RAM either never
//!   reads such a collision or overrides it by forwarding, so Yosys need not
//!   build read-old-data emulation (≈ 150 FFs per 1024×72 bank on ECP5).
//!
//! In simulation a collision returns the old data (as Verilator does).

use super::index_bits::index_bits;
use super::ram_ports::{ram_port_timing, unused_high_address};
use rust_hdl::prelude::*;

/// Rows of one depth slice: a DP16KD holds 512 × 36 bits.
pub const SLICE_ROWS: usize = 512;

/// Clocks from a read address to its data on `read_data`, without extra stages.
pub const READ_LATENCY: usize = 3;

/// Most extra pipeline stages behind each slice.
pub const MAX_EXTRA_STAGES: usize = 2;

/// Slices of fewer rows are left to inference on every target: Yosys maps
/// them to distributed RAM (an ECP5 TRELLIS_DPR16X4 holds 16 rows), not to a
/// block.
pub const ECP5_BLOCK_MIN_ROWS: usize = 64;

/// `depth` (≤ 2^A, 2^A by default) words of `W` bits: a write port (address,
/// data, enable) whose write lands at the edge after the one that samples it,
/// and a read port whose data appears three clocks (plus the extra stages)
/// after its address. A read
/// address sampled at edge E reads the RAM at E + 1 and sees the writes
/// sampled at edges before E; a write to the same row sampled at E itself
/// lands at E + 1 and makes the read's data undefined. Addresses at or above
/// `depth` must not be used.
#[derive(LogicBlock)]
pub struct BlockRam<const W: usize, const A: usize> {
    /// The one clock of both ports.
    pub clock: Signal<In, Clock>,
    /// Read address, sampled at the rising edge.
    pub read_address: Signal<In, Bits<A>>,
    /// Word at the read address of three edges ago, plus the extra stages (the select of registered slice outputs).
    pub read_data: Signal<Out, Bits<W>>,
    /// The same word as `read_data`. With [`BlockRam::with_second_read_select`], from a slice
    /// select of its own (its own kept copy of the last one-hot register); otherwise `read_data` itself.
    pub read_data_copy: Signal<Out, Bits<W>>,
    /// Write address.
    pub write_address: Signal<In, Bits<A>>,
    /// Word to write.
    pub write_data: Signal<In, Bits<W>>,
    /// Write at this edge.
    pub write_enable: Signal<In, Bit>,
    _mem: Vec<Bits<W>>,
    /// Simulation state: the read address sampled at the previous edge (the address registers).
    _read_addr: usize,
    /// Simulation state: the word read at the previous edge (the RAM's read register),
    /// then the extra stages behind it, oldest last.
    _read_regs: Vec<Bits<W>>,
    /// Simulation state: the write sampled at the previous edge (the write registers).
    _write_reg: Option<(usize, Bits<W>)>,
    /// One read-address register in front of every slice, loaded every clock
    /// ([`BlockRam::with_one_read_address_register`]), instead of one per slice.
    _one_read_address: bool,
    /// A second slice select behind the slices for `read_data_copy` ([`BlockRam::with_second_read_select`]).
    _second_select: bool,
}

impl<const W: usize, const A: usize> Default for BlockRam<W, A> {
    fn default() -> Self {
        Self::with_depth(1 << A)
    }
}

impl<const W: usize, const A: usize> BlockRam<W, A> {
    /// A RAM of `depth` words (1..=2^A): a bank of 2500 rows needs no 4096-word memory.
    pub fn with_depth(depth: usize) -> Self {
        Self::with_stages(depth, 0)
    }

    /// A RAM of `depth` words whose slices are followed by `extra` more
    /// pipeline registers (0..=[`MAX_EXTRA_STAGES`]): a read takes `3 + extra` clocks.
    pub fn with_stages(depth: usize, extra: usize) -> Self {
        assert!(depth >= 1 && depth <= 1 << A, "depth must be in 1..=2^A");
        assert!(extra <= MAX_EXTRA_STAGES, "at most {MAX_EXTRA_STAGES} extra stages");
        Self {
            clock: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            read_data_copy: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            write_enable: Default::default(),
            _mem: vec![Bits::default(); depth],
            _read_addr: 0,
            _read_regs: vec![Bits::default(); 1 + extra],
            _write_reg: None,
            _one_read_address: false,
            _second_select: false,
        }
    }

    /// The same RAM with a single read-address register in front of all its
    /// slices, loaded every clock, instead of one per slice loaded only when
    /// the address falls in that slice. The per-slice registers sit beside
    /// their blocks, but their load enable decodes the incoming address and
    /// fans out to every slice, so for an address that leaves deep logic (a
    /// read pointer's next value, a query row computed a clock before) that
    /// enable net sets the clock. With one register, that logic ends at a
    /// single register and only a plain route (no logic) runs from it to the
    /// blocks. Same cycle behaviour.
    pub fn with_one_read_address_register(mut self) -> Self {
        self._one_read_address = true;
        self
    }

    /// The same RAM with a second select over its slices for `read_data_copy`,
    /// under its own copy of the last one-hot slice register (kept apart in
    /// synthesis). With one select, a memory read by two consumers (a bank's
    /// forwarding select and its frozen-copy query) shares the AND-OR over the
    /// slices between them: synthesis builds it once, and the shared gate sits
    /// between the two consumers, on both their paths. With two, each consumer
    /// merges its own select into its own logic. Same cycle behaviour.
    pub fn with_second_read_select(mut self) -> Self {
        self._second_select = true;
        self
    }
}

impl<const W: usize, const A: usize> Logic for BlockRam<W, A> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            // Beyond the depth, reads are undefined (0 here) and writes are dropped.
            self.read_data.next = self._read_regs[self._read_regs.len() - 1];
            self.read_data_copy.next = self._read_regs[self._read_regs.len() - 1];
            self._read_regs.rotate_right(1);
            self._read_regs[0] = self._mem.get(self._read_addr).copied().unwrap_or_default();
            if let Some((row, data)) = self._write_reg.take() {
                if let Some(w) = self._mem.get_mut(row) {
                    *w = data;
                }
            }
            if self.write_enable.val() {
                self._write_reg = Some((self.write_address.val().index(), self.write_data.val()));
            }
            self._read_addr = self.read_address.val().index();
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
        self.read_data_copy.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(block_ram_verilog(
            W,
            A,
            self._mem.len(),
            self._read_regs.len() - 1,
            self._one_read_address,
            self._second_select,
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        ram_port_timing()
    }
}

/// The body of a `depth`-word RAM of `w`-bit words behind `a` address bits,
/// with `extra` pipeline registers behind each slice's first one, and one
/// read-address register for all slices if `one_ra` (else one per slice), and
/// `read_data_copy` from a second slice select if `second` (else `read_data`).
pub fn block_ram_verilog(w: usize, a: usize, depth: usize, extra: usize, one_ra: bool, second: bool) -> String {
    let slices = depth.div_ceil(SLICE_ROWS);
    let msb = w - 1;
    let mut v = String::new();
    if slices == 1 {
        // One slice: indexed by the low address bits that reach `depth`; the rest are zero.
        let aw = index_bits(depth);
        let (index_r, index_w) = if aw < a {
            v.push_str(&unused_high_address(depth, a, aw, ""));
            (format!("read_address[{}:0]", aw - 1), format!("write_address[{}:0]", aw - 1))
        } else {
            ("read_address".to_string(), "write_address".to_string())
        };
        let stages = read_stages("", extra, "read_data");
        let (pipe_decl, pipe) = stage_registers(&stages, w);
        v.push_str(&format!(
            "reg [{awm}:0] ra;\n\
             {pipe_decl}\
             // The write port's registers.\n\
             reg [{awm}:0] wa;\n\
             reg [{msb}:0] wd;\n\
             reg we;\n\
             {storage}\n\
             always @(posedge clock) begin\n\
             \x20  ra <= {index_r};\n\
             {pipe}\
             \x20  wa <= {index_w};\n\
             \x20  wd <= write_data;\n\
             \x20  we <= write_enable;\n\
             end\n\n\
             // One slice: no select, the copy is the word itself.\n\
             always @(*) begin\n\
             \x20  read_data_copy = read_data;\n\
             end\n",
            awm = aw.min(a) - 1,
            storage = slice_storage("", depth, w, &stages[0], "ra", aw.min(a))
        ));
        return v;
    }
    // Several slices: slice s holds rows [512 s, 512 s + 512); the slice index is
    // address bits [a-1:9], the row in the slice bits [8:0] (fewer for a short last slice).
    let lo = index_bits(SLICE_ROWS);
    let sw = index_bits(slices);
    if lo + sw < a {
        v.push_str(&unused_high_address(depth, a, lo + sw, ""));
    }
    let sel = |port: &str| format!("{port}[{}:{lo}]", lo + sw - 1);
    // One-hot slice of the read, from one clock after sel0 to the clock its data is in q.
    let hot_last = 2 + extra;
    let hot_decl: String = (1..=hot_last).map(|k| format!("reg [{}:0] hot{k};\n", slices - 1)).collect();
    // With a second select, the last one-hot register and its copy each have a kept process of
    // their own (below): Yosys merges a kept register with an unkept twin.
    let shifted = if second { hot_last - 1 } else { hot_last };
    let hot_shift: String = (2..=shifted).map(|k| format!("\x20  hot{k} <= hot{};\n", k - 1)).collect();
    v.push_str(&format!(
        "// Slice index of the read one clock after its address, then one-hot from two clocks after\n\
         // until its data is behind the slices.\n\
         reg [{s}:0] sel0;\n{hot_decl}\
         // The write port's registers: row in the slice, word, and one enable per slice.\n\
         reg [{lm}:0] wa;\nreg [{msb}:0] wd;\n",
        lm = lo - 1,
        s = sw - 1
    ));
    let mut seq = String::new();
    if one_ra {
        v.push_str(&format!("// The read's row in its slice, for every slice.\nreg [{lm}:0] ra;\n", lm = lo - 1));
        seq.push_str(&format!("\x20  ra <= read_address[{lm}:0];\n", lm = lo - 1));
    }
    let mut storage = String::new();
    for s in 0..slices {
        let rows = (depth - s * SLICE_ROWS).min(SLICE_ROWS);
        let aw = index_bits(rows);
        if aw < lo {
            // A short last slice: reads beyond it are undefined, its writes use the bits it has
            // (with one read-address register, the other slices read all its bits).
            let reads = if one_ra { String::new() } else { format!("read_address[{h}:{aw}], ", h = lo - 1) };
            v.push_str(&format!(
                "/* verilator lint_off UNUSEDSIGNAL */\n\
                 wire unused_slice{s}_rows = |{{{reads}write_address[{h}:{aw}]}};\n\
                 /* verilator lint_on UNUSEDSIGNAL */\n",
                h = lo - 1
            ));
        }
        let stages = read_stages(&s.to_string(), extra, &format!("q{s}"));
        let (pipe_decl, pipe) = stage_registers(&stages, w);
        let (ra, ra_bits) = if one_ra {
            ("ra".to_string(), lo)
        } else {
            v.push_str(&format!("reg [{h}:0] ra{s};\n", h = aw - 1));
            seq.push_str(&format!(
                "\x20  if ({rsel} == {sw}'d{s}) begin\n\
                 \x20     ra{s} <= read_address[{h}:0];\n\
                 \x20  end\n",
                h = aw - 1,
                rsel = sel("read_address"),
            ));
            (format!("ra{s}"), aw)
        };
        v.push_str(&format!("{pipe_decl}reg we{s};\n"));
        seq.push_str(&format!(
            "{pipe}\
             \x20  we{s} <= write_enable && {wsel} == {sw}'d{s};\n",
            wsel = sel("write_address")
        ));
        storage.push_str(&slice_storage(&s.to_string(), rows, w, &stages[0], &ra, ra_bits));
    }
    let hot: String = (0..slices).map(|s| format!("   hot1[{s}] <= sel0 == {sw}'d{s};\n")).collect();
    let or = |h: &str| -> String {
        (0..slices).map(|s| format!("(q{s} & {{{w}{{{h}[{s}]}}}})")).collect::<Vec<_>>().join(" | ")
    };
    let copy = if second {
        // The last one-hot register and the copy's, both from the same previous stage, each
        // kept so that synthesis merges neither into the other.
        let kept =
            |r: &str| format!("(* keep *)\nalways @(posedge clock) begin\n\x20  {r} <= hot{};\nend\n", hot_last - 1);
        v.push_str(&format!(
            "// The two selects' last one-hot registers, kept apart in synthesis.\n\
             reg [{}:0] hot{hot_last}_copy;\n{}{}",
            slices - 1,
            kept(&format!("hot{hot_last}")),
            kept(&format!("hot{hot_last}_copy"))
        ));
        or(&format!("hot{hot_last}_copy"))
    } else {
        "read_data".to_string()
    };
    v.push_str(&format!(
        "{storage}\n\
         always @(posedge clock) begin\n\
         \x20  sel0 <= {};\n\
         {hot}\
         {hot_shift}\
         \x20  wa <= write_address[{lm}:0];\n\
         \x20  wd <= write_data;\n\
         {seq}end\n\n\
         // The slice select, after the registers behind the slices.\n\
         always @(*) begin\n\
         \x20  read_data = {};\n\
         \x20  read_data_copy = {copy};\n\
         end\n",
        sel("read_address"),
        or(&format!("hot{hot_last}")),
        lm = lo - 1
    ));
    v
}

/// The registers behind a slice (suffix `s`), first to last: `x1`..`x{extra}`, then `last`.
fn read_stages(s: &str, extra: usize, last: &str) -> Vec<String> {
    let sep = if s.is_empty() { "" } else { "_" };
    let mut stages: Vec<String> = (1..=extra).map(|k| format!("x{k}{sep}{s}")).collect();
    stages.push(last.to_string());
    stages
}

/// Declarations and clocked assignments of the stages behind the first one
/// (the first is the block's own output register, see [`slice_storage`]); a
/// `read_data` stage is the port, declared by the module.
fn stage_registers(stages: &[String], w: usize) -> (String, String) {
    let decl = stages[1..].iter().filter(|r| *r != "read_data").map(|r| format!("reg [{}:0] {r};\n", w - 1)).collect();
    let pipe = stages.windows(2).map(|p| format!("\x20  {} <= {};\n", p[1], p[0])).collect();
    (decl, pipe)
}

/// One slice (suffix `s`, `rows` rows of `w` bits): the memory, read at the
/// read-address register `ra` of `ra_bits` bits (the slice's own, or the one
/// shared by all slices, of which a short slice uses the low bits) into the
/// block's read register and then into
/// `first`, the register behind the block, and written with `wd` at the row
/// bits of `wa` when `we{s}`.
///
/// On ECP5 (`NETMEAS_ECP5` defined, as the project's synthesis flow does) a
/// slice of at least [`ECP5_BLOCK_MIN_ROWS`] rows is a column of DP16KD
/// primitives in 512 × 36 pseudo-dual-port mode with their output registers
/// on, and `first` is that output register: the block's clock-to-out, 4.1 ns
/// without it, then starts no fabric path (TN1264 "Memory Modules",
/// REGMODE = OUTREG; Yosys does not infer it). Elsewhere the memory is
/// inferred, with the same cycle behaviour.
fn slice_storage(s: &str, rows: usize, w: usize, first: &str, ra: &str, ra_bits: usize) -> String {
    let msb = w - 1;
    let aw = index_bits(rows);
    let index = if ra_bits > aw { format!("{ra}[{}:0]", aw - 1) } else { ra.to_string() };
    let behavioural = format!(
        "(* no_rw_check *)\n\
         reg [{msb}:0] mem{s} [0:{last}];\n\
         reg [{msb}:0] rd{s};\n\
         {first_decl}\
         always @(posedge clock) begin\n\
         \x20  rd{s} <= mem{s}[{index}];\n\
         \x20  {first} <= rd{s};\n\
         \x20  if (we{s}) begin\n\
         \x20     mem{s}[wa[{awm}:0]] <= wd;\n\
         \x20  end\n\
         end\n",
        last = rows - 1,
        awm = aw - 1,
        first_decl = if first == "read_data" { String::new() } else { format!("reg [{msb}:0] {first};\n") },
    );
    if rows < ECP5_BLOCK_MIN_ROWS {
        return behavioural;
    }
    // The blocks drive a wire; a port stage (`read_data`, declared `reg`) copies it.
    let (out, out_decl) = if first == "read_data" {
        ("dout".to_string(), format!("wire [{msb}:0] dout;\nalways @(*) read_data = dout;\n"))
    } else {
        (first.to_string(), format!("wire [{msb}:0] {first};\n"))
    };
    let mut blocks = String::new();
    for c in 0..w.div_ceil(36) {
        let bit = |i: usize| c * 36 + i;
        // Bits 0..17 on the A pins, 18..35 on the B pins.
        let pin = |i: usize| if i < 18 { format!("A{i}") } else { format!("B{}", i - 18) };
        let mut pins: Vec<String> = Vec::new();
        for i in 0..36 {
            let b = bit(i);
            pins.push(format!(".DI{}({})", pin(i), if b <= msb { format!("wd[{b}]") } else { "1'b0".into() }));
        }
        for i in 0..36 {
            let b = bit(i);
            pins.push(format!(".DO{}({})", pin(i), if b <= msb { format!("{out}[{b}]") } else { String::new() }));
        }
        // 36-bit mode: ADA[3:0] are the write's byte enables, the row is on AD[13:5].
        for k in 0..14 {
            let row = |reg: &str| {
                if (5..5 + aw).contains(&k) { format!("{reg}[{}]", k - 5) } else { "1'b0".to_string() }
            };
            pins.push(format!(".ADA{k}({})", if k < 4 { format!("we{s}") } else { row("wa") }));
            pins.push(format!(".ADB{k}({})", row(ra)));
        }
        blocks.push_str(&format!(
            "DP16KD #(.DATA_WIDTH_A(36), .DATA_WIDTH_B(36), .REGMODE_A(\"OUTREG\"), .REGMODE_B(\"OUTREG\"),\n\
             \x20  .RESETMODE(\"SYNC\"), .ASYNC_RESET_RELEASE(\"SYNC\"), .CSDECODE_A(\"0b000\"), .CSDECODE_B(\"0b000\"),\n\
             \x20  .GSR(\"AUTO\")) block{s}_{c} (\n\
             \x20  .CLKA(clock), .CEA(we{s}), .WEA(1'b1), .OCEA(1'b1), .RSTA(1'b0), .CSA0(1'b0), .CSA1(1'b0), .CSA2(1'b0),\n\
             \x20  .CLKB(clock), .CEB(1'b1), .WEB(1'b0), .OCEB(1'b1), .RSTB(1'b0), .CSB0(1'b0), .CSB1(1'b0), .CSB2(1'b0),\n\
             \x20  {});\n",
            pins.join(", ")
        ));
    }
    format!(
        "`ifdef NETMEAS_ECP5\n\
         // {rows} x {w} bits: {n} DP16KD, 512 x 36 each, the output register on.\n\
         {out_decl}{blocks}\
         `else\n\
         {behavioural}\
         `endif\n",
        n = w.div_ceil(36)
    )
}

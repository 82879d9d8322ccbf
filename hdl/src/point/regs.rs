//! The measurement point's register block: one core's register map (its
//! [`RegisterDesc`] list, the one source that `csr.json` and the datasheet
//! tables come from) plus the point's own status words and sticky flags,
//! generated as a Verilog module behind one access port that the bus
//! slaves (`netmeas_axil_slave`, `netmeas_wb_slave`) drive.
//!
//! What the block does with an access (byte addresses, 32-bit words):
//! - a core register of [`Access::Rw`]: the write goes to the core's
//!   `csr_we`/`csr_addr`/`csr_wdata` with the byte strobes merged into the
//!   value held, and the block keeps that value for read-back (the cores'
//!   CSR ports are write-only for configuration);
//! - [`Access::Wo`] (a command such as `FLIP`): any write goes to the core,
//!   a read gives 0;
//! - [`Access::Ro`]: a read pulses `csr_re`, the word is the core's
//!   `csr_rdata` of the next clock; a write is refused;
//! - a status word of the point (frames seen, dropped records, …): read
//!   only, sampled at the access;
//! - the flags word: sticky bits set by `flag_set`, cleared by writing 1;
//! - a command word of the point (an epoch flip, a clear): a write with
//!   bit 0 set (byte 0 strobed) gives one pulse on `cmd_pulse` with its
//!   answer, a read gives 0;
//! - anything else, a misaligned address, or a write to a read-only word:
//!   an error response (AXI `SLVERR`, Wishbone `ERR`) and no side effect.
//!
//! One access per clock, registered as it enters (the decode starts from
//! flops) and answered two clocks after it (`rsp_valid`); the read data of
//! a core register comes straight from `csr_rdata` in that clock.
//! The papers assume this layer exists: the LDA paper's routers report to
//! a monitoring station (§II), MAPLE's query engine is asked from the host
//! (§4).

use crate::export::Exported;
use netmeas_sim::csr::{Access, RegisterDesc};
use std::fmt::Write;

/// The byte address of the first point register when the core's map is
/// small: the core's words sit below it.
pub const POINT_BASE_MIN: u32 = 0x100;

/// What a word of the point's map is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WordKind {
    /// A core register.
    Core(Access),
    /// Status word `i` of the point.
    Status(usize),
    /// The sticky flags (write 1 to clear).
    Flags,
    /// Command `i` of the point (write 1 to pulse).
    Command(usize),
    /// Configuration word `i` of the point (read/write, held in the block).
    Config(usize),
}

impl WordKind {
    /// Whether a write is answered with `OKAY`.
    pub fn writable(self) -> bool {
        matches!(
            self,
            WordKind::Core(Access::Rw | Access::Wo) | WordKind::Flags | WordKind::Command(_) | WordKind::Config(_)
        )
    }
}

/// One word of the point's map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BusWord {
    /// Register name.
    pub name: String,
    /// Byte address.
    pub addr: u32,
    /// Bits used, from bit 0.
    pub bits: u32,
    /// Value after reset (core configuration registers; 0 otherwise).
    pub reset: u64,
    /// What it is.
    pub kind: WordKind,
    /// What it does.
    pub doc: String,
}

/// A named register of the point itself (a status word or a flag).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointField {
    /// Name.
    pub name: String,
    /// What it counts or flags.
    pub doc: String,
}

/// A configuration word of the point itself (read/write, held in the block).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointConfig {
    /// Name.
    pub name: String,
    /// What it sets.
    pub doc: String,
    /// Bits used, from bit 0 (1..=32).
    pub bits: u32,
    /// Value after reset.
    pub reset: u32,
}

/// The register block of one point: the core's map and the point's own
/// registers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointRegs {
    /// The Verilog module's name.
    pub module: String,
    /// The core's registers.
    pub core: Vec<RegisterDesc>,
    /// Width of the core's `csr_addr`.
    pub csr_addr_bits: u32,
    /// Width of the core's `csr_wdata` (1..=32).
    pub csr_data_bits: u32,
    /// Status words, read only, at the point base.
    pub status: Vec<PointField>,
    /// Sticky flags, bit by bit, in the word after the status words.
    pub flags: Vec<PointField>,
    /// Commands, one word each after the flags word.
    pub commands: Vec<PointField>,
    /// Configuration words, one each after the commands.
    pub config: Vec<PointConfig>,
}

impl PointRegs {
    /// Checks that the map can be built: register widths, addresses and
    /// the port widths.
    pub fn check(&self) -> Result<(), String> {
        if !(1..=32).contains(&self.csr_data_bits) || !(1..=16).contains(&self.csr_addr_bits) {
            return Err(format!(
                "{}: csr_wdata of {} bits and csr_addr of {} bits: the register block takes 1..=32 and 1..=16",
                self.module, self.csr_data_bits, self.csr_addr_bits
            ));
        }
        if self.flags.is_empty() || self.flags.len() > 32 {
            return Err(format!("{}: {} flags: the flags word holds 1..=32", self.module, self.flags.len()));
        }
        if self.commands.len() > 32 {
            return Err(format!("{}: {} commands: the block takes at most 32", self.module, self.commands.len()));
        }
        if let Some(c) =
            self.config.iter().find(|c| c.bits == 0 || c.bits > 32 || (c.bits < 32 && c.reset >> c.bits != 0))
        {
            return Err(format!(
                "{}: configuration word {} of {} bits, reset 0x{:x}",
                self.module, c.name, c.bits, c.reset
            ));
        }
        let mut seen = std::collections::HashSet::new();
        for r in &self.core {
            let limit = if r.access == Access::Ro { 32 } else { self.csr_data_bits };
            if r.bits == 0 || r.bits > limit {
                return Err(format!("{}: register {} has {} bits (1..={limit} here)", self.module, r.name, r.bits));
            }
            if r.addr >= 1 << self.csr_addr_bits || !seen.insert(r.addr) {
                return Err(format!(
                    "{}: register {} at word {} is outside csr_addr or taken",
                    self.module, r.name, r.addr
                ));
            }
        }
        Ok(())
    }

    /// The byte address of the first point register.
    pub fn point_base(&self) -> u32 {
        POINT_BASE_MIN.max(4 << self.csr_addr_bits)
    }

    /// Width of the access port's byte address.
    pub fn addr_width(&self) -> u32 {
        let end = self.flags_addr() + 4 * (1 + self.commands.len() as u32 + self.config.len() as u32);
        32 - (end - 1).leading_zeros()
    }

    /// The byte address of the flags word.
    pub fn flags_addr(&self) -> u32 {
        self.point_base() + 4 * self.status.len() as u32
    }

    /// The register block of `core` (an export of a block with registers)
    /// with the point's `status` words, `flags` and `commands`.
    pub fn for_core(
        core: &Exported,
        status: Vec<PointField>,
        flags: Vec<PointField>,
        commands: Vec<PointField>,
    ) -> Result<Self, String> {
        // A core without a register port (EXPB, DBM) gets a register block
        // whose core port is one bit wide and left open.
        let csr_addr_bits = core.ports.iter().find(|p| p.name == "csr_addr").map(|p| p.bits as u32);
        if csr_addr_bits.is_none() && !core.config.registers().is_empty() {
            return Err(format!("{} has registers but no register port (csr_addr)", core.top));
        }
        let regs = PointRegs {
            module: format!("{}_regs", core.top),
            core: core.config.registers(),
            csr_addr_bits: csr_addr_bits.unwrap_or(1),
            csr_data_bits: if csr_addr_bits.is_some() { core.config.csr_data_bits() } else { 1 },
            status,
            flags,
            commands,
            config: Vec::new(),
        };
        regs.check()?;
        Ok(regs)
    }

    /// Every word of the map, by address.
    pub fn words(&self) -> Vec<BusWord> {
        let mut words: Vec<BusWord> = self
            .core
            .iter()
            .map(|r| BusWord {
                name: r.name.clone(),
                addr: 4 * r.addr,
                bits: r.bits,
                reset: if r.access == Access::Rw { r.reset } else { 0 },
                kind: WordKind::Core(r.access),
                doc: r.doc.clone(),
            })
            .collect();
        words.extend(self.status.iter().enumerate().map(|(i, f)| BusWord {
            name: f.name.clone(),
            addr: self.point_base() + 4 * i as u32,
            bits: 32,
            reset: 0,
            kind: WordKind::Status(i),
            doc: f.doc.clone(),
        }));
        let flags_doc = self.flags.iter().enumerate().map(|(i, f)| format!("bit {i} {}: {}", f.name, f.doc));
        words.push(BusWord {
            name: "FLAGS".into(),
            addr: self.flags_addr(),
            bits: self.flags.len() as u32,
            reset: 0,
            kind: WordKind::Flags,
            doc: format!(
                "Sticky flags, write 1 to clear (a flag set in the clock of its clear stays set): {}.",
                flags_doc.collect::<Vec<_>>().join("; ")
            ),
        });
        words.extend(self.commands.iter().enumerate().map(|(i, f)| BusWord {
            name: f.name.clone(),
            addr: self.flags_addr() + 4 * (1 + i as u32),
            bits: 1,
            reset: 0,
            kind: WordKind::Command(i),
            doc: format!("{} (write 1: one pulse; reads 0)", f.doc),
        }));
        let config_base = self.flags_addr() + 4 * (1 + self.commands.len() as u32);
        words.extend(self.config.iter().enumerate().map(|(i, c)| BusWord {
            name: c.name.clone(),
            addr: config_base + 4 * i as u32,
            bits: c.bits,
            reset: u64::from(c.reset),
            kind: WordKind::Config(i),
            doc: c.doc.clone(),
        }));
        words.sort_by_key(|w| w.addr);
        words
    }

    /// The register block's Verilog (module [`Self::module`]).
    pub fn verilog(&self) -> Result<String, String> {
        self.check()?;
        let aw = self.addr_width();
        let (ca, cd) = (self.csr_addr_bits, self.csr_data_bits);
        let (ns, nf, nc) = (self.status.len(), self.flags.len(), self.commands.len());
        let has_ro = self.core.iter().any(|r| r.access == Access::Ro);
        let words = self.words();
        // Words held here: the core's configuration (for read-back) and the point's own.
        let rw: Vec<&BusWord> =
            words.iter().filter(|w| matches!(w.kind, WordKind::Core(Access::Rw) | WordKind::Config(_))).collect();
        let nconf = self.config.len();
        let mut v = String::new();
        let w = &mut v;
        let _ =
            writeln!(w, "// {}: the register block of a measurement point (netmeas, generated from the", self.module);
        let _ = writeln!(w, "// core's register map). One access per clock on acc_*, answered two clocks");
        let _ = writeln!(w, "// later on rsp_*; see hdl/src/point/regs.rs and docs/cores/bus-slaves.md.");
        let _ = writeln!(w, "//");
        let _ = writeln!(w, "// Map (byte addresses):");
        for word in &words {
            let _ = writeln!(w, "//   0x{:04x} {:<14} {}", word.addr, word.name, kind_text(word.kind));
        }
        let _ = writeln!(w, "\n`timescale 1ns / 1ps\n\nmodule {} (", self.module);
        let _ = writeln!(w, "    input  wire          clk,");
        let _ = writeln!(w, "    input  wire          rst,            // synchronous, active high");
        let _ = writeln!(w, "    // access port (from a bus slave): one access per clock");
        let _ = writeln!(w, "    input  wire          acc_valid,");
        let _ = writeln!(w, "    input  wire          acc_we,");
        let _ = writeln!(w, "    input  wire [{}:0]   acc_addr,       // byte address", aw - 1);
        let _ = writeln!(w, "    input  wire [31:0]   acc_wdata,");
        let _ = writeln!(w, "    input  wire [3:0]    acc_wstrb,");
        let _ = writeln!(w, "    // its answer, two clocks after the access");
        let _ = writeln!(w, "    output reg           rsp_valid,");
        let _ =
            writeln!(w, "    output reg           rsp_err,        // unmapped, misaligned or refused: no side effect");
        let _ = writeln!(w, "    output wire [31:0]   rsp_rdata,");
        let _ = writeln!(w, "    // the core's register port");
        let _ = writeln!(w, "    output wire          csr_we,");
        let _ = writeln!(w, "    output wire          csr_re,         // 0 without read-only core registers");
        let _ = writeln!(w, "    output wire [{}:0]    csr_addr,", ca - 1);
        let _ = writeln!(w, "    output wire [{}:0]   csr_wdata,", cd - 1);
        if !has_ro {
            let _ =
                writeln!(w, "    /* verilator lint_off UNUSEDSIGNAL */  // no read-only core register: nothing read");
        }
        let _ = writeln!(w, "    input  wire [31:0]   csr_rdata,      // the word read, the clock after csr_re");
        if !has_ro {
            let _ = writeln!(w, "    /* verilator lint_on UNUSEDSIGNAL */");
        }
        let _ = writeln!(w, "    // the point's status words (sampled at a read) and flags");
        let _ =
            writeln!(w, "    input  wire [{}:0]  status_words,   // word i in bits 32i+31..32i", 32 * ns.max(1) - 1);
        let _ = writeln!(w, "    input  wire [{}:0]    flag_set,       // sets the sticky flags", nf - 1);
        let _ = writeln!(w, "    output reg  [{}:0]    flags,", nf - 1);
        let _ = writeln!(
            w,
            "    output reg  [{}:0]    cmd_pulse,      // the point's commands{}",
            nc.max(1) - 1,
            if nc == 0 { " (none: 0)" } else { "" }
        );
        let _ = writeln!(
            w,
            "    output wire [{}:0]  config_words    // the point's configuration, word i in bits 32i+31..32i{}",
            32 * nconf.max(1) - 1,
            if nconf == 0 { " (none: 0)" } else { "" }
        );
        let _ = writeln!(w, ");\n");
        let _ = writeln!(w, "// The access, registered: the decode starts from flops, not behind the bus");
        let _ = writeln!(w, "// slave's handshake logic.");
        let _ = writeln!(
            w,
            "reg        a_valid;\nreg        a_we;\nreg [{}:0] a_addr;\nreg [31:0] a_wdata;\nreg [3:0]  a_wstrb;",
            aw - 1
        );
        let _ = writeln!(w, "always @(posedge clk) begin");
        let _ = writeln!(w, "    a_valid <= acc_valid && !rst;");
        let _ = writeln!(
            w,
            "    a_we <= acc_we;\n    a_addr <= acc_addr;\n    a_wdata <= acc_wdata;\n    a_wstrb <= acc_wstrb;"
        );
        let _ = writeln!(w, "end\n");
        let _ = writeln!(w, "wire aligned = a_addr[1:0] == 2'b00;");
        let _ = writeln!(w, "wire [{}:0] word = a_addr[{}:2];", aw - 3, aw - 1);
        let _ = writeln!(
            w,
            "wire [31:0] strb_mask = {{{{8{{a_wstrb[3]}}}}, {{8{{a_wstrb[2]}}}}, {{8{{a_wstrb[1]}}}}, {{8{{a_wstrb[0]}}}}}};"
        );
        let _ = writeln!(w, "\n// Decode: what the addressed word is.");
        let hit = |word: &BusWord| format!("a_valid && aligned && word == {aw_w}'d{}", word.addr / 4, aw_w = aw - 2);
        let any = |pred: &dyn Fn(&BusWord) -> bool| -> String {
            let hits: Vec<String> =
                words.iter().filter(|x| pred(x)).map(|x| format!("(word == {}'d{})", aw - 2, x.addr / 4)).collect();
            if hits.is_empty() { "1'b0".into() } else { format!("a_valid && aligned && ({})", hits.join(" || ")) }
        };
        let _ =
            writeln!(w, "wire hit_core_w = {};", any(&|x| matches!(x.kind, WordKind::Core(Access::Rw | Access::Wo))));
        let _ = writeln!(w, "wire hit_core_r = {};", any(&|x| x.kind == WordKind::Core(Access::Ro)));
        let _ = writeln!(
            w,
            "wire hit_flags = {};",
            hit(words.iter().find(|x| x.kind == WordKind::Flags).expect("a flags word"))
        );
        let _ = writeln!(w, "wire hit_read = {};", any(&|_| true));
        let _ = writeln!(w, "wire hit_write = {};", any(&|x| x.kind.writable()));
        let _ = writeln!(w, "\n// Configuration held for read-back (the core's copy is write-only), and the point's.");
        for x in &rw {
            let _ = writeln!(w, "reg [{}:0] cfg_{};", x.bits - 1, ident(&x.name));
        }
        if nconf == 0 {
            let _ = writeln!(w, "assign config_words = 32'd0;");
        }
        for x in words.iter().filter(|x| matches!(x.kind, WordKind::Config(_))) {
            let WordKind::Config(i) = x.kind else { continue };
            let _ = writeln!(
                w,
                "assign config_words[{}:{}] = {};",
                32 * i + 31,
                32 * i,
                widen(&format!("cfg_{}", ident(&x.name)), x.bits)
            );
        }
        let _ = writeln!(w, "\n// The held value of the addressed configuration register, strobes merged.");
        let _ = writeln!(w, "reg [31:0] cfg_old;");
        let _ = writeln!(w, "always @(*) begin");
        let _ = writeln!(w, "    case (word)");
        for x in &rw {
            let _ = writeln!(
                w,
                "    {}'d{}: cfg_old = {};",
                aw - 2,
                x.addr / 4,
                widen(&format!("cfg_{}", ident(&x.name)), x.bits)
            );
        }
        let _ = writeln!(w, "    default: cfg_old = 32'd0;");
        let _ = writeln!(w, "    endcase");
        let _ = writeln!(w, "end");
        if cd < 32 {
            let _ = writeln!(w, "/* verilator lint_off UNUSEDSIGNAL */  // bits above csr_wdata's {cd} go nowhere");
        }
        let _ = writeln!(w, "wire [31:0] cfg_new = (cfg_old & ~strb_mask) | (a_wdata & strb_mask);");
        if cd < 32 {
            let _ = writeln!(w, "/* verilator lint_on UNUSEDSIGNAL */");
        }
        let _ = writeln!(w, "\n// The core's port: writes of configuration and commands, reads of status.");
        let _ =
            writeln!(w, "assign csr_we = hit_core_w && a_we;   // (the point's own configuration is not the core's)");
        let _ = writeln!(w, "assign csr_re = hit_core_r && !a_we;");
        let _ = writeln!(w, "assign csr_addr = word[{}:0];", ca - 1);
        let _ = writeln!(w, "assign csr_wdata = cfg_new[{}:0];", cd - 1);
        let _ =
            writeln!(w, "\nreg [31:0] rdata_q;      // the answer{}", if has_ro { ", unless the core's" } else { "" });
        if has_ro {
            let _ = writeln!(w, "reg        rdata_core;   // the answer is csr_rdata");
        }
        let _ = writeln!(w, "always @(posedge clk) begin");
        let _ = writeln!(w, "    rsp_valid <= a_valid;");
        let _ = writeln!(w, "    rsp_err <= a_valid && (a_we ? !hit_write : !hit_read);");
        if has_ro {
            let _ = writeln!(w, "    rdata_core <= hit_core_r && !a_we;");
        }
        let _ = writeln!(w, "    rdata_q <= 32'd0;");
        let _ = writeln!(w, "    if (a_valid && !a_we && aligned) begin");
        let _ = writeln!(w, "        case (word)");
        for x in &words {
            let value = match x.kind {
                WordKind::Core(Access::Rw) | WordKind::Config(_) => widen(&format!("cfg_{}", ident(&x.name)), x.bits),
                WordKind::Status(i) => format!("status_words[{}:{}]", 32 * i + 31, 32 * i),
                WordKind::Flags => widen("flags", x.bits),
                WordKind::Core(_) | WordKind::Command(_) => continue,
            };
            let _ = writeln!(w, "        {}'d{}: rdata_q <= {value};", aw - 2, x.addr / 4);
        }
        let _ = writeln!(w, "        default: rdata_q <= 32'd0;");
        let _ = writeln!(w, "        endcase");
        let _ = writeln!(w, "    end");
        let _ = writeln!(w, "    if (a_valid && a_we) begin");
        let _ = writeln!(w, "        case (word)");
        for x in &rw {
            let _ = writeln!(
                w,
                "        {}'d{}: if (aligned) cfg_{} <= cfg_new[{}:0];",
                aw - 2,
                x.addr / 4,
                ident(&x.name),
                x.bits - 1
            );
        }
        let _ = writeln!(w, "        default: ;");
        let _ = writeln!(w, "        endcase");
        let _ = writeln!(w, "    end");
        let pulses: Vec<String> = words
            .iter()
            .filter_map(|x| match x.kind {
                WordKind::Command(i) => Some((i, x.addr / 4)),
                _ => None,
            })
            .map(|(i, a)| {
                format!(
                    "    cmd_pulse[{i}] <= a_valid && a_we && aligned && word == {}'d{a} && a_wstrb[0] && a_wdata[0];",
                    aw - 2
                )
            })
            .collect();
        if pulses.is_empty() {
            let _ = writeln!(w, "    cmd_pulse <= 1'b0;");
        }
        for p in pulses {
            let _ = writeln!(w, "{p}");
        }
        let _ = writeln!(w, "    // Set wins over a clear in the same clock: no event is lost.");
        let _ = writeln!(
            w,
            "    flags <= (flags & ~(hit_flags && a_we ? (a_wdata[{m}:0] & strb_mask[{m}:0]) : {nf}'d0)) | flag_set;",
            m = nf - 1
        );
        let _ = writeln!(w, "    if (rst) begin");
        let _ = writeln!(w, "        rsp_valid <= 1'b0;");
        let _ = writeln!(w, "        rsp_err <= 1'b0;");
        if has_ro {
            let _ = writeln!(w, "        rdata_core <= 1'b0;");
        }
        let _ = writeln!(w, "        rdata_q <= 32'd0;");
        let _ = writeln!(w, "        flags <= {nf}'d0;");
        let _ = writeln!(w, "        cmd_pulse <= {}'d0;", nc.max(1));
        for x in &rw {
            let _ = writeln!(w, "        cfg_{} <= {}'h{:x};", ident(&x.name), x.bits, x.reset);
        }
        let _ = writeln!(w, "    end");
        let _ = writeln!(w, "end\n");
        if has_ro {
            let _ = writeln!(w, "assign rsp_rdata = rdata_core ? csr_rdata : rdata_q;");
        } else {
            let _ = writeln!(w, "assign rsp_rdata = rdata_q;");
        }
        let _ = writeln!(w, "\nendmodule");
        Ok(v)
    }

    /// The map as Verilog functions for a testbench (`map_count`,
    /// `map_addr(i)`, `map_kind(addr)`, `map_bits(addr)`, `map_reset(addr)`,
    /// `map_status(addr)`) and the block's sizes as localparams.
    pub fn testbench_map(&self) -> String {
        let words = self.words();
        let mut v = String::new();
        let w = &mut v;
        let _ = writeln!(w, "// The map of {} (generated; hdl/src/point/regs.rs).", self.module);
        let _ = writeln!(w, "localparam integer ADDR_WIDTH = {};", self.addr_width());
        let _ = writeln!(w, "localparam integer CSR_ADDR_BITS = {};", self.csr_addr_bits);
        let _ = writeln!(w, "localparam integer CSR_DATA_BITS = {};", self.csr_data_bits);
        let _ = writeln!(w, "localparam integer N_STATUS = {};", self.status.len());
        let _ = writeln!(w, "localparam integer N_FLAGS = {};", self.flags.len());
        let _ = writeln!(w, "localparam integer N_CMDS = {};", self.commands.len());
        let _ =
            writeln!(w, "localparam integer HAS_RO = {};", u8::from(self.core.iter().any(|r| r.access == Access::Ro)));
        let _ = writeln!(w, "localparam integer MAP_COUNT = {};", words.len());
        let _ =
            writeln!(w, "// Kinds: 0 unmapped, 1 configuration, 2 command, 3 core status, 4 point status, 5 flags,");
        let _ = writeln!(w, "// 6 point command, 7 point configuration.");
        let table = |w: &mut String, name: &str, width: u32, arg: &str, rows: Vec<(u32, String)>| {
            let _ = writeln!(w, "function [{}:0] {name}(input [31:0] {arg});", width - 1);
            let _ = writeln!(w, "    begin");
            let _ = writeln!(w, "        case ({arg})");
            for (k, val) in rows {
                let _ = writeln!(w, "        {k}: {name} = {val};");
            }
            let _ = writeln!(w, "        default: {name} = 0;");
            let _ = writeln!(w, "        endcase");
            let _ = writeln!(w, "    end");
            let _ = writeln!(w, "endfunction");
        };
        table(
            w,
            "map_addr",
            32,
            "i",
            words.iter().enumerate().map(|(i, x)| (i as u32, format!("32'h{:x}", x.addr))).collect(),
        );
        let kind = |k: WordKind| match k {
            WordKind::Core(Access::Rw) => 1,
            WordKind::Core(Access::Wo) => 2,
            WordKind::Core(Access::Ro) => 3,
            WordKind::Status(_) => 4,
            WordKind::Flags => 5,
            WordKind::Command(_) => 6,
            WordKind::Config(_) => 7,
        };
        table(w, "map_kind", 3, "a", words.iter().map(|x| (x.addr, kind(x.kind).to_string())).collect());
        table(w, "map_bits", 6, "a", words.iter().map(|x| (x.addr, x.bits.to_string())).collect());
        table(w, "map_reset", 32, "a", words.iter().map(|x| (x.addr, format!("32'h{:x}", x.reset))).collect());
        let status = words.iter().filter_map(|x| match x.kind {
            WordKind::Status(i) => Some((x.addr, i.to_string())),
            _ => None,
        });
        table(w, "map_status", 8, "a", status.collect());
        let cmds = words.iter().filter_map(|x| match x.kind {
            WordKind::Command(i) => Some((x.addr, i.to_string())),
            _ => None,
        });
        table(w, "map_cmd", 8, "a", cmds.collect());
        let _ = writeln!(w, "localparam integer N_CONFIG = {};", self.config.len());
        let configs = words.iter().filter_map(|x| match x.kind {
            WordKind::Config(i) => Some((x.addr, i.to_string())),
            _ => None,
        });
        table(w, "map_config", 8, "a", configs.collect());
        v
    }
}

/// `name` (of `bits` bits) zero-extended to 32 bits.
fn widen(name: &str, bits: u32) -> String {
    if bits == 32 { name.to_string() } else { format!("{{{}'d0, {name}}}", 32 - bits) }
}

/// A register name as a Verilog identifier.
fn ident(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect()
}

/// A word's kind, for the module's header comment.
fn kind_text(kind: WordKind) -> String {
    match kind {
        WordKind::Core(Access::Rw) => "core, read/write (held here)".into(),
        WordKind::Core(Access::Wo) => "core, command (write only, reads 0)".into(),
        WordKind::Core(Access::Ro) => "core, read only (csr_re/csr_rdata)".into(),
        WordKind::Status(i) => format!("point status word {i}, read only"),
        WordKind::Flags => "point flags, write 1 to clear".into(),
        WordKind::Command(i) => format!("point command {i}, write 1 to pulse"),
        WordKind::Config(i) => format!("point configuration {i}, read/write"),
    }
}

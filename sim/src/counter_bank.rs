//! Golden model of the counter bank: a RAM of records updated by
//! read-modify-write at one update per clock, kept in two copies (ping-pong)
//! so that a frozen epoch is read out and cleared while the live epoch keeps
//! counting. This is the storage of the LDA (Kompella et al. §V: "72-bit SRAM
//! words: 32-bit packet counter + 40-bit timestamp sum", "two copies of the
//! counters for read-out") and, with other record layouts, of RDA and fridges.
//!
//! Two faces share one store:
//! - [`BankStore`]: transaction-level, used by the cores' golden models (fast).
//! - [`CounterBankCycle`]: cycle-accurate model of the RTL block's ports
//!   (ready, flip handshake, read-out stream timing, sticky flags), compared
//!   with the Verilated RTL every cycle.

use crate::error::{ConfigError, check_one_of};
use serde::{Deserialize, Serialize};

/// Count widths the exported counter bank is built for.
pub const CB_COUNT_BITS: &[usize] = &[16, 32];
/// Timestamp-sum widths the exported counter bank is built for.
pub const CB_TSUM_BITS: &[usize] = &[32, 40, 48, 64];
/// Address widths the exported counter bank is built for.
pub const CB_ADDR_BITS: std::ops::RangeInclusive<usize> = 1..=16;

/// A packed RAM word as 32-bit limbs, least significant first (up to 320 bits):
/// the form in which records are compared with the RTL.
pub type Word = [u32; 10];

/// A record stored in one row. Updates use the same layout as the record (the
/// operand of a count/sum update is itself a count/sum record to add).
pub trait Record: Copy + Default + PartialEq + std::fmt::Debug {
    /// Field widths, known at run time.
    type Layout: Copy + std::fmt::Debug;
    /// Applies `op` in place; returns true when a field that must not wrap did.
    fn apply(&mut self, op: &Self, layout: &Self::Layout) -> bool;
    /// The record as the RTL stores it.
    fn pack(&self, layout: &Self::Layout) -> Word;
}

/// Field widths of [`CountSum`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CountSumLayout {
    /// Packet-count width (low bits of the word).
    pub count_bits: u32,
    /// Timestamp-sum width (high bits of the word).
    pub tsum_bits: u32,
}

/// The LDA record: a packet count and a modular timestamp sum (§V: 32 + 40 bits).
/// Packed as `{tsum, count}`: count in the low `count_bits`, tsum above it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CountSum {
    /// Packets counted (a wrap is an overflow, flagged by the bank).
    pub count: u64,
    /// Sum of timestamps modulo 2^tsum_bits (wrapping is by design).
    pub tsum: u64,
}

#[inline]
fn mask64(bits: u32) -> u64 {
    if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 }
}

impl Record for CountSum {
    type Layout = CountSumLayout;

    #[inline]
    fn apply(&mut self, op: &Self, l: &CountSumLayout) -> bool {
        let cm = mask64(l.count_bits);
        let sum = self.count + (op.count & cm);
        self.count = sum & cm;
        self.tsum = self.tsum.wrapping_add(op.tsum) & mask64(l.tsum_bits);
        sum > cm
    }

    fn pack(&self, l: &CountSumLayout) -> Word {
        let v: u128 =
            (self.count & mask64(l.count_bits)) as u128 | (((self.tsum & mask64(l.tsum_bits)) as u128) << l.count_bits);
        let mut w = Word::default();
        for (i, limb) in w.iter_mut().take(4).enumerate() {
            *limb = (v >> (32 * i)) as u32;
        }
        w
    }
}

/// Parameters of the counter bank block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CounterBankConfig {
    /// Rows per copy (1..=2^addr_bits).
    pub rows: usize,
    /// Row address width; the smallest that holds `rows` when absent.
    pub addr_bits: Option<usize>,
    /// Packet-count width (see [`CB_COUNT_BITS`]).
    pub count_bits: usize,
    /// Timestamp-sum width (see [`CB_TSUM_BITS`]); sums wrap modulo 2^tsum_bits.
    pub tsum_bits: usize,
    /// Top module name of the export; derived from the config when absent.
    pub name: Option<String>,
}

impl Default for CounterBankConfig {
    fn default() -> Self {
        Self { rows: 1024, addr_bits: None, count_bits: 32, tsum_bits: 40, name: None }
    }
}

impl CounterBankConfig {
    /// The row address width in effect.
    pub fn addr_bits(&self) -> usize {
        self.addr_bits.unwrap_or_else(|| (usize::BITS - self.rows.saturating_sub(1).leading_zeros()).max(1) as usize)
    }

    /// Bits per row.
    pub fn word_bits(&self) -> usize {
        self.count_bits + self.tsum_bits
    }

    /// The record layout.
    pub fn layout(&self) -> CountSumLayout {
        CountSumLayout { count_bits: self.count_bits as u32, tsum_bits: self.tsum_bits as u32 }
    }

    /// Checks every field; the error names the first impossible one.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.rows == 0 {
            return Err(ConfigError::new("rows", "must be at least 1"));
        }
        let a = self.addr_bits();
        if !CB_ADDR_BITS.contains(&a) {
            return Err(ConfigError::new(
                if self.addr_bits.is_some() { "addr_bits" } else { "rows" },
                format!("address width {a} is outside {}..={}", CB_ADDR_BITS.start(), CB_ADDR_BITS.end()),
            ));
        }
        if self.rows > 1usize << a {
            return Err(ConfigError::new(
                "rows",
                format!("{} rows do not fit a {a}-bit row address (at most {})", self.rows, 1usize << a),
            ));
        }
        if self.count_bits == 0 || self.count_bits > 64 {
            return Err(ConfigError::new("count_bits", format!("{} is outside 1..=64", self.count_bits)));
        }
        if self.tsum_bits == 0 || self.tsum_bits > 64 {
            return Err(ConfigError::new("tsum_bits", format!("{} is outside 1..=64", self.tsum_bits)));
        }
        check_one_of("count_bits", self.count_bits, CB_COUNT_BITS)?;
        check_one_of("tsum_bits", self.tsum_bits, CB_TSUM_BITS)?;
        if let Some(n) = &self.name {
            crate::check_module_name("name", n)?;
        }
        Ok(())
    }

    /// The Verilog top module name of this config.
    pub fn top_name(&self) -> String {
        self.name.clone().unwrap_or_else(|| {
            format!(
                "netmeas_counter_bank_r{}_a{}_c{}_t{}",
                self.rows,
                self.addr_bits(),
                self.count_bits,
                self.tsum_bits
            )
        })
    }
}

/// Both copies of the bank's memory, updated at transaction level.
#[derive(Clone, Debug)]
pub struct BankStore<R: Record> {
    copies: [Vec<R>; 2],
    layout: R::Layout,
}

impl<R: Record> BankStore<R> {
    /// Two zeroed copies of `rows` rows.
    pub fn new(rows: usize, layout: R::Layout) -> Self {
        Self { copies: [vec![R::default(); rows], vec![R::default(); rows]], layout }
    }

    /// Rows per copy.
    pub fn rows(&self) -> usize {
        self.copies[0].len()
    }

    /// The record layout.
    pub fn layout(&self) -> &R::Layout {
        &self.layout
    }

    /// Read-modify-write of one row of copy `copy`; true on a non-wrapping field's overflow.
    #[inline]
    pub fn apply(&mut self, copy: usize, row: usize, op: &R) -> bool {
        let layout = self.layout;
        self.copies[copy][row].apply(op, &layout)
    }

    /// Row `row` of copy `copy`.
    #[inline]
    pub fn get(&self, copy: usize, row: usize) -> R {
        self.copies[copy][row]
    }

    /// All rows of copy `copy`.
    pub fn copy(&self, copy: usize) -> &[R] {
        &self.copies[copy]
    }

    /// Zeroes one row of copy `copy`.
    #[inline]
    pub fn clear_row(&mut self, copy: usize, row: usize) {
        self.copies[copy][row] = R::default();
    }
}

/// Inputs of the counter bank in one clock cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CounterBankInputs<R: Record> {
    /// Synchronous reset: cancels in-flight updates and the read-out, then clears both copies.
    pub reset: bool,
    /// An update is offered.
    pub upd_valid: bool,
    /// Row to update.
    pub upd_row: u32,
    /// Operand (same layout as the record).
    pub upd_op: R,
    /// Request an epoch flip (taken when `flip_ready`).
    pub flip: bool,
    /// The read-out consumer takes the presented row.
    pub ro_ready: bool,
    /// Clears the sticky overflow flag.
    pub ovf_clear: bool,
    /// Hold the frozen copy after the drain instead of streaming it out, so
    /// that `q_row` can read it at random (the SVBF's query port).
    pub hold: bool,
    /// Leave the hold: the frozen copy streams out and clears.
    pub release: bool,
    /// Row of the frozen copy to read while it is held; `q_data` has it three clocks later.
    pub q_row: u32,
}

/// Outputs of the counter bank in one clock cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CounterBankOutputs<R: Record> {
    /// Updates are accepted (low only while clearing after reset).
    pub upd_ready: bool,
    /// A flip would be taken now: the frozen copy has been read out and cleared.
    pub flip_ready: bool,
    /// Which copy is live (toggles on every flip).
    pub epoch: bool,
    /// A row of the frozen copy is presented.
    pub ro_valid: bool,
    /// Its row index (meaningful when `ro_valid`).
    pub ro_row: u32,
    /// Its contents (meaningful when `ro_valid`).
    pub ro_data: R,
    /// It is the last row (meaningful when `ro_valid`).
    pub ro_last: bool,
    /// A count overflowed since the flag was last cleared.
    pub ovf_sticky: bool,
    /// The frozen copy is held (drained, not yet released): `q_row` reads it.
    pub held: bool,
    /// The frozen copy's row at the `q_row` of three clocks before.
    pub q_data: R,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ReadOut {
    Idle,
    Drain(u8),
    Hold,
    Stream,
}

/// Cycles between a taken flip and the first read of the frozen copy: the
/// updates still in the pipeline write the old copy first (the last one at the
/// end of the sixth cycle after the flip: its result enters the RAM's write
/// register after five and lands one clock later).
const DRAIN_CYCLES: u8 = 6;
/// Read-out buffer entries: two reads in flight plus the row presented.
const RO_BUFFER: usize = 3;
/// Most extra read stages behind the block RAM (`hdl::common::block_ram::MAX_EXTRA_STAGES`).
pub const MAX_READ_STAGES: usize = 2;

/// Cycle-accurate model of the counter bank block (see `docs/cores/counter-bank.md`).
#[derive(Clone, Debug)]
pub struct CounterBankCycle<R: Record> {
    store: BankStore<R>,
    init_done: bool,
    init_ptr: usize,
    epoch: usize,
    ro: ReadOut,
    rd_ptr: usize,
    issued_all: bool,
    /// Extra read stages e: every read takes e clocks more (module doc of the RTL's `RmwBank`).
    extra: usize,
    /// Reads in flight: `[0]` issued last cycle (its row is cleared this cycle), the
    /// last (issued 2 + e cycles ago) enters the buffer this cycle.
    inflight: [Option<(usize, R)>; 2 + MAX_READ_STAGES],
    /// Read-out buffer: 3 + e entries.
    buf: [(usize, R); RO_BUFFER + MAX_READ_STAGES],
    buf_count: usize,
    sa: Option<(usize, R, usize)>,
    /// Updates between sa and s1 while their data passes the extra read stages (the first e slots).
    mid: [Option<(usize, R, usize)>; MAX_READ_STAGES],
    s1: Option<(usize, R, usize)>,
    s2: Option<(usize, R, usize)>,
    s3: Option<(usize, R, usize)>,
    ovf: bool,
    /// Frozen-copy reads at `q_row` of one, two, … and 3 + e clocks before (the first 3 + e slots).
    q_pipe: [R; 3 + MAX_READ_STAGES],
}

impl<R: Record> CounterBankCycle<R> {
    /// The block at power-up: clearing both copies, as after a reset.
    pub fn new(rows: usize, layout: R::Layout) -> Self {
        Self::with_read_stages(rows, layout, 0)
    }

    /// The block at power-up with `extra` (0..=[`MAX_READ_STAGES`]) more
    /// pipeline registers behind its block RAM: updates and reads take
    /// `extra` clocks more, the drain `6 + extra` cycles, and the read-out
    /// buffer has `3 + extra` entries (one row per clock still).
    pub fn with_read_stages(rows: usize, layout: R::Layout, extra: usize) -> Self {
        assert!(extra <= MAX_READ_STAGES, "at most {MAX_READ_STAGES} extra read stages");
        Self::with_store(BankStore::new(rows, layout), extra)
    }

    /// Control state as after a reset, around an existing memory.
    fn with_store(store: BankStore<R>, extra: usize) -> Self {
        Self {
            store,
            extra,
            init_done: false,
            init_ptr: 0,
            epoch: 0,
            ro: ReadOut::Idle,
            rd_ptr: 0,
            issued_all: false,
            inflight: [None; 2 + MAX_READ_STAGES],
            buf: [(0, R::default()); RO_BUFFER + MAX_READ_STAGES],
            buf_count: 0,
            sa: None,
            mid: [None; MAX_READ_STAGES],
            s1: None,
            s2: None,
            s3: None,
            ovf: false,
            q_pipe: [R::default(); 3 + MAX_READ_STAGES],
        }
    }

    /// The memory as the model sees it.
    pub fn store(&self) -> &BankStore<R> {
        &self.store
    }

    /// The outputs during this cycle (from the registered state; `step` returns the same).
    pub fn outputs(&self) -> CounterBankOutputs<R> {
        let rows = self.store.rows();
        CounterBankOutputs {
            upd_ready: self.init_done,
            flip_ready: self.init_done && self.ro == ReadOut::Idle,
            epoch: self.epoch == 1,
            ro_valid: self.buf_count > 0,
            ro_row: self.buf[0].0 as u32,
            ro_data: self.buf[0].1,
            ro_last: self.buf[0].0 == rows - 1,
            ovf_sticky: self.ovf,
            held: self.ro == ReadOut::Hold,
            q_data: self.q_pipe[2 + self.extra],
        }
    }

    /// One clock: returns the outputs seen during this cycle, then advances.
    pub fn step(&mut self, i: &CounterBankInputs<R>) -> CounterBankOutputs<R> {
        let rows = self.store.rows();
        let out = self.outputs();
        if i.reset {
            // Control state resets; the memory is left to the clear sequence that follows.
            let layout = self.store.layout;
            let store = std::mem::replace(&mut self.store, BankStore::new(0, layout));
            *self = Self::with_store(store, self.extra);
            return out;
        }
        // Stage 3: the read-modify-write lands (the RTL registers the result and
        // writes its RAM one cycle later; forwarding makes that invisible).
        let mut ovf_set = false;
        if let Some((row, op, copy)) = self.s3.take() {
            ovf_set = self.store.apply(copy, row, &op);
        }
        self.ovf = (self.ovf && !i.ovf_clear) || ovf_set;
        // Clear after reset: one row of both copies per cycle, then one cycle for
        // the last clear write to land (the RAM's write port is registered).
        if !self.init_done {
            if self.init_ptr < rows {
                self.store.clear_row(0, self.init_ptr);
                self.store.clear_row(1, self.init_ptr);
            }
            self.init_done = self.init_ptr == rows;
            self.init_ptr += 1;
        }
        // Read-out of the frozen copy, clearing each row after it is read.
        let frozen = 1 - self.epoch;
        // The frozen copy's read port: the query row while held (read through
        // the address and data registers: 3 + e clocks), else the read pointer.
        self.q_pipe.copy_within(0..2 + self.extra, 1);
        self.q_pipe[0] = if self.ro == ReadOut::Hold && (i.q_row as usize) < rows {
            self.store.get(frozen, i.q_row as usize)
        } else {
            R::default()
        };
        match self.ro {
            ReadOut::Idle => {}
            ReadOut::Drain(n) => {
                self.ro = if n + 1 < DRAIN_CYCLES + self.extra as u8 {
                    ReadOut::Drain(n + 1)
                } else if i.hold {
                    ReadOut::Hold
                } else {
                    ReadOut::Stream
                };
                self.rd_ptr = 0;
                self.issued_all = false;
            }
            ReadOut::Hold => {
                if i.release {
                    self.ro = ReadOut::Stream;
                }
            }
            ReadOut::Stream => {
                // A read issued at t is cleared at t+1 and buffered at t+2+e; a read
                // is issued when the buffer has room for everything in flight.
                let depth = 2 + self.extra;
                let pop = self.buf_count > 0 && i.ro_ready;
                let in_flight = self.inflight[..depth].iter().filter(|r| r.is_some()).count();
                let issue = !self.issued_all && self.buf_count + in_flight - (pop as usize) < RO_BUFFER + self.extra;
                let done = self.issued_all && in_flight == 0 && self.buf_count == 0;
                if pop {
                    self.buf.copy_within(1.., 0);
                    self.buf_count -= 1;
                }
                if let Some((row, data)) = self.inflight[depth - 1].take() {
                    self.buf[self.buf_count] = (row, data);
                    self.buf_count += 1;
                }
                for k in (1..depth).rev() {
                    self.inflight[k] = self.inflight[k - 1].take();
                }
                if let Some((row, _)) = self.inflight[1] {
                    self.store.clear_row(frozen, row);
                }
                if issue {
                    self.inflight[0] = Some((self.rd_ptr, self.store.get(frozen, self.rd_ptr)));
                    self.issued_all = self.rd_ptr == rows - 1;
                    self.rd_ptr += 1;
                }
                if done {
                    self.ro = ReadOut::Idle;
                }
            }
        }
        // Stage 0 -> a (-> b -> c: the extra read stages) -> 1 -> 2 -> 3, and the flip (after
        // stage 0 took its copy).
        // `out` holds this cycle's registered state: the clear step above may
        // have just finished, but the RTL accepts only from the next cycle.
        let accept = i.upd_valid && out.upd_ready;
        self.s3 = self.s2.take();
        self.s2 = self.s1.take();
        let e = self.extra;
        if e == 0 {
            self.s1 = self.sa.take();
        } else {
            self.s1 = self.mid[e - 1].take();
            self.mid.copy_within(0..e - 1, 1);
            self.mid[0] = self.sa.take();
        }
        if accept {
            self.sa = Some((i.upd_row as usize, i.upd_op, self.epoch));
        }
        if i.flip && out.flip_ready {
            self.epoch ^= 1;
            self.ro = ReadOut::Drain(0);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const L: CountSumLayout = CountSumLayout { count_bits: 32, tsum_bits: 40 };

    fn op(count: u64, tsum: u64) -> CountSum {
        CountSum { count, tsum }
    }

    fn idle() -> CounterBankInputs<CountSum> {
        CounterBankInputs { ro_ready: true, ..Default::default() }
    }

    #[test]
    fn count_sum_wraps_and_flags() {
        let mut r = CountSum { count: u32::MAX as u64, tsum: (1 << 40) - 1 };
        assert!(r.apply(&op(1, 2), &L));
        assert_eq!(r, op(0, 1));
        assert!(!r.apply(&op(5, 0), &L));
        let w = op(0xDEAD_BEEF, 0xAB_CDEF_0123).pack(&L);
        assert_eq!(w[0], 0xDEAD_BEEF);
        assert_eq!(w[1], 0xCDEF_0123);
        assert_eq!(w[2], 0xAB);
    }

    /// Runs the model, returns the read-out of one epoch in which `updates` were made.
    fn one_epoch(rows: usize, updates: &[(u32, CountSum)]) -> Vec<(u32, CountSum)> {
        let mut m = CounterBankCycle::<CountSum>::new(rows, L);
        let mut cycles = 0;
        while !m.step(&idle()).upd_ready {
            cycles += 1;
        }
        assert_eq!(cycles, rows + 1, "clear after power-up takes one cycle per row and one to land");
        for (row, o) in updates {
            let out = m.step(&CounterBankInputs { upd_valid: true, upd_row: *row, upd_op: *o, ..idle() });
            assert!(out.upd_ready);
        }
        let out = m.step(&CounterBankInputs { flip: true, ..idle() });
        assert!(out.flip_ready);
        let mut got = Vec::new();
        for _ in 0..rows * 2 + 10 {
            let out = m.step(&idle());
            if out.ro_valid {
                got.push((out.ro_row, out.ro_data));
                if out.ro_last {
                    break;
                }
            }
        }
        got
    }

    #[test]
    fn update_offered_before_the_last_clear_has_landed_is_not_taken() {
        let mut m = CounterBankCycle::<CountSum>::new(3, L);
        let upd = CounterBankInputs { upd_valid: true, upd_row: 1, upd_op: op(1, 1), ..idle() };
        let ready: Vec<bool> = (0..6).map(|_| m.step(&upd).upd_ready).collect();
        assert_eq!(ready, vec![false, false, false, false, true, true]);
        for _ in 0..4 {
            m.step(&idle());
        }
        assert_eq!(m.store().get(0, 1), op(2, 2), "only the two updates offered while ready count");
    }

    #[test]
    fn back_to_back_same_row_updates_all_count() {
        let ups: Vec<_> = (0..10).map(|i| (3, op(1, 100 + i))).collect();
        let got = one_epoch(8, &ups);
        assert_eq!(got.len(), 8);
        assert_eq!(got[3], (3, op(10, (100..110).sum())));
        assert!(got.iter().enumerate().all(|(i, (r, d))| *r == i as u32 && (i == 3 || *d == CountSum::default())));
    }

    #[test]
    fn readout_streams_one_row_per_cycle_and_clears() {
        for e in 0..=MAX_READ_STAGES {
            let mut m = CounterBankCycle::<CountSum>::with_read_stages(16, L, e);
            while !m.step(&idle()).upd_ready {}
            // Back to back, the last one offered with the flip: all land in the old copy.
            for r in 0..16 {
                m.step(&CounterBankInputs {
                    upd_valid: true,
                    upd_row: r,
                    upd_op: op(1, r as u64),
                    flip: r == 15,
                    ..idle()
                });
            }
            // Cycle c of this loop is c + 1 cycles after the flip.
            let mut valid_cycles = Vec::new();
            let mut ready_again = None;
            for c in 0..50 {
                let o = m.step(&idle());
                if o.ro_valid {
                    valid_cycles.push(c);
                    assert_eq!(o.ro_data, op(1, o.ro_row as u64), "e = {e}");
                }
                if o.flip_ready && ready_again.is_none() {
                    ready_again = Some(c + 1);
                }
            }
            assert_eq!(valid_cycles.len(), 16);
            // Each extra read stage lengthens the drain and the read by a clock.
            assert_eq!(
                valid_cycles[0] + 1,
                10 + 2 * e,
                "first row 10 + 2e cycles after the flip (docs/cores/counter-bank.md)"
            );
            assert!(valid_cycles.windows(2).all(|w| w[1] == w[0] + 1), "e = {e}: {valid_cycles:?}");
            assert_eq!(ready_again, Some(16 + 11 + 2 * e), "flip_ready returns rows + 11 + 2e cycles after the flip");
            assert!(m.store().copy(0).iter().all(|r| *r == CountSum::default()), "frozen copy cleared");
        }
    }

    #[test]
    fn held_copy_answers_queries_after_three_clocks_plus_the_extra_stages() {
        for e in 0..=MAX_READ_STAGES {
            let mut m = CounterBankCycle::<CountSum>::with_read_stages(8, L, e);
            while !m.step(&idle()).upd_ready {}
            for r in 0..8 {
                m.step(&CounterBankInputs { upd_valid: true, upd_row: r, upd_op: op(1, 10 + r as u64), ..idle() });
            }
            m.step(&CounterBankInputs { flip: true, hold: true, ..idle() });
            while !m.step(&CounterBankInputs { hold: true, ..idle() }).held {}
            // Query rows 0..8 on consecutive clocks; row r's answer appears 3 + e clocks after.
            let mut answers = Vec::new();
            for c in 0..8 + 3 + e as u32 {
                let o = m.step(&CounterBankInputs { q_row: c % 8, ..idle() });
                answers.push(o.q_data);
            }
            for r in 0..8usize {
                assert_eq!(answers[r + 3 + e], op(1, 10 + r as u64), "e = {e}, row {r}");
                if r > 0 {
                    assert_ne!(answers[r + 2 + e], op(1, 10 + r as u64), "e = {e}: row {r} answered a clock early");
                }
            }
        }
    }

    #[test]
    fn readout_holds_under_backpressure() {
        let mut m = CounterBankCycle::<CountSum>::new(4, L);
        while !m.step(&idle()).upd_ready {}
        m.step(&CounterBankInputs { upd_valid: true, upd_row: 2, upd_op: op(7, 9), ..idle() });
        m.step(&CounterBankInputs { flip: true, ..idle() });
        let stall = CounterBankInputs { ro_ready: false, ..idle() };
        for _ in 0..20 {
            let o = m.step(&stall);
            assert!(!o.flip_ready);
        }
        let mut rows = Vec::new();
        for _ in 0..10 {
            let o = m.step(&idle());
            if o.ro_valid {
                rows.push((o.ro_row, o.ro_data));
            }
        }
        assert_eq!(rows, vec![(0, op(0, 0)), (1, op(0, 0)), (2, op(7, 9)), (3, op(0, 0))]);
    }

    #[test]
    fn flip_is_atomic_between_updates() {
        // The update offered in the flip cycle belongs to the old epoch; the next one to the new.
        let mut m = CounterBankCycle::<CountSum>::new(2, L);
        while !m.step(&idle()).upd_ready {}
        m.step(&CounterBankInputs { upd_valid: true, upd_row: 0, upd_op: op(1, 1), flip: true, ..idle() });
        m.step(&CounterBankInputs { upd_valid: true, upd_row: 0, upd_op: op(1, 2), ..idle() });
        let mut got = Vec::new();
        for _ in 0..10 {
            let o = m.step(&idle());
            if o.ro_valid {
                got.push(o.ro_data);
            }
        }
        assert_eq!(got, vec![op(1, 1), op(0, 0)]);
        assert_eq!(m.store().get(1, 0), op(1, 2));
    }

    #[test]
    fn overflow_is_sticky_until_cleared() {
        let l = CountSumLayout { count_bits: 16, tsum_bits: 32 };
        let mut m = CounterBankCycle::<CountSum>::new(2, l);
        while !m.step(&idle()).upd_ready {}
        m.step(&CounterBankInputs { upd_valid: true, upd_row: 1, upd_op: op(0xFFFF, 0), ..idle() });
        m.step(&CounterBankInputs { upd_valid: true, upd_row: 1, upd_op: op(1, 0), ..idle() });
        // The overflowing update computes in s3 (fourth cycle after it was
        // offered); the flag shows from the next cycle on.
        let flags: Vec<bool> = (0..6).map(|_| m.step(&idle()).ovf_sticky).collect();
        assert_eq!(flags, vec![false, false, false, false, true, true]);
        m.step(&CounterBankInputs { ovf_clear: true, ..idle() });
        assert!(!m.step(&idle()).ovf_sticky);
    }

    #[test]
    fn bad_configs_name_the_field() {
        let e = CounterBankConfig { rows: 0, ..Default::default() }.validate().unwrap_err();
        assert_eq!(e.field, "rows");
        let e = CounterBankConfig { rows: 1025, addr_bits: Some(10), ..Default::default() }.validate().unwrap_err();
        assert_eq!(e.field, "rows");
        let e = CounterBankConfig { count_bits: 0, ..Default::default() }.validate().unwrap_err();
        assert_eq!(e.field, "count_bits");
        let e = CounterBankConfig { tsum_bits: 65, ..Default::default() }.validate().unwrap_err();
        assert_eq!(e.field, "tsum_bits");
        let e = CounterBankConfig { addr_bits: Some(17), rows: 4, ..Default::default() }.validate().unwrap_err();
        assert_eq!(e.field, "addr_bits");
        assert_eq!(CounterBankConfig::default().addr_bits(), 10);
        assert_eq!(CounterBankConfig { rows: 1025, ..Default::default() }.addr_bits(), 11);
        assert_eq!(CounterBankConfig { rows: 1, ..Default::default() }.addr_bits(), 1);
        CounterBankConfig::default().validate().unwrap();
    }
}

//! Read-modify-write bank: the storage engine of every netmeas core.
//!
//! `2^A` rows of `W`-bit records in two block-RAM copies (ping-pong, Kompella
//! et al. §V: "two copies of the counters" so one is read out while the other
//! counts). One update per clock, back-to-back updates to one row included.
//! The record arithmetic is not fixed here: the parent closes the `alu_*` ports
//! combinationally (old record, operand → new record, overflow), so the LDA's
//! {count, tsum}, the RDA's {ID xor, tsum, count} and the fridges' entries all
//! reuse this pipeline.
//!
//! Timing discipline: every block-RAM input comes straight from a register
//! and every block-RAM output goes straight into one, with no logic in
//! between (inside [`BlockRam`]: an address register in front of each depth
//! slice, a data register behind it, registered write ports). The copy and
//! depth-slice selections happen before and after those registers.
//!
//! Update pipeline (one update, six cycles, and the RAM's write register):
//! - **s0** `s_upd_*` accepted; the live copy's address registers take the row.
//! - **sa** the live copy reads the row.
//! - **s1** RAM data registered behind each slice of both copies; the row is
//!   compared with the five older updates whose writes this read cannot have
//!   seen.
//! - **s2** `base` register = the newest matching result of the updates two
//!   to five ahead (`w_data` … `w4_data`), else the live copy's read data:
//!   six candidates under one-hot selects registered in s1, merged by an OR
//!   (with the RAM's AND-OR over its slices, one flat AND-OR behind registers).
//! - **s3** the row's current record is the result of the update one ahead
//!   (`alu_old_fwd`, i.e. `w_data`) if `alu_fwd`, else `alu_old_base`. The bank
//!   hands the parent both candidates and the select, and the parent's result
//!   is registered into `w_data`. Where the select goes is the parent's choice:
//!   before a narrow operation (one 2:1 mux in front of it), or after a wide add
//!   or compare computed on both candidates, so the `w_data` → `w_data` loop
//!   holds the operation and one mux (the fridges' 64-bit histogram sums and
//!   32-bit ID compare).
//! - **w**  `w_data` enters the RAM's write register; it lands one clock later.
//!
//! A read at edge E sees the writes that landed before E. The writes of the
//! five older updates still in flight (the one landing at E itself included)
//! are forwarded, so the RAM's same-address collision value is never observed
//! (see `BlockRam`).
//!
//! Read stages ([`RmwBank::with_read_stages`]): with e = 1 or 2 extra
//! pipeline registers behind each block-RAM slice (`BlockRam::with_stages`,
//! for memories wide and deep enough that the register behind a block is
//! placed far from it), the update waits e more clocks between **sa** and
//! **s1** (stages `sb`, `sc`), 5 + e older updates are forwarded (`w5`,
//! `w6`), the drain takes 6 + e cycles, a read-out or query read takes e
//! more clocks and the read-out buffer has 3 + e entries, so the frozen copy
//! still streams one row per clock.
//!
//! Epoch flip (`flip` && `flip_ready`): atomic between two updates. The update
//! offered in the flip cycle goes to the old copy; from the next cycle on,
//! updates go to the other copy. After six drain cycles (the old copy's last
//! writes), the frozen copy streams out on `m_ro_*` (valid/ready, one row per
//! clock, 3-entry output buffer managed by credits: the frozen copy's address
//! registers take the read pointer's next value, so a read issued at t has its
//! data at t + 2; what the issue needs, credits left and rows left, and the
//! pointer's successor are registered a clock ahead, so the issue is one LUT
//! of registers and the address a mux behind it) and every row is zeroed the
//! cycle after it is read. `flip_ready` rises again when the
//! stream is done and the copy is clean. With `hold` high at the end of the
//! drain, the frozen copy is *held* instead (`held`): its read port serves
//! `q_row` (data on `q_data` three clocks later) until `release_frozen`, and only
//! then streams out and clears (the SVBF's query port). After reset (and at power-up) both
//! copies are zeroed, one row per clock, with `s_upd_ready` low until the
//! last clear write has landed (rows + 1 clocks).

use super::block_ram::{BlockRam, MAX_EXTRA_STAGES};
use super::clear_sequence::ClearSequence;
use rust_hdl::prelude::*;

/// Read-out state: idle (frozen copy clean), draining the pipeline, streaming,
/// held for random reads (`hold`).
const RO_IDLE: u64 = 0;
const RO_DRAIN: u64 = 1;
const RO_STREAM: u64 = 2;
const RO_HOLD: u64 = 3;
/// Drain cycles after a flip, minus one: the old copy's last write lands at the end of the
/// sixth (plus one per extra read stage).
const DRAIN_LAST: u64 = 5;
/// Clocks from the clock a bank with `extra` read stages takes a flip (`flip` &&
/// `flip_ready`) to the first clock it reports `held` (`hold` high): the 6 + `extra`
/// drain clocks and the state register. A parent that tracks the hold in its
/// own register (the SVBF core) counts these.
pub const fn flip_to_held(extra: usize) -> usize {
    DRAIN_LAST as usize + extra + 2
}
/// Entries of the read-out buffer: reads in flight (2, plus one per extra read stage) + the one presented.
const RO_CREDITS: u64 = 3;

/// Generic read-modify-write bank of `2^A` × `W`-bit records, two copies.
#[derive(LogicBlock)]
pub struct RmwBank<const W: usize, const A: usize> {
    // --- clock and synchronous reset ---
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: drops in-flight updates and the read-out, then clears both copies.
    pub reset: Signal<In, Bit>,
    // --- update stream (s0) ---
    /// An update is offered.
    pub s_upd_valid: Signal<In, Bit>,
    /// Updates are accepted (low only while clearing after reset).
    pub s_upd_ready: Signal<Out, Bit>,
    /// Row to update.
    pub s_upd_row: Signal<In, Bits<A>>,
    /// Operand, interpreted by the parent's record arithmetic.
    pub s_upd_op: Signal<In, Bits<W>>,
    // --- record arithmetic, closed combinationally by the parent (s3) ---
    /// The row's current record is `alu_old_fwd` (else `alu_old_base`).
    pub alu_fwd: Signal<Out, Bit>,
    /// The result of the update one ahead, forwarded when it hit the same row.
    pub alu_old_fwd: Signal<Out, Bits<W>>,
    /// The forwarded result of the update two to 5 + e ahead, else the RAM's record.
    pub alu_old_base: Signal<Out, Bits<W>>,
    /// The update's operand.
    pub alu_op: Signal<Out, Bits<W>>,
    /// The new record, registered at the end of the cycle and written one cycle later.
    pub alu_new: Signal<In, Bits<W>>,
    /// The update overflowed a field that must not wrap.
    pub alu_ovf: Signal<In, Bit>,
    // --- epochs ---
    /// Request an epoch flip.
    pub flip: Signal<In, Bit>,
    /// A flip is taken this cycle if requested.
    pub flip_ready: Signal<Out, Bit>,
    /// The live copy (toggles on every flip).
    pub epoch: Signal<Out, Bit>,
    // --- read-out stream of the frozen copy ---
    /// A row is presented.
    pub m_ro_valid: Signal<Out, Bit>,
    /// The consumer takes it.
    pub m_ro_ready: Signal<In, Bit>,
    /// Its row index.
    pub m_ro_row: Signal<Out, Bits<A>>,
    /// Its record.
    pub m_ro_data: Signal<Out, Bits<W>>,
    /// It is the last row.
    pub m_ro_last: Signal<Out, Bit>,
    // --- random reads of a held frozen copy ---
    /// Hold the frozen copy after the drain instead of streaming it (sampled when the drain ends).
    pub hold: Signal<In, Bit>,
    /// Leave the hold: stream out and clear.
    pub release_frozen: Signal<In, Bit>,
    /// The frozen copy is held.
    pub held: Signal<Out, Bit>,
    /// Row to read while held.
    pub q_row: Signal<In, Bits<A>>,
    /// The frozen copy's read data: the row at `q_row` three clocks (plus the extra read stages) before, while held.
    pub q_data: Signal<Out, Bits<W>>,
    // --- status ---
    /// A record overflowed since the flag was last cleared.
    pub ovf_sticky: Signal<Out, Bit>,
    /// Clear the sticky overflow flag (a simultaneous overflow wins).
    pub ovf_clear: Signal<In, Bit>,
    // --- memories (read latency three plus the extra stages: their address and output registers are inside) ---
    ram0: BlockRam<W, A>,
    ram1: BlockRam<W, A>,
    // --- sized constants ---
    last_row: Constant<Bits<A>>,
    one_a: Constant<Bits<A>>,
    zero_a: Constant<Bits<A>>,
    zero_w: Constant<Bits<W>>,
    ro_idle: Constant<Bits<2>>,
    ro_drain: Constant<Bits<2>>,
    ro_stream: Constant<Bits<2>>,
    ro_hold: Constant<Bits<2>>,
    drain_last: Constant<Bits<3>>,
    one_3: Constant<Bits<3>>,
    zero_3: Constant<Bits<3>>,
    one_2: Constant<Bits<2>>,
    zero_2: Constant<Bits<2>>,
    credits_full: Constant<Bits<2>>,
    credits_full_x: Constant<Bits<3>>,
    /// At least one / two extra read stages (the stages and forwards they need are removed by synthesis otherwise).
    extra1: Constant<Bit>,
    extra2: Constant<Bit>,
    // --- control state ---
    /// Clear after reset: the row zeroed now, and "every row is clear".
    clear: ClearSequence<A>,
    epoch_q: DFF<Bit>,
    ovf_q: DFF<Bit>,
    // --- read-out state ---
    ro_state: DFF<Bits<2>>,
    drain_cnt: DFF<Bits<3>>,
    rd_ptr: DFF<Bits<A>>,
    issued_all: DFF<Bit>,
    credits: DFF<Bits<2>>,
    /// The credits with extra read stages (3 + e of them need a third bit).
    credits_x: DFF<Bits<3>>,
    /// Registered ahead, so a read-out issue is one LUT of registers and the frozen copy's
    /// address a mux behind it: `rd_ptr` + 1, credits left, streaming with rows left to
    /// issue (whichever credit counter the bank uses), and held (`ro_state` is hold).
    rd_next: DFF<Bits<A>>,
    credit_q: DFF<Bit>,
    ro_go: DFF<Bit>,
    in_hold: DFF<Bit>,
    inf1_valid: DFF<Bit>,
    inf1_row: DFF<Bits<A>>,
    inf2_valid: DFF<Bit>,
    inf2_row: DFF<Bits<A>>,
    inf3_valid: DFF<Bit>,
    inf3_row: DFF<Bits<A>>,
    inf4_valid: DFF<Bit>,
    inf4_row: DFF<Bits<A>>,
    b0_valid: DFF<Bit>,
    b0_row: DFF<Bits<A>>,
    b0_data: DFF<Bits<W>>,
    b1_valid: DFF<Bit>,
    b1_row: DFF<Bits<A>>,
    b1_data: DFF<Bits<W>>,
    b2_valid: DFF<Bit>,
    b2_row: DFF<Bits<A>>,
    b2_data: DFF<Bits<W>>,
    b3_valid: DFF<Bit>,
    b3_row: DFF<Bits<A>>,
    b3_data: DFF<Bits<W>>,
    b4_valid: DFF<Bit>,
    b4_row: DFF<Bits<A>>,
    b4_data: DFF<Bits<W>>,
    // --- update pipeline ---
    sa_valid: DFF<Bit>,
    sa_row: DFF<Bits<A>>,
    sa_op: DFF<Bits<W>>,
    sa_ep: DFF<Bit>,
    sb_valid: DFF<Bit>,
    sb_row: DFF<Bits<A>>,
    sb_op: DFF<Bits<W>>,
    sb_ep: DFF<Bit>,
    sc_valid: DFF<Bit>,
    sc_row: DFF<Bits<A>>,
    sc_op: DFF<Bits<W>>,
    sc_ep: DFF<Bit>,
    s1_valid: DFF<Bit>,
    s1_row: DFF<Bits<A>>,
    s1_op: DFF<Bits<W>>,
    s1_ep: DFF<Bit>,
    s2_valid: DFF<Bit>,
    s2_row: DFF<Bits<A>>,
    s2_op: DFF<Bits<W>>,
    s2_ep: DFF<Bit>,
    s2_fwd1: DFF<Bit>,
    s2_hit2: DFF<Bit>,
    s2_hit3: DFF<Bit>,
    s2_hit4: DFF<Bit>,
    s2_hit5: DFF<Bit>,
    s2_hit6: DFF<Bit>,
    s2_hit7: DFF<Bit>,
    /// With extra read stages, s1's compares made a clock ahead, on the update entering s1.
    e_hit2: DFF<Bit>,
    e_hit3: DFF<Bit>,
    e_hit4: DFF<Bit>,
    e_hit5: DFF<Bit>,
    e_hit6: DFF<Bit>,
    e_hit7: DFF<Bit>,
    s2_ram0: DFF<Bit>,
    s2_ram1: DFF<Bit>,
    s3_valid: DFF<Bit>,
    s3_row: DFF<Bits<A>>,
    s3_op: DFF<Bits<W>>,
    s3_ep: DFF<Bit>,
    s3_fwd1: DFF<Bit>,
    s3_base: DFF<Bits<W>>,
    w_valid: DFF<Bit>,
    w_row: DFF<Bits<A>>,
    w_ep: DFF<Bit>,
    w_data: DFF<Bits<W>>,
    w2_valid: DFF<Bit>,
    w2_row: DFF<Bits<A>>,
    w2_ep: DFF<Bit>,
    w2_data: DFF<Bits<W>>,
    w3_valid: DFF<Bit>,
    w3_row: DFF<Bits<A>>,
    w3_ep: DFF<Bit>,
    w3_data: DFF<Bits<W>>,
    w4_valid: DFF<Bit>,
    w4_row: DFF<Bits<A>>,
    w4_ep: DFF<Bit>,
    w4_data: DFF<Bits<W>>,
    w5_valid: DFF<Bit>,
    w5_row: DFF<Bits<A>>,
    w5_ep: DFF<Bit>,
    w5_data: DFF<Bits<W>>,
    w6_data: DFF<Bits<W>>,
    /// The update in w writes copy 0 / copy 1: `w_valid` and `w_ep` decoded a
    /// clock early, so the write enables start at a register beside the RAMs.
    w_write0: DFF<Bit>,
    w_write1: DFF<Bit>,
    // --- combinational helpers ---
    accept: Signal<Local, Bit>,
    /// The update entering s1 next clock (from sa, or from sb or sc behind the extra read stages).
    r_valid: Signal<Local, Bit>,
    r_row: Signal<Local, Bits<A>>,
    r_op: Signal<Local, Bits<W>>,
    r_ep: Signal<Local, Bit>,
    hit2: Signal<Local, Bit>,
    hit3: Signal<Local, Bit>,
    hit4: Signal<Local, Bit>,
    hit5: Signal<Local, Bit>,
    hit6: Signal<Local, Bit>,
    hit7: Signal<Local, Bit>,
    no_fwd: Signal<Local, Bit>,
    base_fwd2: Signal<Local, Bits<W>>,
    base_fwd3: Signal<Local, Bits<W>>,
    base_fwd4: Signal<Local, Bits<W>>,
    base_fwd5: Signal<Local, Bits<W>>,
    base_fwd6: Signal<Local, Bits<W>>,
    base_fwd7: Signal<Local, Bits<W>>,
    base_ram0: Signal<Local, Bits<W>>,
    base_ram1: Signal<Local, Bits<W>>,
    pop: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
    ins0: Signal<Local, Bit>,
    ins1: Signal<Local, Bit>,
    ins2: Signal<Local, Bit>,
    ins3: Signal<Local, Bit>,
    ins4: Signal<Local, Bit>,
    /// The read-out read whose data arrives now (issued 2 + e clocks ago).
    arr_valid: Signal<Local, Bit>,
    arr_row: Signal<Local, Bits<A>>,
    frozen_data: Signal<Local, Bits<W>>,
    clear_addr: Signal<Local, Bits<A>>,
    frozen_addr: Signal<Local, Bits<A>>,
}

impl<const W: usize, const A: usize> RmwBank<W, A> {
    /// A bank whose copies hold `rows` rows (1..=2^A).
    pub fn new(rows: usize) -> Self {
        Self::with_copies(rows, rows, 0)
    }

    /// A bank whose copies hold `rows` rows, read through `extra` (0..=2)
    /// more pipeline registers behind each block-RAM slice (see the module
    /// doc): for wide, deep memories whose blocks spread over the die.
    pub fn with_read_stages(rows: usize, extra: usize) -> Self {
        Self::with_copies(rows, rows, extra)
    }

    /// A bank of one copy of `rows` rows for state that has no epochs (the
    /// fridges' entries): `flip` must stay low, so copy 0 stays live and the
    /// read-out never starts; the second copy shrinks to one unused word that
    /// synthesis removes with the read-out logic.
    pub fn single(rows: usize) -> Self {
        Self::with_copies(rows, 1, 0)
    }

    /// The same bank with one read-address register in front of all block-RAM
    /// slices of each copy ([`BlockRam::with_one_read_address_register`]): for a
    /// frozen copy read at rows computed by deep logic (the SVBF partitions'
    /// query rows), whose per-slice load enables would otherwise fan out from
    /// that logic to every slice. Same cycle behaviour.
    pub fn with_one_read_address_register(mut self) -> Self {
        self.ram0 = self.ram0.with_one_read_address_register();
        self.ram1 = self.ram1.with_one_read_address_register();
        self
    }

    /// The same bank whose frozen-copy reads (`q_data`, the read-out) come from a
    /// second select over each copy's block-RAM slices ([`BlockRam::with_second_read_select`]),
    /// not the one the forwarding select in front of `s3_base` merges with: for a
    /// bank read at both (the SVBF partitions' inserts and queries), the two
    /// selects then share no gate. Same cycle behaviour.
    pub fn with_second_read_select(mut self) -> Self {
        self.ram0 = self.ram0.with_second_read_select();
        self.ram1 = self.ram1.with_second_read_select();
        self
    }

    fn with_copies(rows: usize, rows1: usize, extra: usize) -> Self {
        assert!(rows >= 1 && rows <= 1 << A, "rows must be in 1..=2^A");
        assert!(extra <= MAX_EXTRA_STAGES, "at most {MAX_EXTRA_STAGES} extra read stages");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_upd_valid: Default::default(),
            s_upd_ready: Default::default(),
            s_upd_row: Default::default(),
            s_upd_op: Default::default(),
            alu_fwd: Default::default(),
            alu_old_fwd: Default::default(),
            alu_old_base: Default::default(),
            alu_op: Default::default(),
            alu_new: Default::default(),
            alu_ovf: Default::default(),
            flip: Default::default(),
            flip_ready: Default::default(),
            epoch: Default::default(),
            m_ro_valid: Default::default(),
            m_ro_ready: Default::default(),
            m_ro_row: Default::default(),
            m_ro_data: Default::default(),
            m_ro_last: Default::default(),
            hold: Default::default(),
            release_frozen: Default::default(),
            held: Default::default(),
            q_row: Default::default(),
            q_data: Default::default(),
            ovf_sticky: Default::default(),
            ovf_clear: Default::default(),
            ram0: BlockRam::with_stages(rows, extra),
            ram1: BlockRam::with_stages(rows1, extra),
            last_row: Constant::new(((rows - 1) as u64).into()),
            one_a: Constant::new(1u64.into()),
            zero_a: Constant::new(0u64.into()),
            zero_w: Constant::new(0u64.into()),
            ro_idle: Constant::new(RO_IDLE.into()),
            ro_drain: Constant::new(RO_DRAIN.into()),
            ro_stream: Constant::new(RO_STREAM.into()),
            ro_hold: Constant::new(RO_HOLD.into()),
            drain_last: Constant::new((DRAIN_LAST + extra as u64).into()),
            one_3: Constant::new(1u64.into()),
            zero_3: Constant::new(0u64.into()),
            one_2: Constant::new(1u64.into()),
            zero_2: Constant::new(0u64.into()),
            credits_full: Constant::new(RO_CREDITS.into()),
            credits_full_x: Constant::new((RO_CREDITS + extra as u64).into()),
            extra1: Constant::new(extra >= 1),
            extra2: Constant::new(extra >= 2),
            clear: ClearSequence::new(rows),
            epoch_q: Default::default(),
            ovf_q: Default::default(),
            ro_state: Default::default(),
            drain_cnt: Default::default(),
            rd_ptr: Default::default(),
            issued_all: Default::default(),
            credits: Default::default(),
            credits_x: Default::default(),
            rd_next: Default::default(),
            credit_q: Default::default(),
            ro_go: Default::default(),
            in_hold: Default::default(),
            inf1_valid: Default::default(),
            inf1_row: Default::default(),
            inf2_valid: Default::default(),
            inf2_row: Default::default(),
            inf3_valid: Default::default(),
            inf3_row: Default::default(),
            inf4_valid: Default::default(),
            inf4_row: Default::default(),
            b0_valid: Default::default(),
            b0_row: Default::default(),
            b0_data: Default::default(),
            b1_valid: Default::default(),
            b1_row: Default::default(),
            b1_data: Default::default(),
            b2_valid: Default::default(),
            b2_row: Default::default(),
            b2_data: Default::default(),
            b3_valid: Default::default(),
            b3_row: Default::default(),
            b3_data: Default::default(),
            b4_valid: Default::default(),
            b4_row: Default::default(),
            b4_data: Default::default(),
            sa_valid: Default::default(),
            sa_row: Default::default(),
            sa_op: Default::default(),
            sa_ep: Default::default(),
            sb_valid: Default::default(),
            sb_row: Default::default(),
            sb_op: Default::default(),
            sb_ep: Default::default(),
            sc_valid: Default::default(),
            sc_row: Default::default(),
            sc_op: Default::default(),
            sc_ep: Default::default(),
            s1_valid: Default::default(),
            s1_row: Default::default(),
            s1_op: Default::default(),
            s1_ep: Default::default(),
            s2_valid: Default::default(),
            s2_row: Default::default(),
            s2_op: Default::default(),
            s2_ep: Default::default(),
            s2_fwd1: Default::default(),
            s2_hit2: Default::default(),
            s2_hit3: Default::default(),
            s2_hit4: Default::default(),
            s2_hit5: Default::default(),
            s2_hit6: Default::default(),
            s2_hit7: Default::default(),
            e_hit2: Default::default(),
            e_hit3: Default::default(),
            e_hit4: Default::default(),
            e_hit5: Default::default(),
            e_hit6: Default::default(),
            e_hit7: Default::default(),
            s2_ram0: Default::default(),
            s2_ram1: Default::default(),
            s3_valid: Default::default(),
            s3_row: Default::default(),
            s3_op: Default::default(),
            s3_ep: Default::default(),
            s3_fwd1: Default::default(),
            s3_base: Default::default(),
            w_valid: Default::default(),
            w_row: Default::default(),
            w_ep: Default::default(),
            w_data: Default::default(),
            w2_valid: Default::default(),
            w2_row: Default::default(),
            w2_ep: Default::default(),
            w2_data: Default::default(),
            w3_valid: Default::default(),
            w3_row: Default::default(),
            w3_ep: Default::default(),
            w3_data: Default::default(),
            w4_valid: Default::default(),
            w4_row: Default::default(),
            w4_ep: Default::default(),
            w4_data: Default::default(),
            w5_valid: Default::default(),
            w5_row: Default::default(),
            w5_ep: Default::default(),
            w5_data: Default::default(),
            w6_data: Default::default(),
            accept: Default::default(),
            r_valid: Default::default(),
            r_row: Default::default(),
            r_op: Default::default(),
            r_ep: Default::default(),
            hit2: Default::default(),
            hit3: Default::default(),
            hit4: Default::default(),
            hit5: Default::default(),
            hit6: Default::default(),
            hit7: Default::default(),
            no_fwd: Default::default(),
            base_fwd2: Default::default(),
            base_fwd3: Default::default(),
            base_fwd4: Default::default(),
            base_fwd5: Default::default(),
            base_fwd6: Default::default(),
            base_fwd7: Default::default(),
            base_ram0: Default::default(),
            base_ram1: Default::default(),
            pop: Default::default(),
            issue: Default::default(),
            ins0: Default::default(),
            ins1: Default::default(),
            ins2: Default::default(),
            ins3: Default::default(),
            ins4: Default::default(),
            arr_valid: Default::default(),
            arr_row: Default::default(),
            frozen_data: Default::default(),
            w_write0: Default::default(),
            w_write1: Default::default(),
            clear_addr: Default::default(),
            frozen_addr: Default::default(),
        }
    }
}

impl<const W: usize, const A: usize> Logic for RmwBank<W, A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, epoch_q, ovf_q, ro_state, drain_cnt, rd_ptr, issued_all, credits, credits_x, rd_next,
            credit_q, ro_go, in_hold, inf1_valid, inf1_row, inf2_valid, inf2_row, inf3_valid, inf3_row, inf4_valid,
            inf4_row, b0_valid, b0_row, b0_data, b1_valid, b1_row, b1_data, b2_valid, b2_row, b2_data, b3_valid,
            b3_row, b3_data, b4_valid, b4_row, b4_data, sa_valid, sa_row, sa_op, sa_ep, sb_valid, sb_row, sb_op, sb_ep,
            sc_valid, sc_row, sc_op, sc_ep, s1_valid, s1_row, s1_op, s1_ep, s2_valid, s2_row, s2_op, s2_ep, s2_fwd1,
            s2_hit2, s2_hit3, s2_hit4, s2_hit5, s2_hit6, s2_hit7, e_hit2, e_hit3, e_hit4, e_hit5, e_hit6, e_hit7,
            s2_ram0, s2_ram1, s3_valid, s3_row, s3_op, s3_ep, s3_fwd1, s3_base, w_valid, w_row, w_ep, w_data, w2_valid,
            w2_row, w2_ep, w2_data, w3_valid, w3_row, w3_ep, w3_data, w4_valid, w4_row, w4_ep, w4_data, w5_valid,
            w5_row, w5_ep, w5_data, w6_data, w_write0, w_write1
        );
        self.ram0.clock.next = self.clock.val();
        self.clear.clock.next = self.clock.val();
        self.clear.reset.next = self.reset.val();
        self.ram1.clock.next = self.clock.val();

        // ---- status outputs (all from registers) ----
        self.s_upd_ready.next = self.clear.done.val();
        self.flip_ready.next = self.clear.done.val() & (self.ro_state.q.val() == self.ro_idle.val());
        self.epoch.next = self.epoch_q.q.val();
        self.ovf_sticky.next = self.ovf_q.q.val();
        self.m_ro_valid.next = self.b0_valid.q.val();
        self.m_ro_row.next = self.b0_row.q.val();
        self.m_ro_data.next = self.b0_data.q.val();
        self.m_ro_last.next = self.b0_row.q.val() == self.last_row.val();
        self.held.next = self.in_hold.q.val();

        // ---- s0: accept; the live copy's address registers take the row (below) ----
        self.accept.next = self.s_upd_valid.val() & self.clear.done.val();
        self.sa_valid.d.next = self.accept.val();
        self.sa_row.d.next = self.s_upd_row.val();
        self.sa_op.d.next = self.s_upd_op.val();
        self.sa_ep.d.next = self.epoch_q.q.val();

        // ---- sa: the live copy reads the row; sb, sc: its data passes the extra read stages ----
        self.sb_valid.d.next = self.sa_valid.q.val();
        self.sb_row.d.next = self.sa_row.q.val();
        self.sb_op.d.next = self.sa_op.q.val();
        self.sb_ep.d.next = self.sa_ep.q.val();
        self.sc_valid.d.next = self.sb_valid.q.val();
        self.sc_row.d.next = self.sb_row.q.val();
        self.sc_op.d.next = self.sb_op.q.val();
        self.sc_ep.d.next = self.sb_ep.q.val();
        self.r_valid.next = self.sa_valid.q.val();
        self.r_row.next = self.sa_row.q.val();
        self.r_op.next = self.sa_op.q.val();
        self.r_ep.next = self.sa_ep.q.val();
        if self.extra1.val() {
            self.r_valid.next = self.sb_valid.q.val();
            self.r_row.next = self.sb_row.q.val();
            self.r_op.next = self.sb_op.q.val();
            self.r_ep.next = self.sb_ep.q.val();
        }
        if self.extra2.val() {
            self.r_valid.next = self.sc_valid.q.val();
            self.r_row.next = self.sc_row.q.val();
            self.r_op.next = self.sc_op.q.val();
            self.r_ep.next = self.sc_ep.q.val();
        }
        self.s1_valid.d.next = self.r_valid.val();
        self.s1_row.d.next = self.r_row.val();
        self.s1_op.d.next = self.r_op.val();
        self.s1_ep.d.next = self.r_ep.val();

        // ---- s1: compare with the 5 + e older updates this read cannot have seen ----
        // Now one ahead is in s2, two ahead in s3, three in w, four in w2, five in w3,
        // six in w4 and seven in w5.
        self.s2_valid.d.next = self.s1_valid.q.val();
        self.s2_row.d.next = self.s1_row.q.val();
        self.s2_op.d.next = self.s1_op.q.val();
        self.s2_ep.d.next = self.s1_ep.q.val();
        self.s2_fwd1.d.next = self.s2_valid.q.val()
            & (self.s2_row.q.val() == self.s1_row.q.val())
            & (self.s2_ep.q.val() == self.s1_ep.q.val());
        if self.extra1.val() {
            // The update waited in sb/sc, so the compares were made a clock ahead: on the update
            // entering s1 against each older update one stage before where it is now.
            self.hit2.next = self.e_hit2.q.val();
            self.hit3.next = self.e_hit3.q.val();
            self.hit4.next = self.e_hit4.q.val();
            self.hit5.next = self.e_hit5.q.val();
            self.hit6.next = self.e_hit6.q.val();
            self.hit7.next = self.e_hit7.q.val();
        } else {
            self.hit2.next = self.s3_valid.q.val()
                & (self.s3_row.q.val() == self.s1_row.q.val())
                & (self.s3_ep.q.val() == self.s1_ep.q.val());
            self.hit3.next = self.w_valid.q.val()
                & (self.w_row.q.val() == self.s1_row.q.val())
                & (self.w_ep.q.val() == self.s1_ep.q.val());
            self.hit4.next = self.w2_valid.q.val()
                & (self.w2_row.q.val() == self.s1_row.q.val())
                & (self.w2_ep.q.val() == self.s1_ep.q.val());
            self.hit5.next = self.w3_valid.q.val()
                & (self.w3_row.q.val() == self.s1_row.q.val())
                & (self.w3_ep.q.val() == self.s1_ep.q.val());
            self.hit6.next = self.extra1.val()
                & self.w4_valid.q.val()
                & (self.w4_row.q.val() == self.s1_row.q.val())
                & (self.w4_ep.q.val() == self.s1_ep.q.val());
            self.hit7.next = self.extra2.val()
                & self.w5_valid.q.val()
                & (self.w5_row.q.val() == self.s1_row.q.val())
                & (self.w5_ep.q.val() == self.s1_ep.q.val());
        }
        self.e_hit2.d.next =
            self.s2_valid.q.val() & (self.s2_row.q.val() == self.r_row.val()) & (self.s2_ep.q.val() == self.r_ep.val());
        self.e_hit3.d.next =
            self.s3_valid.q.val() & (self.s3_row.q.val() == self.r_row.val()) & (self.s3_ep.q.val() == self.r_ep.val());
        self.e_hit4.d.next =
            self.w_valid.q.val() & (self.w_row.q.val() == self.r_row.val()) & (self.w_ep.q.val() == self.r_ep.val());
        self.e_hit5.d.next =
            self.w2_valid.q.val() & (self.w2_row.q.val() == self.r_row.val()) & (self.w2_ep.q.val() == self.r_ep.val());
        self.e_hit6.d.next =
            self.w3_valid.q.val() & (self.w3_row.q.val() == self.r_row.val()) & (self.w3_ep.q.val() == self.r_ep.val());
        self.e_hit7.d.next = self.extra2.val()
            & self.w4_valid.q.val()
            & (self.w4_row.q.val() == self.r_row.val())
            & (self.w4_ep.q.val() == self.r_ep.val());
        // Priority to the newest: one-hot selects for s2.
        self.s2_hit2.d.next = self.hit2.val();
        self.s2_hit3.d.next = !self.hit2.val() & self.hit3.val();
        self.s2_hit4.d.next = !self.hit2.val() & !self.hit3.val() & self.hit4.val();
        self.s2_hit5.d.next = !self.hit2.val() & !self.hit3.val() & !self.hit4.val() & self.hit5.val();
        self.s2_hit6.d.next =
            !self.hit2.val() & !self.hit3.val() & !self.hit4.val() & !self.hit5.val() & self.hit6.val();
        self.s2_hit7.d.next = !self.hit2.val()
            & !self.hit3.val()
            & !self.hit4.val()
            & !self.hit5.val()
            & !self.hit6.val()
            & self.hit7.val();
        self.no_fwd.next = !self.hit2.val()
            & !self.hit3.val()
            & !self.hit4.val()
            & !self.hit5.val()
            & !self.hit6.val()
            & !self.hit7.val();
        self.s2_ram0.d.next = self.no_fwd.val() & !self.s1_ep.q.val();
        self.s2_ram1.d.next = self.no_fwd.val() & self.s1_ep.q.val();

        // ---- s2: base record = forwarded result of two to 5 + e ahead, else the RAM's ----
        // Two ahead's result is in `w_data` now, three ahead's in `w2_data`, four's in
        // `w3_data`, five's in `w4_data`, six's in `w5_data`, seven's in `w6_data`.
        self.s3_valid.d.next = self.s2_valid.q.val();
        self.s3_row.d.next = self.s2_row.q.val();
        self.s3_op.d.next = self.s2_op.q.val();
        self.s3_ep.d.next = self.s2_ep.q.val();
        self.s3_fwd1.d.next = self.s2_fwd1.q.val();
        // Six candidates (plus one per extra read stage) under registered one-hot selects, merged by an OR: with the
        // RAM's own AND-OR over its slices, one flat AND-OR from registers to `s3_base`.
        self.base_fwd2.next = self.zero_w.val();
        if self.s2_hit2.q.val() {
            self.base_fwd2.next = self.w_data.q.val();
        }
        self.base_fwd3.next = self.zero_w.val();
        if self.s2_hit3.q.val() {
            self.base_fwd3.next = self.w2_data.q.val();
        }
        self.base_fwd4.next = self.zero_w.val();
        if self.s2_hit4.q.val() {
            self.base_fwd4.next = self.w3_data.q.val();
        }
        self.base_fwd5.next = self.zero_w.val();
        if self.s2_hit5.q.val() {
            self.base_fwd5.next = self.w4_data.q.val();
        }
        self.base_fwd6.next = self.zero_w.val();
        if self.s2_hit6.q.val() {
            self.base_fwd6.next = self.w5_data.q.val();
        }
        self.base_fwd7.next = self.zero_w.val();
        if self.s2_hit7.q.val() {
            self.base_fwd7.next = self.w6_data.q.val();
        }
        self.base_ram0.next = self.zero_w.val();
        if self.s2_ram0.q.val() {
            self.base_ram0.next = self.ram0.read_data.val();
        }
        self.base_ram1.next = self.zero_w.val();
        if self.s2_ram1.q.val() {
            self.base_ram1.next = self.ram1.read_data.val();
        }
        self.s3_base.d.next = self.base_fwd2.val()
            | self.base_fwd3.val()
            | self.base_fwd4.val()
            | self.base_fwd5.val()
            | self.base_fwd6.val()
            | self.base_fwd7.val()
            | self.base_ram0.val()
            | self.base_ram1.val();

        // ---- s3: one ahead's result or base, selected by the parent; result registered ----
        self.alu_op.next = self.s3_op.q.val();
        self.alu_fwd.next = self.s3_fwd1.q.val();
        self.alu_old_fwd.next = self.w_data.q.val();
        self.alu_old_base.next = self.s3_base.q.val();
        self.w_valid.d.next = self.s3_valid.q.val();
        self.w_row.d.next = self.s3_row.q.val();
        self.w_ep.d.next = self.s3_ep.q.val();
        self.w_data.d.next = self.alu_new.val();
        self.w2_valid.d.next = self.w_valid.q.val();
        self.w2_row.d.next = self.w_row.q.val();
        self.w2_ep.d.next = self.w_ep.q.val();
        self.w2_data.d.next = self.w_data.q.val();
        self.w3_valid.d.next = self.w2_valid.q.val();
        self.w3_row.d.next = self.w2_row.q.val();
        self.w3_ep.d.next = self.w2_ep.q.val();
        self.w3_data.d.next = self.w2_data.q.val();
        self.w4_valid.d.next = self.w3_valid.q.val();
        self.w4_row.d.next = self.w3_row.q.val();
        self.w4_ep.d.next = self.w3_ep.q.val();
        self.w4_data.d.next = self.w3_data.q.val();
        self.w5_valid.d.next = self.w4_valid.q.val();
        self.w5_row.d.next = self.w4_row.q.val();
        self.w5_ep.d.next = self.w4_ep.q.val();
        self.w5_data.d.next = self.w4_data.q.val();
        self.w6_data.d.next = self.w5_data.q.val();
        self.ovf_q.d.next = (self.ovf_q.q.val() & !self.ovf_clear.val()) | (self.s3_valid.q.val() & self.alu_ovf.val());

        // ---- write ports: the update in w, else the clear sequence ----
        self.w_write0.d.next = self.s3_valid.q.val() & !self.s3_ep.q.val();
        self.w_write1.d.next = self.s3_valid.q.val() & self.s3_ep.q.val();
        if self.clear.done.val() {
            self.clear_addr.next = self.inf1_row.q.val();
        } else {
            self.clear_addr.next = self.clear.row.val();
        }
        if self.w_write0.q.val() {
            self.ram0.write_address.next = self.w_row.q.val();
            self.ram0.write_data.next = self.w_data.q.val();
        } else {
            self.ram0.write_address.next = self.clear_addr.val();
            self.ram0.write_data.next = self.zero_w.val();
        }
        if self.w_write1.q.val() {
            self.ram1.write_address.next = self.w_row.q.val();
            self.ram1.write_data.next = self.w_data.q.val();
        } else {
            self.ram1.write_address.next = self.clear_addr.val();
            self.ram1.write_data.next = self.zero_w.val();
        }
        self.ram0.write_enable.next = !self.reset.val()
            & (self.w_write0.q.val() | !self.clear.done.val() | (self.inf1_valid.q.val() & self.epoch_q.q.val()));
        self.ram1.write_enable.next = !self.reset.val()
            & (self.w_write1.q.val() | !self.clear.done.val() | (self.inf1_valid.q.val() & !self.epoch_q.q.val()));

        // ---- read-out of the frozen copy ----
        // A read issued at t is cleared at t+1 (inf1) and buffered at t+2 (inf2), or at
        // t+3 (inf3) or t+4 (inf4) behind one or two extra read stages.
        // `credits` counts the free buffer entries minus the reads in flight.
        self.pop.next = self.b0_valid.q.val() & self.m_ro_ready.val();
        self.issue.next = self.ro_go.q.val() & (self.credit_q.q.val() | self.pop.val());
        if self.issue.val() & !self.pop.val() {
            self.credits.d.next = self.credits.q.val() - self.one_2.val();
            self.credits_x.d.next = self.credits_x.q.val() - self.one_3.val();
        }
        if !self.issue.val() & self.pop.val() {
            self.credits.d.next = self.credits.q.val() + self.one_2.val();
            self.credits_x.d.next = self.credits_x.q.val() + self.one_3.val();
        }
        self.inf1_valid.d.next = self.issue.val();
        self.inf1_row.d.next = self.rd_ptr.q.val();
        self.inf2_valid.d.next = self.inf1_valid.q.val();
        self.inf2_row.d.next = self.inf1_row.q.val();
        self.inf3_valid.d.next = self.inf2_valid.q.val();
        self.inf3_row.d.next = self.inf2_row.q.val();
        self.inf4_valid.d.next = self.inf3_valid.q.val();
        self.inf4_row.d.next = self.inf3_row.q.val();
        self.arr_valid.next = self.inf2_valid.q.val();
        self.arr_row.next = self.inf2_row.q.val();
        if self.extra1.val() {
            self.arr_valid.next = self.inf3_valid.q.val();
            self.arr_row.next = self.inf3_row.q.val();
        }
        if self.extra2.val() {
            self.arr_valid.next = self.inf4_valid.q.val();
            self.arr_row.next = self.inf4_row.q.val();
        }
        if self.issue.val() {
            self.rd_ptr.d.next = self.rd_next.q.val();
            self.rd_next.d.next = self.rd_next.q.val() + self.one_a.val();
            if self.rd_ptr.q.val() == self.last_row.val() {
                self.issued_all.d.next = true;
            }
        }
        if self.epoch_q.q.val() {
            self.frozen_data.next = self.ram0.read_data_copy.val();
        } else {
            self.frozen_data.next = self.ram1.read_data_copy.val();
        }
        self.q_data.next = self.frozen_data.val();
        // Output buffer: a shift register popped at b0, filled at its first free entry.
        if self.pop.val() {
            self.b0_valid.d.next = self.b1_valid.q.val();
            self.b0_row.d.next = self.b1_row.q.val();
            self.b0_data.d.next = self.b1_data.q.val();
            self.b1_valid.d.next = self.b2_valid.q.val();
            self.b1_row.d.next = self.b2_row.q.val();
            self.b1_data.d.next = self.b2_data.q.val();
            self.b2_valid.d.next = false;
            if self.extra1.val() {
                self.b2_valid.d.next = self.b3_valid.q.val();
                self.b2_row.d.next = self.b3_row.q.val();
                self.b2_data.d.next = self.b3_data.q.val();
                self.b3_valid.d.next = self.b4_valid.q.val();
                self.b3_row.d.next = self.b4_row.q.val();
                self.b3_data.d.next = self.b4_data.q.val();
                self.b4_valid.d.next = false;
            }
        }
        // (Entries b3 and b4 exist only with extra read stages: 3 + e credits.)
        self.ins0.next = self.arr_valid.val() & (!self.b0_valid.q.val() | (!self.b1_valid.q.val() & self.pop.val()));
        self.ins1.next = self.arr_valid.val()
            & ((self.b0_valid.q.val() & !self.b1_valid.q.val() & !self.pop.val())
                | (self.b1_valid.q.val() & !self.b2_valid.q.val() & self.pop.val()));
        self.ins2.next = self.arr_valid.val()
            & ((self.b1_valid.q.val() & !self.b2_valid.q.val() & !self.pop.val())
                | (self.b2_valid.q.val() & !(self.extra1.val() & self.b3_valid.q.val()) & self.pop.val()));
        self.ins3.next = self.extra1.val()
            & self.arr_valid.val()
            & ((self.b2_valid.q.val() & !self.b3_valid.q.val() & !self.pop.val())
                | (self.b3_valid.q.val() & !self.b4_valid.q.val() & self.pop.val()));
        self.ins4.next = self.extra2.val()
            & self.arr_valid.val()
            & ((self.b3_valid.q.val() & !self.b4_valid.q.val() & !self.pop.val())
                | (self.b4_valid.q.val() & self.pop.val()));
        if self.ins0.val() {
            self.b0_valid.d.next = true;
            self.b0_row.d.next = self.arr_row.val();
            self.b0_data.d.next = self.frozen_data.val();
        }
        if self.ins1.val() {
            self.b1_valid.d.next = true;
            self.b1_row.d.next = self.arr_row.val();
            self.b1_data.d.next = self.frozen_data.val();
        }
        if self.ins2.val() {
            self.b2_valid.d.next = true;
            self.b2_row.d.next = self.arr_row.val();
            self.b2_data.d.next = self.frozen_data.val();
        }
        if self.ins3.val() {
            self.b3_valid.d.next = true;
            self.b3_row.d.next = self.arr_row.val();
            self.b3_data.d.next = self.frozen_data.val();
        }
        if self.ins4.val() {
            self.b4_valid.d.next = true;
            self.b4_row.d.next = self.arr_row.val();
            self.b4_data.d.next = self.frozen_data.val();
        }
        if self.ro_state.q.val() == self.ro_drain.val() {
            self.drain_cnt.d.next = self.drain_cnt.q.val() + self.one_3.val();
            if self.drain_cnt.q.val() == self.drain_last.val() {
                if self.hold.val() {
                    self.ro_state.d.next = self.ro_hold.val();
                } else {
                    self.ro_state.d.next = self.ro_stream.val();
                }
                self.drain_cnt.d.next = self.zero_3.val();
            }
            self.rd_ptr.d.next = self.zero_a.val();
            self.rd_next.d.next = self.one_a.val();
            self.issued_all.d.next = false;
            self.credits.d.next = self.credits_full.val();
            self.credits_x.d.next = self.credits_full_x.val();
        }
        if self.in_hold.q.val() & self.release_frozen.val() {
            self.ro_state.d.next = self.ro_stream.val();
        }
        if (self.ro_state.q.val() == self.ro_stream.val())
            & self.issued_all.q.val()
            & !self.inf1_valid.q.val()
            & !self.inf2_valid.q.val()
            & !(self.extra1.val() & self.inf3_valid.q.val())
            & !(self.extra2.val() & self.inf4_valid.q.val())
            & !self.b0_valid.q.val()
        {
            self.ro_state.d.next = self.ro_idle.val();
        }

        // ---- epoch flip ----
        if self.flip.val() & self.clear.done.val() & (self.ro_state.q.val() == self.ro_idle.val()) {
            self.epoch_q.d.next = !self.epoch_q.q.val();
            self.ro_state.d.next = self.ro_drain.val();
        }

        // ---- synchronous reset of the control state ----
        if self.reset.val() {
            self.epoch_q.d.next = false;
            self.ovf_q.d.next = false;
            self.ro_state.d.next = self.ro_idle.val();
            self.drain_cnt.d.next = self.zero_3.val();
            self.inf1_valid.d.next = false;
            self.inf2_valid.d.next = false;
            self.inf3_valid.d.next = false;
            self.inf4_valid.d.next = false;
            self.b0_valid.d.next = false;
            self.b1_valid.d.next = false;
            self.b2_valid.d.next = false;
            self.b3_valid.d.next = false;
            self.b4_valid.d.next = false;
            self.sa_valid.d.next = false;
            self.sb_valid.d.next = false;
            self.sc_valid.d.next = false;
            self.s1_valid.d.next = false;
            self.s2_valid.d.next = false;
            self.s3_valid.d.next = false;
            self.w_valid.d.next = false;
            self.w_write0.d.next = false;
            self.w_write1.d.next = false;
            self.w2_valid.d.next = false;
            self.w3_valid.d.next = false;
            self.w4_valid.d.next = false;
            self.w5_valid.d.next = false;
        }

        // ---- the read-out's decisions of the next clock, from the next state ----
        self.credit_q.d.next = self.credits.d.val() != self.zero_2.val();
        if self.extra1.val() {
            self.credit_q.d.next = self.credits_x.d.val() != self.zero_3.val();
        }
        self.ro_go.d.next = (self.ro_state.d.val() == self.ro_stream.val()) & !self.issued_all.d.val();
        self.in_hold.d.next = self.ro_state.d.val() == self.ro_hold.val();

        // ---- read addresses: the live copy's registers take the update's row, the
        // frozen copy's the read pointer's next value (a read issued at t is read at t),
        // or the query row while held ----
        if self.in_hold.q.val() {
            self.frozen_addr.next = self.q_row.val();
        } else {
            self.frozen_addr.next = self.rd_ptr.d.val();
        }
        if self.epoch_q.q.val() {
            self.ram1.read_address.next = self.s_upd_row.val();
            self.ram0.read_address.next = self.frozen_addr.val();
        } else {
            self.ram0.read_address.next = self.s_upd_row.val();
            self.ram1.read_address.next = self.frozen_addr.val();
        }
    }
}

//! In-fabric bias correction and delay histograms of the fridge core (Zheng
//! et al. §6.2: "instead of directly sending out each delay sample with its
//! x … we can compute its correction factor inside the data plane, and build a
//! histogram by adding up the correction factors of delay samples that fall
//! into certain delay ranges").
//!
//! The factor p^-1 (1 - p/M)^-x is computed in the log domain, where it is
//! linear in x (`netmeas_sim::fridge::factor`): log2(1/q) = `CORR_PINV` +
//! (x · `CORR_CM`) >> `CORR_SH`, rounded to 1/8 octave (the paper's 1.1×
//! steps), then turned back into a factor by an 8-entry mantissa table.
//! Each fridge has 32 log2(delay) bins of {count, Σ factor (Q.8), Σ factor²}
//! (the variance estimate of eq. 4.7) in a ping-pong [`RmwBank`].
//!
//! Pipeline (a sample presented at cycle t):
//! - **h1** (t+1) sample registered with fridge k's correction registers
//!   (selected as the sample enters, a write of that cycle included, so the
//!   products start at a register); `BIN_SHIFT` is read; partial products x_lo·cm_lo, x_hi·cm_lo (16 × 16,
//!   one DSP each) and x·cm_hi (cm_hi has two bits: two adds); leading one of
//!   the delay.
//! - **h2** (t+2) x·cm summed (50 bits); bin from the leading one.
//! - **h3** (t+3) x·c = (x·cm) >> sh.
//! - **h4** (t+4) log2 factor rounded to 1/8 octave (the half step was added to
//!   `CORR_PINV` in h1), saturated at 2^32.
//! - **h5** (t+5) factor (Q.8) and factor² from the mantissa table and shifts.
//! - **h6** (t+6) the bank adds {1, factor, factor²} to row 32k + bin. The
//!   three adds run on both of the bank's candidate records (the update one
//!   ahead's result and the base record) and the select comes after them, so
//!   the bank's RMW loop is a 64-bit add and one 2:1 mux.
//!
//! A flip token (`s_flip`) travels with the sample slot, so the sample
//! presented with it is the last of the old epoch.

use crate::common::rmw_bank::RmwBank;
use crate::common::unused::Unused;
use netmeas_sim::fridge::factor::MANTISSA;
use netmeas_sim::fridge::{
    FRIDGE_BINS, FRIDGE_REG_BIN_SHIFT, FRIDGE_REG_CORR_CM, FRIDGE_REG_CORR_PINV, FRIDGE_REG_CORR_SH, FridgeConfig,
};
use rust_hdl::prelude::*;

/// Record width of a bin: count [31:0], Σ factor [95:32], Σ factor² [159:96].
pub const HIST_W: usize = 160;
/// Row-address bits of the histogram bank (4 fridges × 32 bins).
pub const HIST_A: usize = 7;
/// Fridge slots in the register file (the core supports 1..=4 fridges).
const SLOTS: usize = 4;
/// Bytes of the 48-bit delay, the first level of the leading-one tree.
const LEAD_GROUPS: usize = 6;

/// The fridges' correction registers, quantizer and ping-pong histograms.
#[derive(LogicBlock)]
pub struct FridgeHistogram {
    // --- clock and synchronous reset ---
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: drops samples in flight, restores the registers, clears both copies.
    pub reset: Signal<In, Bit>,
    // --- sample slot (from the entry bank's read-modify-write stage) ---
    /// A sample is presented (never refused).
    pub s_valid: Signal<In, Bit>,
    /// Its fridge.
    pub s_fridge: Signal<In, Bits<2>>,
    /// Its delay in ticks.
    pub s_delay: Signal<In, Bits<48>>,
    /// Insertions its request survived.
    pub s_x: Signal<In, Bits<32>>,
    /// Epoch flip after this slot.
    pub s_flip: Signal<In, Bit>,
    /// The bank is cleared and takes samples.
    pub s_ready: Signal<Out, Bit>,
    // --- CSR write port (BIN_SHIFT, CORR_PINVk, CORR_CMk, CORR_SHk) ---
    /// Write strobe.
    pub csr_we: Signal<In, Bit>,
    /// Word address.
    pub csr_addr: Signal<In, Bits<5>>,
    /// Write data (the widest of these registers has 22 bits).
    pub csr_wdata: Signal<In, Bits<22>>,
    // --- epochs ---
    /// A flip presented now would be taken (the previous read-out is done).
    pub flip_ready: Signal<Out, Bit>,
    /// A flip token is in the pipeline.
    pub flip_busy: Signal<Out, Bit>,
    /// Live copy.
    pub epoch: Signal<Out, Bit>,
    // --- read-out of the frozen histograms ---
    /// A bin is presented.
    pub m_ro_valid: Signal<Out, Bit>,
    /// The consumer takes it.
    pub m_ro_ready: Signal<In, Bit>,
    /// Its row: 32 · fridge + bin.
    pub m_ro_row: Signal<Out, Bits<7>>,
    /// Samples in the bin.
    pub m_ro_count: Signal<Out, Bits<32>>,
    /// Σ correction factor, 8 fractional bits.
    pub m_ro_wsum: Signal<Out, Bits<64>>,
    /// Σ correction factor², integer part.
    pub m_ro_w2sum: Signal<Out, Bits<64>>,
    /// Last bin of the last fridge.
    pub m_ro_last: Signal<Out, Bit>,
    // --- status ---
    /// A bin field wrapped since the flag was last cleared.
    pub ovf_sticky: Signal<Out, Bit>,
    /// Clear the overflow flag.
    pub ovf_clear: Signal<In, Bit>,
    /// Samples whose factor saturated at 2^32 (saturating counter).
    pub saturated: Signal<Out, Bits<32>>,
    // --- blocks ---
    bank: RmwBank<HIST_W, HIST_A>,
    /// The bank's hold port is not used (its frozen copy streams out).
    unused_held: Unused<Bit>,
    no_q_row: Constant<Bits<HIST_A>>,
    unused_q_data: Unused<Bits<HIST_W>>,
    // --- constants ---
    has: [Constant<Bit>; SLOTS],
    kidx: [Constant<Bits<2>>; SLOTS],
    reg_pinv: [Constant<Bits<5>>; SLOTS],
    reg_cm: [Constant<Bits<5>>; SLOTS],
    reg_sh: [Constant<Bits<5>>; SLOTS],
    reg_bin_shift: Constant<Bits<5>>,
    rst_pinv: [Constant<Bits<22>>; SLOTS],
    rst_cm: [Constant<Bits<18>>; SLOTS],
    rst_sh: [Constant<Bits<6>>; SLOTS],
    rst_bin_shift: Constant<Bits<6>>,
    mant: [Constant<Bits<16>>; 8],
    midx: [Constant<Bits<3>>; 8],
    max_shift: Constant<Bits<6>>,
    last_bin: Constant<Bits<6>>,
    one6: Constant<Bits<6>>,
    half_step: Constant<Bits<23>>,
    zero3: Constant<Bits<3>>,
    zero27: Constant<Bits<27>>,
    bin_lsb: Constant<Bits<3>>,
    sh7: Constant<Bits<3>>,
    sh15: Constant<Bits<4>>,
    sh13: Constant<Bits<4>>,
    sh16: Constant<Bits<5>>,
    one: Constant<Bits<1>>,
    ones8: Constant<Bits<8>>,
    count_lsb: Constant<Bits<6>>,
    w2_lsb: Constant<Bits<7>>,
    ones32: Constant<Bits<32>>,
    one32: Constant<Bits<32>>,
    zero32: Constant<Bits<32>>,
    zero8: Constant<Bits<8>>,
    zero6: Constant<Bits<6>>,
    zero18: Constant<Bits<18>>,
    zero22: Constant<Bits<22>>,
    zero34: Constant<Bits<34>>,
    zero48: Constant<Bits<48>>,
    pos: [Constant<Bits<6>>; 48],
    // --- registers (held as XOR with their reset values) ---
    pinv_x: [DFF<Bits<22>>; SLOTS],
    cm_x: [DFF<Bits<18>>; SLOTS],
    sh_x: [DFF<Bits<6>>; SLOTS],
    bin_shift_x: DFF<Bits<6>>,
    sat_count: DFF<Bits<32>>,
    // --- pipeline ---
    h1_valid: DFF<Bit>,
    h1_k: DFF<Bits<2>>,
    h1_delay: DFF<Bits<48>>,
    h1_x: DFF<Bits<32>>,
    h1_flip: DFF<Bit>,
    h1_pinv: DFF<Bits<22>>,
    h1_cm: DFF<Bits<18>>,
    h1_sh: DFF<Bits<6>>,
    h2_valid: DFF<Bit>,
    h2_k: DFF<Bits<2>>,
    h2_mll: DFF<Bits<32>>,
    h2_mhl: DFF<Bits<32>>,
    h2_xch: DFF<Bits<34>>,
    h2_pinv: DFF<Bits<23>>,
    h2_sh: DFF<Bits<6>>,
    h2_lead: DFF<Bits<6>>,
    h2_nz: DFF<Bit>,
    h2_bshift: DFF<Bits<6>>,
    h2_flip: DFF<Bit>,
    h3_valid: DFF<Bit>,
    h3_row: DFF<Bits<7>>,
    h3_prod: DFF<Bits<50>>,
    h3_pinv: DFF<Bits<23>>,
    h3_sh: DFF<Bits<6>>,
    h3_flip: DFF<Bit>,
    h4_valid: DFF<Bit>,
    h4_row: DFF<Bits<7>>,
    h4_lx: DFF<Bits<50>>,
    h4_pinv: DFF<Bits<23>>,
    h4_flip: DFF<Bit>,
    h5_valid: DFF<Bit>,
    h5_row: DFF<Bits<7>>,
    h5_q: DFF<Bits<8>>,
    h5_sat: DFF<Bit>,
    h5_flip: DFF<Bit>,
    h6_valid: DFF<Bit>,
    h6_row: DFF<Bits<7>>,
    h6_w: DFF<Bits<64>>,
    h6_w2: DFF<Bits<64>>,
    h6_flip: DFF<Bit>,
    // --- combinational helpers ---
    /// Fridge k's correction registers as they are from the next cycle on (a write bypassed).
    next_pinv: [Signal<Local, Bits<22>>; SLOTS],
    next_cm: [Signal<Local, Bits<18>>; SLOTS],
    next_sh: [Signal<Local, Bits<6>>; SLOTS],
    xch: Signal<Local, Bits<34>>,
    /// Byte g of the delay is not zero.
    grp_nz: [Signal<Local, Bit>; LEAD_GROUPS],
    /// Position of byte g's leading one.
    grp_lead: [Signal<Local, Bits<6>>; LEAD_GROUPS],
    lead: Signal<Local, Bits<6>>,
    shift: Signal<Local, Bits<6>>,
    bin: Signal<Local, Bits<6>>,
    l: Signal<Local, Bits<24>>,
    qr: Signal<Local, Bits<11>>,
    sat: Signal<Local, Bit>,
    m1: Signal<Local, Bits<16>>,
    m2: Signal<Local, Bits<16>>,
    q2: Signal<Local, Bits<9>>,
    sq: Signal<Local, Bits<80>>,
    fwd_count: Signal<Local, Bits<33>>,
    fwd_w: Signal<Local, Bits<65>>,
    fwd_w2: Signal<Local, Bits<65>>,
    base_count: Signal<Local, Bits<33>>,
    base_w: Signal<Local, Bits<65>>,
    base_w2: Signal<Local, Bits<65>>,
    new_count: Signal<Local, Bits<33>>,
    new_w: Signal<Local, Bits<65>>,
    new_w2: Signal<Local, Bits<65>>,
}

impl FridgeHistogram {
    /// The histograms of `cfg`'s fridges, registers at their reset values.
    pub fn new(cfg: &FridgeConfig) -> Self {
        let n = cfg.fridges();
        let corr = |k: usize| (k < n).then(|| cfg.correction(k));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_valid: Default::default(),
            s_fridge: Default::default(),
            s_delay: Default::default(),
            s_x: Default::default(),
            s_flip: Default::default(),
            s_ready: Default::default(),
            csr_we: Default::default(),
            csr_addr: Default::default(),
            csr_wdata: Default::default(),
            flip_ready: Default::default(),
            flip_busy: Default::default(),
            epoch: Default::default(),
            m_ro_valid: Default::default(),
            m_ro_ready: Default::default(),
            m_ro_row: Default::default(),
            m_ro_count: Default::default(),
            m_ro_wsum: Default::default(),
            m_ro_w2sum: Default::default(),
            m_ro_last: Default::default(),
            ovf_sticky: Default::default(),
            ovf_clear: Default::default(),
            saturated: Default::default(),
            bank: RmwBank::new(n * FRIDGE_BINS),
            unused_held: Default::default(),
            no_q_row: Constant::new(0u64.into()),
            unused_q_data: Default::default(),
            has: std::array::from_fn(|k| Constant::new(k < n)),
            kidx: std::array::from_fn(|k| Constant::new((k as u64).into())),
            reg_pinv: std::array::from_fn(|k| Constant::new(((FRIDGE_REG_CORR_PINV + 4 * k as u32) as u64).into())),
            reg_cm: std::array::from_fn(|k| Constant::new(((FRIDGE_REG_CORR_CM + 4 * k as u32) as u64).into())),
            reg_sh: std::array::from_fn(|k| Constant::new(((FRIDGE_REG_CORR_SH + 4 * k as u32) as u64).into())),
            reg_bin_shift: Constant::new((FRIDGE_REG_BIN_SHIFT as u64).into()),
            rst_pinv: std::array::from_fn(|k| Constant::new(corr(k).map_or(0, |c| c.pinv as u64).into())),
            rst_cm: std::array::from_fn(|k| Constant::new(corr(k).map_or(0, |c| c.cm as u64).into())),
            rst_sh: std::array::from_fn(|k| Constant::new(corr(k).map_or(0, |c| c.sh as u64).into())),
            rst_bin_shift: Constant::new((cfg.bin_shift as u64).into()),
            mant: std::array::from_fn(|j| Constant::new((MANTISSA[j] as u64).into())),
            midx: std::array::from_fn(|j| Constant::new((j as u64).into())),
            max_shift: Constant::new(47u64.into()),
            last_bin: Constant::new(31u64.into()),
            one6: Constant::new(1u64.into()),
            half_step: Constant::new((1u64 << 12).into()),
            zero3: Constant::new(0u64.into()),
            zero27: Constant::new(0u64.into()),
            bin_lsb: Constant::new(5u64.into()),
            sh7: Constant::new(7u64.into()),
            sh15: Constant::new(15u64.into()),
            sh13: Constant::new(13u64.into()),
            sh16: Constant::new(16u64.into()),
            one: Constant::new(1u64.into()),
            ones8: Constant::new(255u64.into()),
            count_lsb: Constant::new(32u64.into()),
            w2_lsb: Constant::new(96u64.into()),
            ones32: Constant::new(0xFFFF_FFFFu64.into()),
            one32: Constant::new(1u64.into()),
            zero32: Constant::new(0u64.into()),
            zero8: Constant::new(0u64.into()),
            zero6: Constant::new(0u64.into()),
            zero18: Constant::new(0u64.into()),
            zero22: Constant::new(0u64.into()),
            zero34: Constant::new(0u64.into()),
            zero48: Constant::new(0u64.into()),
            pos: std::array::from_fn(|i| Constant::new((i as u64).into())),
            pinv_x: Default::default(),
            cm_x: Default::default(),
            sh_x: Default::default(),
            bin_shift_x: Default::default(),
            sat_count: Default::default(),
            h1_valid: Default::default(),
            h1_k: Default::default(),
            h1_delay: Default::default(),
            h1_x: Default::default(),
            h1_flip: Default::default(),
            h1_pinv: Default::default(),
            h1_cm: Default::default(),
            h1_sh: Default::default(),
            h2_valid: Default::default(),
            h2_k: Default::default(),
            h2_mll: Default::default(),
            h2_mhl: Default::default(),
            h2_xch: Default::default(),
            h2_pinv: Default::default(),
            h2_sh: Default::default(),
            h2_lead: Default::default(),
            h2_nz: Default::default(),
            h2_bshift: Default::default(),
            h2_flip: Default::default(),
            h3_valid: Default::default(),
            h3_row: Default::default(),
            h3_prod: Default::default(),
            h3_pinv: Default::default(),
            h3_sh: Default::default(),
            h3_flip: Default::default(),
            h4_valid: Default::default(),
            h4_row: Default::default(),
            h4_lx: Default::default(),
            h4_pinv: Default::default(),
            h4_flip: Default::default(),
            h5_valid: Default::default(),
            h5_row: Default::default(),
            h5_q: Default::default(),
            h5_sat: Default::default(),
            h5_flip: Default::default(),
            h6_valid: Default::default(),
            h6_row: Default::default(),
            h6_w: Default::default(),
            h6_w2: Default::default(),
            h6_flip: Default::default(),
            next_pinv: Default::default(),
            next_cm: Default::default(),
            next_sh: Default::default(),
            xch: Default::default(),
            grp_nz: Default::default(),
            grp_lead: Default::default(),
            lead: Default::default(),
            shift: Default::default(),
            bin: Default::default(),
            l: Default::default(),
            qr: Default::default(),
            sat: Default::default(),
            m1: Default::default(),
            m2: Default::default(),
            q2: Default::default(),
            sq: Default::default(),
            fwd_count: Default::default(),
            fwd_w: Default::default(),
            fwd_w2: Default::default(),
            base_count: Default::default(),
            base_w: Default::default(),
            base_w2: Default::default(),
            new_count: Default::default(),
            new_w: Default::default(),
            new_w2: Default::default(),
        }
    }
}

impl Logic for FridgeHistogram {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            bin_shift_x,
            sat_count,
            h1_valid,
            h1_k,
            h1_delay,
            h1_x,
            h1_flip,
            h1_pinv,
            h1_cm,
            h1_sh,
            h2_valid,
            h2_k,
            h2_mll,
            h2_mhl,
            h2_xch,
            h2_pinv,
            h2_sh,
            h2_lead,
            h2_nz,
            h2_bshift,
            h2_flip,
            h3_valid,
            h3_row,
            h3_prod,
            h3_pinv,
            h3_sh,
            h3_flip,
            h4_valid,
            h4_row,
            h4_lx,
            h4_pinv,
            h4_flip,
            h5_valid,
            h5_row,
            h5_q,
            h5_sat,
            h5_flip,
            h6_valid,
            h6_row,
            h6_w,
            h6_w2,
            h6_flip
        );
        for k in 0..SLOTS {
            self.pinv_x[k].clock.next = self.clock.val();
            self.cm_x[k].clock.next = self.clock.val();
            self.sh_x[k].clock.next = self.clock.val();
        }
        self.bank.clock.next = self.clock.val();
        self.bank.hold.next = false;
        self.bank.release_frozen.next = false;
        self.bank.q_row.next = self.no_q_row.val();
        self.unused_held.sig.next = self.bank.held.val();
        self.unused_q_data.sig.next = self.bank.q_data.val();
        self.bank.reset.next = self.reset.val();

        // ---- outputs ----
        self.s_ready.next = self.bank.s_upd_ready.val();
        self.flip_ready.next = self.bank.flip_ready.val();
        self.flip_busy.next = self.h1_flip.q.val()
            | self.h2_flip.q.val()
            | self.h3_flip.q.val()
            | self.h4_flip.q.val()
            | self.h5_flip.q.val()
            | self.h6_flip.q.val();
        self.epoch.next = self.bank.epoch.val();
        self.m_ro_valid.next = self.bank.m_ro_valid.val();
        self.bank.m_ro_ready.next = self.m_ro_ready.val();
        self.m_ro_row.next = self.bank.m_ro_row.val();
        self.m_ro_count.next = self.bank.m_ro_data.val().get_bits::<32>(0);
        self.m_ro_wsum.next = self.bank.m_ro_data.val().get_bits::<64>(32);
        self.m_ro_w2sum.next = self.bank.m_ro_data.val().get_bits::<64>(96);
        self.m_ro_last.next = self.bank.m_ro_last.val();
        self.ovf_sticky.next = self.bank.ovf_sticky.val();
        self.bank.ovf_clear.next = self.ovf_clear.val();
        self.saturated.next = self.sat_count.q.val();

        // ---- sample -> h1 ----
        self.h1_valid.d.next = self.s_valid.val();
        self.h1_k.d.next = self.s_fridge.val();
        self.h1_delay.d.next = self.s_delay.val();
        self.h1_x.d.next = self.s_x.val();
        self.h1_flip.d.next = self.s_flip.val();
        // Fridge k's correction registers as h1 sees them (a write in this cycle
        // included), selected here so that h1's DSP products start at a register.
        for k in 0..SLOTS {
            self.next_pinv[k].next = self.rst_pinv[k].val() ^ self.pinv_x[k].q.val();
            self.next_cm[k].next = self.rst_cm[k].val() ^ self.cm_x[k].q.val();
            self.next_sh[k].next = self.rst_sh[k].val() ^ self.sh_x[k].q.val();
            if self.csr_we.val() & self.has[k].val() & (self.csr_addr.val() == self.reg_pinv[k].val()) {
                self.next_pinv[k].next = self.csr_wdata.val().get_bits::<22>(0);
            }
            if self.csr_we.val() & self.has[k].val() & (self.csr_addr.val() == self.reg_cm[k].val()) {
                self.next_cm[k].next = self.csr_wdata.val().get_bits::<18>(0);
            }
            if self.csr_we.val() & self.has[k].val() & (self.csr_addr.val() == self.reg_sh[k].val()) {
                self.next_sh[k].next = self.csr_wdata.val().get_bits::<6>(0);
            }
        }
        self.h1_pinv.d.next = self.next_pinv[0].val();
        self.h1_cm.d.next = self.next_cm[0].val();
        self.h1_sh.d.next = self.next_sh[0].val();
        for k in 0..SLOTS {
            if self.s_fridge.val() == self.kidx[k].val() {
                self.h1_pinv.d.next = self.next_pinv[k].val();
                self.h1_cm.d.next = self.next_cm[k].val();
                self.h1_sh.d.next = self.next_sh[k].val();
            }
        }

        // ---- h1: partial products, leading one ----
        self.h2_mll.d.next = self.h1_x.q.val().get_bits::<16>(0) * self.h1_cm.q.val().get_bits::<16>(0);
        self.h2_mhl.d.next = self.h1_x.q.val().get_bits::<16>(16) * self.h1_cm.q.val().get_bits::<16>(0);
        // x · cm[17:16]: cm's top two bits select x and 2x.
        self.xch.next = self.zero34.val();
        if self.h1_cm.q.val().get_bit(16) {
            self.xch.next = bit_cast::<34, 32>(self.h1_x.q.val());
        }
        if self.h1_cm.q.val().get_bit(17) {
            self.xch.next = self.xch.val() + (bit_cast::<34, 32>(self.h1_x.q.val()) << self.one.val());
        }
        self.h2_xch.d.next = self.xch.val();
        // Leading one as a two-level tree: within each byte, then across the six bytes.
        for g in 0..LEAD_GROUPS {
            self.grp_nz[g].next = self.h1_delay.q.val().get_bits::<8>(8 * g) != self.zero8.val();
            self.grp_lead[g].next = self.pos[8 * g].val();
            for j in 1..8 {
                if self.h1_delay.q.val().get_bit(8 * g + j) {
                    self.grp_lead[g].next = self.pos[8 * g + j].val();
                }
            }
        }
        self.lead.next = self.zero6.val();
        for g in 0..LEAD_GROUPS {
            if self.grp_nz[g].val() {
                self.lead.next = self.grp_lead[g].val();
            }
        }
        self.h2_lead.d.next = self.lead.val();
        self.h2_nz.d.next = self.h1_delay.q.val() != self.zero48.val();
        self.h2_bshift.d.next = self.rst_bin_shift.val() ^ self.bin_shift_x.q.val();
        // log2(1/p) plus half a step: the rounding of h4 costs no second add there.
        self.h2_pinv.d.next = bit_cast::<23, 22>(self.h1_pinv.q.val()) + self.half_step.val();
        self.h2_sh.d.next = self.h1_sh.q.val();
        self.h2_valid.d.next = self.h1_valid.q.val();
        self.h2_k.d.next = self.h1_k.q.val();
        self.h2_flip.d.next = self.h1_flip.q.val();

        // ---- h2: x · cm; bin (0 below 2^shift, then one per octave, 31 at the top) ----
        self.h3_prod.d.next = bit_cast::<50, 32>(self.h2_mll.q.val())
            + ((bit_cast::<50, 32>(self.h2_mhl.q.val()) + bit_cast::<50, 34>(self.h2_xch.q.val())) << self.sh16.val());
        self.shift.next = self.h2_bshift.q.val();
        if self.max_shift.val() < self.h2_bshift.q.val() {
            self.shift.next = self.max_shift.val();
        }
        self.bin.next = self.zero6.val();
        if self.h2_nz.q.val() & !(self.h2_lead.q.val() < self.shift.val()) {
            self.bin.next = self.h2_lead.q.val() - self.shift.val() + self.one6.val();
            if self.last_bin.val() < self.bin.val() {
                self.bin.next = self.last_bin.val();
            }
        }
        self.h3_row.d.next = bit_cast::<7, 5>(self.bin.val().get_bits::<5>(0))
            | (bit_cast::<7, 2>(self.h2_k.q.val()) << self.bin_lsb.val());
        self.h3_pinv.d.next = self.h2_pinv.q.val();
        self.h3_sh.d.next = self.h2_sh.q.val();
        self.h3_valid.d.next = self.h2_valid.q.val();
        self.h3_flip.d.next = self.h2_flip.q.val();

        // ---- h3: x · c in 16 fractional bits ----
        self.h4_lx.d.next = self.h3_prod.q.val() >> self.h3_sh.q.val();
        self.h4_pinv.d.next = self.h3_pinv.q.val();
        self.h4_row.d.next = self.h3_row.q.val();
        self.h4_valid.d.next = self.h3_valid.q.val();
        self.h4_flip.d.next = self.h3_flip.q.val();

        // ---- h4: log2 factor rounded to 1/8 octave, saturated at 2^32 ----
        // l = pinv + lx and q = l >> 13, saturating at 255 when any bit of l above
        // [20:13] is set. Only the low 23 bits are added (a 24-bit carry chain): the
        // bits above are lx's plus that add's carry, which are nonzero exactly when
        // lx's high bits are or the carry is set, an OR beside the add.
        self.l.next =
            bit_cast::<24, 23>(self.h4_pinv.q.val()) + bit_cast::<24, 23>(self.h4_lx.q.val().get_bits::<23>(0));
        self.qr.next = bit_cast::<11, 24>(self.l.val() >> self.sh13.val());
        self.sat.next = (self.qr.val().get_bits::<3>(8) != self.zero3.val())
            | (self.h4_lx.q.val().get_bits::<27>(23) != self.zero27.val());
        self.h5_sat.d.next = self.sat.val();
        self.h5_q.d.next = self.qr.val().get_bits::<8>(0);
        if self.sat.val() {
            self.h5_q.d.next = self.ones8.val();
        }
        self.h5_row.d.next = self.h4_row.q.val();
        self.h5_valid.d.next = self.h4_valid.q.val();
        self.h5_flip.d.next = self.h4_flip.q.val();

        // ---- h5: factor (Q.8) = 2^(q/8) · 2^8 and factor² = 2^(2q/8) from the mantissa table ----
        self.q2.next = bit_cast::<9, 8>(self.h5_q.q.val()) << self.one.val();
        self.m1.next = self.mant[0].val();
        self.m2.next = self.mant[0].val();
        for j in 0..8 {
            if self.h5_q.q.val().get_bits::<3>(0) == self.midx[j].val() {
                self.m1.next = self.mant[j].val();
            }
            if self.q2.val().get_bits::<3>(0) == self.midx[j].val() {
                self.m2.next = self.mant[j].val();
            }
        }
        self.h6_w.d.next = (bit_cast::<64, 16>(self.m1.val()) << self.h5_q.q.val().get_bits::<5>(3)) >> self.sh7.val();
        self.sq.next = bit_cast::<80, 16>(self.m2.val()) << self.q2.val().get_bits::<6>(3);
        self.h6_w2.d.next = bit_cast::<64, 80>(self.sq.val() >> self.sh15.val());
        if self.h5_valid.q.val() & self.h5_sat.q.val() & (self.sat_count.q.val() != self.ones32.val()) {
            self.sat_count.d.next = self.sat_count.q.val() + self.one32.val();
        }
        self.h6_row.d.next = self.h5_row.q.val();
        self.h6_valid.d.next = self.h5_valid.q.val();
        self.h6_flip.d.next = self.h5_flip.q.val();

        // ---- h6: the bank adds {1, factor, factor²}; the flip lands here ----
        self.bank.s_upd_valid.next = self.h6_valid.q.val();
        self.bank.s_upd_row.next = self.h6_row.q.val();
        self.bank.s_upd_op.next = bit_cast::<HIST_W, 32>(self.one32.val())
            | (bit_cast::<HIST_W, 64>(self.h6_w.q.val()) << self.count_lsb.val())
            | (bit_cast::<HIST_W, 64>(self.h6_w2.q.val()) << self.w2_lsb.val());
        self.bank.flip.next = self.h6_flip.q.val();
        // Record arithmetic: three wide adds on each candidate, then the select;
        // a carry out of any field is an overflow.
        self.fwd_count.next = bit_cast::<33, 32>(self.bank.alu_old_fwd.val().get_bits::<32>(0))
            + bit_cast::<33, 32>(self.bank.alu_op.val().get_bits::<32>(0));
        self.fwd_w.next = bit_cast::<65, 64>(self.bank.alu_old_fwd.val().get_bits::<64>(32))
            + bit_cast::<65, 64>(self.bank.alu_op.val().get_bits::<64>(32));
        self.fwd_w2.next = bit_cast::<65, 64>(self.bank.alu_old_fwd.val().get_bits::<64>(96))
            + bit_cast::<65, 64>(self.bank.alu_op.val().get_bits::<64>(96));
        self.base_count.next = bit_cast::<33, 32>(self.bank.alu_old_base.val().get_bits::<32>(0))
            + bit_cast::<33, 32>(self.bank.alu_op.val().get_bits::<32>(0));
        self.base_w.next = bit_cast::<65, 64>(self.bank.alu_old_base.val().get_bits::<64>(32))
            + bit_cast::<65, 64>(self.bank.alu_op.val().get_bits::<64>(32));
        self.base_w2.next = bit_cast::<65, 64>(self.bank.alu_old_base.val().get_bits::<64>(96))
            + bit_cast::<65, 64>(self.bank.alu_op.val().get_bits::<64>(96));
        if self.bank.alu_fwd.val() {
            self.new_count.next = self.fwd_count.val();
            self.new_w.next = self.fwd_w.val();
            self.new_w2.next = self.fwd_w2.val();
        } else {
            self.new_count.next = self.base_count.val();
            self.new_w.next = self.base_w.val();
            self.new_w2.next = self.base_w2.val();
        }
        self.bank.alu_new.next = bit_cast::<HIST_W, 32>(self.new_count.val().get_bits::<32>(0))
            | (bit_cast::<HIST_W, 64>(self.new_w.val().get_bits::<64>(0)) << self.count_lsb.val())
            | (bit_cast::<HIST_W, 64>(self.new_w2.val().get_bits::<64>(0)) << self.w2_lsb.val());
        self.bank.alu_ovf.next =
            self.new_count.val().get_bit(32) | self.new_w.val().get_bit(64) | self.new_w2.val().get_bit(64);

        // ---- CSR writes (effective from the next cycle) ----
        if self.csr_we.val() {
            if self.csr_addr.val() == self.reg_bin_shift.val() {
                self.bin_shift_x.d.next = self.csr_wdata.val().get_bits::<6>(0) ^ self.rst_bin_shift.val();
            }
        }
        for k in 0..SLOTS {
            self.pinv_x[k].d.next = self.next_pinv[k].val() ^ self.rst_pinv[k].val();
            self.cm_x[k].d.next = self.next_cm[k].val() ^ self.rst_cm[k].val();
            self.sh_x[k].d.next = self.next_sh[k].val() ^ self.rst_sh[k].val();
        }

        // ---- synchronous reset ----
        if self.reset.val() {
            for k in 0..SLOTS {
                self.pinv_x[k].d.next = self.zero22.val();
                self.cm_x[k].d.next = self.zero18.val();
                self.sh_x[k].d.next = self.zero6.val();
            }
            self.bin_shift_x.d.next = self.zero6.val();
            self.sat_count.d.next = self.zero32.val();
            self.h1_valid.d.next = false;
            self.h1_flip.d.next = false;
            self.h2_valid.d.next = false;
            self.h2_flip.d.next = false;
            self.h3_valid.d.next = false;
            self.h3_flip.d.next = false;
            self.h4_valid.d.next = false;
            self.h4_flip.d.next = false;
            self.h5_valid.d.next = false;
            self.h5_flip.d.next = false;
            self.h6_valid.d.next = false;
            self.h6_flip.d.next = false;
        }
    }
}

//! A read-out window on the engine's register bus: a core's frozen epoch
//! streams out one row at a time, and a read at `window · 2^14 + row` answers
//! `{valid, last, row, low}` of the presented row and takes it only if it is
//! that row. The row taken last is kept, so a read the host repeats after a
//! lost response gets the same word back and takes nothing; a read at any
//! other row shows the presented row without taking it. Reads over a noisy
//! link therefore never skip or repeat a row (`docs/board.md`, "Epochs and
//! read-out"). The engine's LDA points and its fridge point each hold one.

use rust_hdl::prelude::*;

/// The window of a read-out stream with `A`-bit row numbers (at most 14).
#[derive(LogicBlock)]
pub struct ReadoutWindow<const A: usize> {
    // --- clock and synchronous reset ---
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: the window forgets the row it took last.
    pub reset: Signal<In, Bit>,
    // --- register bus ---
    /// The window answers (low: never a hit, nothing taken).
    pub enable: Signal<In, Bit>,
    /// Word address.
    pub bus_addr: Signal<In, Bits<16>>,
    /// Read strobe.
    pub bus_re: Signal<In, Bit>,
    /// The address is in this window's bus region.
    pub hit: Signal<Out, Bit>,
    /// The word a read at the address answers: bit 31 valid, 30 last, 29:16 row, 7:0 `ro_low`.
    pub answer: Signal<Out, Bits<32>>,
    // --- the read-out stream ---
    /// A row is presented.
    pub ro_valid: Signal<In, Bit>,
    /// It is the epoch's last.
    pub ro_last: Signal<In, Bit>,
    /// Its row number.
    pub ro_row: Signal<In, Bits<A>>,
    /// Bits 7:0 of the answer (a field of the row the core's registers do not show, or 0).
    pub ro_low: Signal<In, Bits<8>>,
    /// Take the presented row (the stream's `ready`): a read at exactly that row.
    pub take: Signal<Out, Bit>,
    // --- constants ---
    my_region: Constant<Bits<2>>,
    zero32: Constant<Bits<32>>,
    sh16: Constant<Bits<5>>,
    sh30: Constant<Bits<5>>,
    sh31: Constant<Bits<5>>,
    // --- registers ---
    /// The word of the row taken last.
    shadow: DFF<Bits<32>>,
    // --- combinational helpers ---
    row: Signal<Local, Bits<14>>,
    word: Signal<Local, Bits<32>>,
}

impl<const A: usize> ReadoutWindow<A> {
    /// The window at bus region `window` (1..=3: addresses `window` · 2^14 + row).
    pub fn new(window: u8) -> Self {
        assert!(A <= 14, "read-out windows hold 2^14 rows");
        assert!((1..=3).contains(&window), "region 0 is the engine's own");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            bus_addr: Default::default(),
            bus_re: Default::default(),
            hit: Default::default(),
            answer: Default::default(),
            ro_valid: Default::default(),
            ro_last: Default::default(),
            ro_row: Default::default(),
            ro_low: Default::default(),
            take: Default::default(),
            my_region: Constant::new((window as u64).into()),
            zero32: Constant::new(0u64.into()),
            sh16: Constant::new(16u64.into()),
            sh30: Constant::new(30u64.into()),
            sh31: Constant::new(31u64.into()),
            shadow: Default::default(),
            row: Default::default(),
            word: Default::default(),
        }
    }
}

impl<const A: usize> Logic for ReadoutWindow<A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, shadow);
        self.row.next = self.bus_addr.val().get_bits::<14>(0);
        self.hit.next = self.enable.val() & (self.bus_addr.val().get_bits::<2>(14) == self.my_region.val());
        self.word.next = (bit_cast::<32, 1>(self.ro_valid.val().into()) << self.sh31.val())
            | (bit_cast::<32, 1>(self.ro_last.val().into()) << self.sh30.val())
            | (bit_cast::<32, A>(self.ro_row.val()) << self.sh16.val())
            | bit_cast::<32, 8>(self.ro_low.val());
        self.take.next = self.bus_re.val()
            & self.hit.val()
            & self.ro_valid.val()
            & (bit_cast::<14, A>(self.ro_row.val()) == self.row.val());
        if self.take.val() {
            self.shadow.d.next = self.word.val();
        }
        if self.take.val() {
            self.answer.next = self.word.val();
        } else if self.shadow.q.val().get_bit(31) & (self.shadow.q.val().get_bits::<14>(16) == self.row.val()) {
            self.answer.next = self.shadow.q.val();
        } else {
            self.answer.next = self.word.val();
        }
        if self.reset.val() {
            self.shadow.d.next = self.zero32.val();
        }
    }
}

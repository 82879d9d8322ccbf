//! Leading zeros of a 16-bit word, in one clock's combinational logic (a
//! priority encoder). The engine's EXPB point draws a packet's flow with it
//! (`bandwidth_packet`: flow f with probability 2^-(f+1)).

use rust_hdl::prelude::*;

/// The count of leading zeros of `value`: 0..=16 (16 for zero).
#[derive(LogicBlock)]
pub struct LeadingZeros16 {
    /// The word.
    pub value: Signal<In, Bits<16>>,
    /// Its leading zeros.
    pub zeros: Signal<Out, Bits<5>>,
    /// 15 − k: the count when bit k is the highest set bit.
    below: [Constant<Bits<5>>; 16],
    all: Constant<Bits<5>>,
}

impl Default for LeadingZeros16 {
    fn default() -> Self {
        Self {
            value: Default::default(),
            zeros: Default::default(),
            below: std::array::from_fn(|k| Constant::new((15 - k as u64).into())),
            all: Constant::new(16u64.into()),
        }
    }
}

impl Logic for LeadingZeros16 {
    #[hdl_gen]
    fn update(&mut self) {
        // The highest set bit wins: its `if` comes last.
        self.zeros.next = self.all.val();
        for k in 0..16 {
            if self.value.val().get_bit(k) {
                self.zeros.next = self.below[k].val();
            }
        }
    }
}

//! One way to drive a Verilated core through an epoch, shared by every
//! runner that feeds a whole stream (LDA, RDA, fridge, SVBF): reset until the
//! core is ready, register writes, the packets one per clock, the flip, the
//! read-out. Every wait is bounded by one patience limit, so a core that
//! stops answering ends the run with an error that names what it waited for
//! instead of hanging it.

use crate::CoreRtl;

/// Cycles a core may keep the driver waiting for one event (ready after
/// reset, a packet taken, a flip taken, a result) before the run is called
/// stuck; a wait that spans a read-out adds its row count.
pub const PATIENCE: u64 = 1 << 20;

/// A fresh Verilated core `M` and the clocks it has been given.
pub struct Driver<M: CoreRtl> {
    model: M,
    cycles: u64,
}

impl<M: CoreRtl> Default for Driver<M> {
    fn default() -> Self {
        Self::new()
    }
}

impl<M: CoreRtl> Driver<M> {
    /// A fresh instance of `M`.
    pub fn new() -> Self {
        Self { model: M::create(), cycles: 0 }
    }

    /// Clocks given so far.
    pub fn cycles(&self) -> u64 {
        self.cycles
    }

    /// One clock with inputs `i`.
    #[inline]
    pub fn step(&mut self, i: &M::In) -> M::Out {
        self.cycles += 1;
        self.model.cycle(i)
    }

    /// Clocks `i` until `done` accepts an output (it sees every output, the
    /// accepted one included) and returns that output; an error naming the
    /// model and `what` if it has not after [`PATIENCE`] + `extra` clocks,
    /// or `done`'s own error as soon as it returns one.
    pub fn until(
        &mut self,
        i: &M::In,
        extra: u64,
        what: &str,
        mut done: impl FnMut(&M::Out) -> Result<bool, String>,
    ) -> Result<M::Out, String> {
        let limit = PATIENCE + extra;
        for _ in 0..=limit {
            let o = self.step(i);
            if done(&o)? {
                return Ok(o);
            }
        }
        Err(format!("{}: {what} for {limit} cycles", M::NAME))
    }

    /// One clock of `reset`, then `idle` until `ready` holds.
    pub fn reset(&mut self, reset: &M::In, idle: &M::In, ready: impl Fn(&M::Out) -> bool) -> Result<(), String> {
        self.step(reset);
        self.until(idle, 0, "no ready after reset", |o| Ok(ready(o))).map(|_| ())
    }

    /// Offers each of `inputs` until `taken` says the core took it.
    pub fn feed(
        &mut self,
        inputs: impl IntoIterator<Item = M::In>,
        mut taken: impl FnMut(&M::Out) -> Result<bool, String>,
    ) -> Result<(), String> {
        for i in inputs {
            self.until(&i, 0, "ready held low", &mut taken)?;
        }
        Ok(())
    }
}

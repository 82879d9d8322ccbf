//! Address widths: how many bits index a memory of a given depth.

/// Bits needed to index `w` items: a bit of a `w`-bit word, a row of a
/// `w`-row memory (⌈log2 w⌉, at least 1).
pub const fn index_bits(w: usize) -> usize {
    let mut b = 1;
    while (1usize << b) < w {
        b += 1;
    }
    b
}

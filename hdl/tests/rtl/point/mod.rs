mod async_fifo;
mod binding;
mod bus;
mod counters;
mod packaged;
mod query;
mod segment;

/// `n` frames of the corpus (TCP connections, DNS, IPv6, VLANs, runts,
/// bad-FCS flags, frames the parser refuses) at increasing ingress times.
pub(crate) fn corpus_frames(seed: u64, n: usize) -> Vec<netmeas_hdl::point::cosim::MacFrame> {
    use netmeas_sim::frame::corpus::Corpus;
    use netmeas_sim::prng::SplitMix64;
    let mut corpus = Corpus::new(seed);
    let mut rng = SplitMix64::new(seed ^ 0x7157);
    let mut t = 1_700_000_000_000_000_000u64;
    (0..n)
        .map(|_| {
            let f = corpus.next_frame();
            t += 50 + rng.below(2000);
            netmeas_hdl::point::cosim::MacFrame { ts_ns: t, bytes: f.bytes, bad: f.bad, delay: 0 }
        })
        .filter(|f| !f.bytes.is_empty())
        .collect()
}

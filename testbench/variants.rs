// The RTL configurations the co-simulation tests and `netmeas demo` run
// (included by build.rs and by the library). Each becomes one Verilated model;
// together they span the edges of the supported widths and sizes.

/// (model name, block, config as JSON)
pub const VARIANTS: &[(&str, &str, &str)] = &[
    // The paper's 1024 × {32-bit count, 40-bit timestamp sum} (Kompella et al. §V).
    ("cb_default", "counter-bank", r#"{"rows": 1024, "count_bits": 32, "tsum_bits": 40}"#),
    // Few rows (non power of two) and 16-bit counts: constant same-row hazards and overflows.
    ("cb_small", "counter-bank", r#"{"rows": 5, "count_bits": 16, "tsum_bits": 32}"#),
    // One row in a wider address space, widest record (96 bits).
    ("cb_one_row", "counter-bank", r#"{"rows": 1, "addr_bits": 4, "count_bits": 32, "tsum_bits": 64}"#),
    // Mid-size, 16-bit count with 48-bit sum (64-bit word).
    ("cb_mid", "counter-bank", r#"{"rows": 100, "count_bits": 16, "tsum_bits": 48}"#),
    // H3: widest key and output, registered.
    ("h3_wide", "h3", r#"{"key_bits": 128, "out_bits": 64, "seed": 11, "registered": true}"#),
    // H3: the LDA's 104-bit 5-tuple key to a 10-bit row index, combinational.
    ("h3_row", "h3", r#"{"key_bits": 104, "out_bits": 10, "seed": 12, "registered": false}"#),
    // H3: narrowest output, 32-bit key, registered.
    ("h3_bit", "h3", r#"{"key_bits": 32, "out_bits": 1, "seed": 13, "registered": true}"#),
    // H3: 64-bit key to 24 bits, combinational.
    ("h3_mid", "h3", r#"{"key_bits": 64, "out_bits": 24, "seed": 14, "registered": false}"#),
    // Frame parser: 64-bit AXI4-Stream (10G/25G MACs), the MAC's timestamps.
    ("fp_64", "frame-parser", r#"{"data_bits": 64}"#),
    // Frame parser: 512-bit AXI4-Stream (100G MACs), frames of one or two beats, the time input.
    ("fp_512_time", "frame-parser", r#"{"data_bits": 512, "timestamp": "time_input"}"#),
    // LDA: the paper's two banks of 512 rows (p1 = 2^-3, p2 = 2^-7), 120-bit key.
    ("lda_default", "lda", r#"{"key_bits": 120, "banks": 2, "rows": 512, "bank_prob_log2": [3, 7]}"#),
    // LDA: one bank of 1024 rows (the §IV single-bank evaluation; tuned by its threshold register).
    ("lda_single", "lda", r#"{"key_bits": 120, "banks": 1, "rows": 1024, "bank_prob_log2": [0]}"#),
    // LDA: three banks of 64 rows, low thresholds: dense sampling, same-row bursts, 104-bit key.
    ("lda_small", "lda", r#"{"key_bits": 104, "banks": 3, "rows": 64, "bank_prob_log2": [0, 1, 2], "seed": 5}"#),
    // LDA: the HX8K engine's core, one bank of 128 rows with 32-bit keys and its timestamps in a
    // block-RAM delay line instead of the pipeline registers (the same cycle behaviour).
    ("lda_ts_ram", "lda", r#"{"key_bits": 32, "banks": 1, "rows": 128, "bank_prob_log2": [3], "ts_in_ram": true}"#),
    // RDA: the paper's k = 2 banks of m = 2500 buckets (Fu et al. §VII), 48-bit timestamp sums.
    ("rda_default", "rda", r#"{"banks": 2, "buckets": 2500, "tsum_bits": 48}"#),
    // RDA: four banks of 61 buckets, 32-bit sums: dense same-bucket bursts, frequent read-outs, wrapping sums.
    ("rda_small", "rda", r#"{"banks": 4, "buckets": 61, "tsum_bits": 32, "seed": 7, "read_stages": 1}"#),
    // Fridges: the default two fridges of 2^11 entries (p = 2^-9, 2^-4), as in the paper's §5 memory range.
    ("fridge_default", "fridge", r#"{"entries": [2048, 2048], "entry_prob_log2": [-9.0, -4.0]}"#),
    // Fridges: four tiny fridges of 2..16 entries, high p: constant overwrites, same-entry bursts,
    // every fridge slot and routing by 3 and 4, saturating factors on the 2-entry fridge.
    (
        "fridge_small",
        "fridge",
        r#"{"entries": [2, 16, 4, 8], "entry_prob_log2": [0.0, -1.0, -2.0, -0.5], "bin_shift": 2, "seed": 9}"#,
    ),
    // Fridges: three fridges (routing by a non-power of two) of unequal sizes.
    (
        "fridge_three",
        "fridge",
        r#"{"entries": [64, 256, 32], "entry_prob_log2": [-1.0, -3.0, 0.0], "bin_shift": 4, "seed": 3}"#,
    ),
    // EXPB: the paper's 11 scales from 78.125 µs over a 2 s period (§4.1, ticks = ns).
    ("expb_default", "expb", r#"{"scales": 11, "base_ticks": 78125, "period_ticks": 2000000000}"#),
    // EXPB: three scales, periods of eight base intervals: frequent period ends and read-outs.
    ("expb_small", "expb", r#"{"scales": 3, "base_ticks": 5, "period_ticks": 40}"#),
    // EXPB: one scale, one interval per period: every close ends a period.
    ("expb_one", "expb", r#"{"scales": 1, "base_ticks": 4, "period_ticks": 4}"#),
    // EXPB: all 16 scales (the longest cascade), 2^15 intervals per period.
    ("expb_wide", "expb", r#"{"scales": 16, "base_ticks": 2, "period_ticks": 65536}"#),
    // DBM: the paper's 1000 buckets (1024: the radix-32 structure's size) over a 2 s period (§4.1, ticks = ns).
    ("dbm_default", "dbm", r#"{"buckets": 1024, "period_ticks": 2000000000}"#),
    // DBM: five buckets (two groups' worth of masking in one row), short periods: a merge on nearly every packet.
    ("dbm_small", "dbm", r#"{"buckets": 5, "period_ticks": 400, "seed": 9}"#),
    // DBM: 33 buckets, one slot in a second group: merges across groups, a lane row with one slot.
    ("dbm_mid", "dbm", r#"{"buckets": 33, "period_ticks": 3000, "seed": 3}"#),
    // DBM: two buckets, the structure always empty: every merge is the pred pair's; periods of 2^40 ticks
    // (closed by time jumps) let keys pass 2^48.
    ("dbm_two", "dbm", r#"{"buckets": 2, "period_ticks": 1099511627776, "seed": 5}"#),
    // Base-interval DBM: the paper's 1000 buckets (1024) by variance and by range over 78.125 µs sums, 2 s periods (§4.1).
    ("dbm_mv", "dbm", r#"{"buckets": 1024, "rule": "mv", "base_ticks": 78125, "period_ticks": 2000000000}"#),
    ("dbm_mr", "dbm", r#"{"buckets": 1024, "rule": "mr", "base_ticks": 78125, "period_ticks": 2000000000}"#),
    // Base-interval DBM: five buckets by variance, 16 intervals a period: a merge on nearly every interval.
    ("dbm_mv_small", "dbm", r#"{"buckets": 5, "rule": "mv", "base_ticks": 10, "period_ticks": 160, "seed": 9}"#),
    // Base-interval DBM: 33 buckets by mass (one slot in a second group), 70 intervals a period.
    ("dbm_mm_mid", "dbm", r#"{"buckets": 33, "rule": "mm", "base_ticks": 6, "period_ticks": 420, "seed": 3}"#),
    // Host link: 50 MHz at 3 Mbaud (17 clocks per bit), a request timeout of 2000 clocks.
    (
        "link_default",
        "link",
        r#"{"uart": {"clock_hz": 50000000, "baud": 3000000}, "bridge": {"timeout_clocks": 2000}}"#,
    ),
    // Measurement engine: the default LDA pair (120-bit keys, 2 × 512 rows), fridge core (2 × 2048 entries), EXPB
    // core (11 scales from 32 ticks, periods of 65 536) and DBM core (1024 buckets, the same periods) behind the
    // default link (50 MHz, 3 Mbaud).
    ("engine_default", "engine", r#"{}"#),
    // Measurement engine of the iCE40-HX8K board (synth/src/board.rs): the reduced LDA pair above, no fridge, EXPB or DBM,
    // behind a 12 MHz, 3 Mbaud link.
    (
        "engine_hx8k",
        "engine",
        r#"{"lda": {"key_bits": 32, "banks": 1, "rows": 128, "bank_prob_log2": [3], "ts_in_ram": true}, "fridge": null, "expb": null, "dbm": null, "link": {"uart": {"clock_hz": 12000000, "baud": 3000000}, "bridge": {"timeout_clocks": 240000}}}"#,
    ),
    // SVBF: the default store, 9 partitions of 2^17 bits (two banks of 1024 × 64 bits each).
    ("svbf_default", "svbf", r#"{"hashes": 9, "partition_log2": 17}"#),
    // SVBF: 4 partitions of 2^10 bits: dense windows, frequent Multi-Matches, short clears.
    ("svbf_small", "svbf", r#"{"hashes": 4, "partition_log2": 10, "seed": 5}"#),
    // SVBF: 2 partitions of 256 bits (two rows per bank): same-word inserts all the time, windows wrapping.
    ("svbf_tiny", "svbf", r#"{"hashes": 2, "partition_log2": 8, "seed": 6}"#),
];

use netmeas_hdl::registry::*;
use std::path::Path;

#[test]
fn names_are_unique_and_lookups_find_each_entry() {
    let n = names();
    let mut sorted = n.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), n.len(), "{n:?}");
    for c in CORES {
        assert_eq!(core(c.name()).unwrap().name(), c.name());
        assert!(Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(c.datasheet()).is_file(), "{}", c.name());
    }
    let e = core("ldaa").err().unwrap();
    assert!(e.contains("unknown block `ldaa`") && e.contains("counter-bank") && e.contains("engine"), "{e}");
}

#[test]
fn every_default_config_is_valid_and_knows_its_entry() {
    for c in CORES {
        for t in [None, Some(Target::Ecp5_85k), Some(Target::Ice40Hx8k)] {
            match (c.default_config(t), t.and_then(|t| c.unfit_for(t))) {
                (Ok(cfg), None) => {
                    assert_eq!(cfg.block_name(), c.name());
                    assert_eq!(cfg, cfg.clone());
                    let back = c.config_from_json(&cfg.to_json().to_string()).unwrap();
                    assert_eq!(back, cfg, "{}", c.name());
                }
                (Err(why), Some(unfit)) => assert_eq!(why, unfit),
                (r, u) => panic!("{}: {:?} vs {u:?}", c.name(), r.map(|c| c.top_name())),
            }
        }
    }
}

/// The situations a block's default shipped testbench does not reach, and why.
const NOT_REACHED: &[(&str, &[&str], &str)] = &[
    (
        "expb",
        &["scales read", "read-out stalls", "periods read"],
        "a period of the default config is 25 600 base intervals and the core closes one in about 3.6 clocks: \
         a read-out needs some 92 000 clocks of closing, more than the testbench runs",
    ),
    (
        "svbf",
        &["queries taken", "single-match answers", "multi-match answers"],
        "the query port needs the held epoch and the complete refined center table at once; the vectors \
         release the hold 400 clocks after it starts, before the table is complete",
    ),
    (
        "link",
        &["truncated frames"],
        "a cut frame is counted when the bridge's timeout ends it, 10^6 clocks in the default config, longer \
         than the testbench runs (the host waits out that timeout after the sixth request, so the run ends idle)",
    ),
];

/// Every block's shipped-testbench vectors (default config) reach each
/// situation they count at least once: reset, traffic, hazards, flips,
/// read-outs, stalls (the coverage `netmeas sim` prints), except the ones
/// [`NOT_REACHED`] names, which must then indeed not be reached.
#[test]
fn every_shipped_testbench_reaches_each_situation_it_counts() {
    for c in CORES {
        let cfg = c.default_config(None).unwrap();
        let Ok(v) = cfg.test_vectors(1, None) else { continue };
        assert!(!v.coverage.is_empty(), "{}", c.name());
        let gaps = NOT_REACHED.iter().find(|(b, _, _)| *b == c.name()).map_or(&[][..], |g| g.1);
        for (what, n) in &v.coverage {
            if gaps.contains(what) {
                assert_eq!(*n, 0, "{}: {what} is reached now: take it off NOT_REACHED", c.name());
            } else {
                assert!(
                    *n > 0,
                    "{}: {what} never happens in its {} clocks: {:?}",
                    c.name(),
                    v.cycles.len(),
                    v.coverage
                );
            }
        }
    }
}

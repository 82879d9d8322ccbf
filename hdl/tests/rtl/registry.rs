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

/// The situations a block's default shipped testbench cannot reach in its
/// few thousand clocks, why, and the config in `configs/` whose testbench
/// reaches them.
const REACHED_ON: &[(&str, &[&str], &str, &str)] = &[
    (
        "expb",
        &["scales read", "read-out stalls", "periods read"],
        "a period of the default config is 25 600 base intervals and the core closes one in about 3.6 clocks: \
         a read-out needs some 92 000 clocks",
        "expb-period-80ms.toml",
    ),
    (
        "link",
        &["truncated frames"],
        "a cut frame is counted when the bridge's timeout ends it, 10^6 clocks in the default config",
        "link-timeout-20k.toml",
    ),
];

/// Asserts that every situation `v` counts is reached, except `gaps`, which must not be.
fn assert_reached(what: &str, v: &netmeas_hdl::shipped_testbench::Vectors, gaps: &[&str]) {
    assert!(!v.coverage.is_empty(), "{what}");
    for (situation, n) in &v.coverage {
        if gaps.contains(situation) {
            assert_eq!(*n, 0, "{what}: {situation} is reached now: take it off REACHED_ON");
        } else {
            assert!(*n > 0, "{what}: {situation} never happens in its {} clocks: {:?}", v.cycles.len(), v.coverage);
        }
    }
}

/// Every block's shipped-testbench vectors (default config) reach each
/// situation they count at least once: reset, traffic, hazards, flips,
/// read-outs, stalls (the coverage `netmeas sim` prints), except the ones
/// [`REACHED_ON`] names, which the config it names reaches, with all the others.
#[test]
fn every_shipped_testbench_reaches_each_situation_it_counts() {
    for c in CORES {
        let cfg = c.default_config(None).unwrap();
        let Ok(v) = cfg.test_vectors(1, None) else { continue };
        let gaps = REACHED_ON.iter().find(|g| g.0 == c.name()).map_or(&[][..], |g| g.1);
        assert_reached(c.name(), &v, gaps);
    }
    for (block, _, _, file) in REACHED_ON {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs").join(file);
        let cfg = core(block).unwrap().load_config(&path).unwrap();
        cfg.validate().unwrap();
        assert_reached(file, &cfg.test_vectors(1, None).unwrap(), &[]);
    }
}

//! The station on SQLite: the scenarios, and what can go wrong with the file.

mod common;
mod scenarios;

use common::*;
use netmeas_station::db::{Access, Db};
use netmeas_station::{Station, StationConfig};

fn db_path(name: &str) -> (std::path::PathBuf, String) {
    let dir = scratch(name);
    let db = dir.join("station.sqlite").to_string_lossy().into_owned();
    (dir, db)
}

#[test]
fn sqlite_chain_is_paired_estimated_and_summed() {
    let (dir, db) = db_path("chain");
    scenarios::chain_is_paired_estimated_and_summed(&db, &dir);
}

#[test]
fn sqlite_stations_opened_together_share_one_database() {
    // A new file each round: the race is in creating and migrating it.
    for round in 0..5 {
        let (dir, db) = db_path(&format!("together-{round}"));
        scenarios::stations_opened_together_share_one_database(&db, &dir);
    }
}

#[test]
fn sqlite_fleet_finds_what_was_injected() {
    let (_dir, db) = db_path("fleet");
    scenarios::fleet_finds_what_was_injected(&db);
}

#[test]
fn sqlite_epochs_are_idempotent_and_bad_ones_refused() {
    let (dir, db) = db_path("idem");
    scenarios::epochs_are_idempotent_and_bad_ones_refused(&db, &dir);
}

#[test]
fn sqlite_bursts_are_found_where_injected() {
    let (dir, db) = db_path("bursts");
    scenarios::bursts_are_found_where_injected(&db, &dir);
}

#[test]
fn sqlite_a_batch_keeps_its_good_epochs() {
    let (dir, db) = db_path("batch");
    scenarios::a_batch_keeps_its_good_epochs(&db, &dir);
}

#[test]
fn sqlite_rollup_collapses_hours_like_an_hour_long_period() {
    let (dir, db) = db_path("rollup");
    scenarios::rollup_collapses_hours_like_an_hour_long_period(&db, &dir);
}

#[test]
fn sqlite_dbm_bursts_are_found_at_any_scale() {
    let (dir, db) = db_path("dbm");
    scenarios::dbm::dbm_bursts_are_found_at_any_scale(&db, &dir);
}

#[test]
fn sqlite_dbm_rollup_keeps_an_hour_in_m_buckets() {
    let (dir, db) = db_path("dbm-rollup");
    scenarios::dbm::dbm_rollup_keeps_an_hour_in_m_buckets(&db, &dir);
}

#[test]
fn sqlite_rda_segments_list_lost_and_reordered_packets() {
    let (dir, db) = db_path("rda");
    scenarios::rda::rda_segments_list_lost_and_reordered_packets(&db, &dir);
}

#[test]
fn sqlite_fridge_delays_follow_the_service_over_time() {
    let (dir, db) = db_path("fridge");
    scenarios::fridge::fridge_delays_follow_the_service_over_time(&db, &dir);
}

#[test]
fn a_failed_epoch_leaves_nothing_behind() {
    // The pairing of the receiver's epoch fails after its synopsis was
    // inserted (the latency table is gone): the synopsis is not kept either.
    let (dir, db) = db_path("atomic");
    let cfg = StationConfig::parse(&chain_station(&db, 1), &dir).unwrap();
    let mut st = Station::open(cfg, &db).unwrap();
    let seg = segment_epochs(&lda_config(), 1, 2_000, 0.0, 3, |_| 100.0);
    st.ingest("r0.egress", "s", &synopsis_json(&seg[0].0, "sender")).unwrap();
    st.db().execute("DROP TABLE latency", &[]).unwrap();
    let e = st.ingest("r1.ingress", "r", &synopsis_json(&seg[0].1, "receiver")).unwrap_err();
    assert!(e.contains("latency"), "{e}");
    let n = st.db().query("SELECT COUNT(*) FROM synopsis", &[]).unwrap()[0][0].int("n").unwrap();
    assert_eq!(n, 1, "the receiver's synopsis went with its failed epoch");
}

#[test]
fn pairing_uses_only_what_the_database_holds() {
    // A synopsis waiting in memory for its other end pairs only while the
    // database holds it: one deleted behind the station's back, or one whose
    // batch failed, is not estimated; the estimate, when it comes, is the
    // golden model's.
    use netmeas_sim::lda::estimate::estimate;
    use netmeas_station::ingest::{Epoch, Ingested};
    let (dir, db) = db_path("waiting");
    let cfg = StationConfig::parse(&chain_station(&db, 1), &dir).unwrap();
    let mut st = Station::open(cfg, &db).unwrap();
    let seg = segment_epochs(&lda_config(), 2, 2_000, 0.01, 5, |e| 300.0 + 100.0 * f64::from(e));
    let (tx, rx) = (|e: usize| synopsis_json(&seg[e].0, "sender"), |e: usize| synopsis_json(&seg[e].1, "receiver"));
    let paired = |r: Result<Ingested, String>| match r.unwrap() {
        Ingested::Stored { paired, .. } => paired,
        other => panic!("not stored: {other:?}"),
    };
    // Epoch 0: the sender's synopsis is deleted before the receiver reports.
    assert!(paired(st.ingest("r0.egress", "s", &tx(0))).is_empty());
    st.db().execute("DELETE FROM synopsis WHERE seq = 0", &[]).unwrap();
    assert!(paired(st.ingest("r1.ingress", "r", &rx(0))).is_empty(), "paired with a deleted synopsis");
    // Epoch 1: the sender's batch fails as a whole (its refused neighbour
    // cannot be logged), so nothing of it is stored.
    st.db().execute("ALTER TABLE rejection RENAME TO rejection_away", &[]).unwrap();
    let (t1, bad) = (tx(1), "{".to_string());
    let batch = [
        Epoch { point: "r0.egress", source: "s", body: &t1, link: None },
        Epoch { point: "r0.egress", source: "s", body: &bad, link: None },
    ];
    let e = st.ingest_batch(&batch).unwrap_err();
    assert!(e.contains("could not be logged"), "{e}");
    st.db().execute("ALTER TABLE rejection_away RENAME TO rejection", &[]).unwrap();
    assert!(paired(st.ingest("r1.ingress", "r", &rx(1))).is_empty(), "paired with an undone synopsis");
    // The sender again: now the pair is complete, read back from the database.
    assert_eq!(paired(st.ingest("r0.egress", "s", &t1)), vec!["l0".to_string()]);
    let rows = st.db().query("SELECT seq, mean_ns, samples FROM latency", &[]).unwrap();
    assert_eq!(rows.len(), 1, "only epoch 1 is estimated: {rows:?}");
    let want = estimate(&seg[1].0, &seg[1].1).unwrap();
    assert_eq!(rows[0][0].int("seq").unwrap(), 1);
    assert_eq!(rows[0][1].real("mean").unwrap(), want.mean);
    assert_eq!(rows[0][2].int("samples").unwrap(), want.samples as i64);
}

#[test]
fn database_problems_are_one_clear_error() {
    let (dir, db) = db_path("dberr");
    // Missing, for a query.
    let e = Db::open(&db, Access::Read).err().unwrap();
    assert!(e.contains("no station database at") && e.contains("station.sqlite"), "{e}");
    // An SQLite file that holds no station.
    rusqlite::Connection::open(&db).unwrap().execute_batch("CREATE TABLE other (x)").unwrap();
    let e = Db::open(&db, Access::Read).err().unwrap();
    assert!(e.contains("holds no station"), "{e}");
    // Not a database at all.
    let junk = dir.join("junk.sqlite");
    std::fs::write(&junk, vec![b'x'; 4096]).unwrap();
    let e = Db::open(junk.to_str().unwrap(), Access::Write).err().unwrap();
    assert!(e.contains("junk.sqlite") && e.contains("not a database"), "{e}");
    // Written by a newer netmeas.
    let newer = dir.join("newer.sqlite").to_string_lossy().into_owned();
    drop(Db::open(&newer, Access::Write).unwrap());
    rusqlite::Connection::open(&newer)
        .unwrap()
        .execute_batch("INSERT INTO refinery_schema_history (version, name, applied_on, checksum) VALUES (99, 'future', '2026-12-03T00:00:00Z', '0')")
        .unwrap();
    for access in [Access::Read, Access::Write] {
        let e = Db::open(&newer, access).err().unwrap();
        assert!(e.contains("schema is version 99, written by a newer netmeas"), "{e}");
    }
    // Read-only: the ingest says so, the store is unchanged.
    let ro = dir.join("ro.sqlite").to_string_lossy().into_owned();
    let cfg = StationConfig::parse(&chain_station(&ro, 1), &dir).unwrap();
    drop(Station::open(cfg.clone(), &ro).unwrap());
    let mut perms = std::fs::metadata(&ro).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&ro, perms).unwrap();
    if unsafe { geteuid() } != 0 {
        // (root writes through file modes: the check only means something for a user.)
        let seg = segment_epochs(&lda_config(), 1, 1_000, 0.0, 3, |_| 100.0);
        let mut st = Station::open(cfg, &ro).unwrap();
        let e = st.ingest("r0.egress", "s", &synopsis_json(&seg[0].0, "sender")).unwrap_err();
        assert!(e.contains("read-only"), "{e}");
    }
    let mut r = Db::open(&ro, Access::Read).unwrap();
    assert_eq!(r.query("SELECT COUNT(*) FROM synopsis", &[]).unwrap()[0][0].int("n").unwrap(), 0);
}

#[test]
fn a_locked_database_waits_then_says_so() {
    let (dir, db) = db_path("lock");
    let cfg = StationConfig::parse(&chain_station(&db, 1), &dir).unwrap();
    let mut st = Station::open(cfg, &db).unwrap();
    let holder = rusqlite::Connection::open(&db).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let seg = segment_epochs(&lda_config(), 1, 1_000, 0.0, 3, |_| 100.0);
    let t = std::time::Instant::now();
    let e = st.ingest("r0.egress", "s", &synopsis_json(&seg[0].0, "sender")).unwrap_err();
    assert!(e.contains("locked by another writer"), "{e}");
    assert!(t.elapsed() >= std::time::Duration::from_secs(4), "it waited for the lock first");
    holder.execute_batch("ROLLBACK").unwrap();
    st.ingest("r0.egress", "s", &synopsis_json(&seg[0].0, "sender")).unwrap();
}

#[test]
fn station_files_are_checked_line_by_line() {
    let dir = scratch("cfg");
    let good = chain_station("x.sqlite", 1);
    let cfg = StationConfig::parse(&good, &dir).unwrap();
    assert_eq!(cfg.database.as_deref(), Some(dir.join("x.sqlite").to_str().unwrap()));
    assert_eq!(cfg.points.len(), 2);
    let cases = [
        (good.replace("core = \"lda\"", "core = \"nope\""), "does not archive `nope` points"),
        (good.replace("epoch = \"1s\"", "epoch = \"soon\""), "`epoch`"),
        (good.replace("epoch = \"1s\"", "epoch = \"0s\""), "not a usable epoch length"),
        (good.replace("2026-12-01T00:00:00Z", "yesterday"), "`start`"),
        (good.replace("rows = 128", "rows = 100"), "`rows`"),
        (good.replace("receiver = \"r1.ingress\"", "receiver = \"r7.ingress\""), "no point `r7.ingress`"),
        (good.replace("receiver = \"r1.ingress\"", "receiver = \"r0.egress\""), "the same point"),
        (good.replace("name = \"r1.ingress\"", "name = \"r0.egress\""), "named twice"),
        (good.replace("router = \"r0\"", "router = \"r0\"\ncolour = \"red\""), "unknown field `colour`"),
        (good.replace("config = { rows = 128 }", "config = \"missing.toml\""), "missing.toml"),
        (
            good.replace("core = \"lda\"\nconfig = { rows = 128 }", "core = \"expb\""),
            "`epoch` is 1s, but the core's period is 2000000000 ticks of 1 ns",
        ),
        (good.clone() + "[retention]\nrollup = \"1d\"\nraw = \"2h\"\n", "`raw` (2h) is shorter than `rollup` (1d)"),
        (good.clone() + "[retention]\nrollup = \"10m\"\nraw = \"2h\"\n", "10m is not a duration of an hour or more"),
        (good.clone() + "[retention]\nrollup = \"soon\"\nraw = \"2h\"\n", "[retention] `rollup`"),
        (good.clone() + "[retention]\nrollup = \"1d\"\n", "missing field `raw`"),
    ];
    for (text, why) in cases {
        let e = StationConfig::parse(&text, &dir).err().unwrap();
        assert!(e.contains(why) && !e.contains('\n'), "{why}: {e}");
    }
    let kept = StationConfig::parse(&(good.clone() + "[retention]\nrollup = \"1d\"\nraw = \"1week\"\n"), &dir).unwrap();
    let day = 86_400_000_000_000;
    assert_eq!(kept.retention, Some(netmeas_station::config::Retention { rollup_ns: day, raw_ns: 7 * day }));
    assert_eq!(cfg.retention, None);
    // Epoch starts are the point's start plus whole epochs.
    assert_eq!(cfg.points[0].epoch_start(3).unwrap(), START_NS + 3_000_000_000);
    assert!(cfg.points[0].epoch_start(u64::MAX).is_err());
}

unsafe extern "C" {
    fn geteuid() -> u32;
}

#[test]
fn the_archive_query_benchmark_finds_what_it_wrote() {
    let (_dir, db) = db_path("bench-query");
    let r = netmeas_station::bench::query_archive(&db, 20, 2).unwrap();
    assert_eq!((r.links, r.days, r.rows), (20, 2, 20 * 48 * 11));
    let mut d = Db::open(&db, Access::Read).unwrap();
    let n = |d: &mut Db, sql: &str| d.query(sql, &[]).unwrap()[0][0].int("n").unwrap() as usize;
    // At 1 ms each point answers at 1.25 ms; a burst is a row above 5 Gbit/s there.
    let above = "SELECT COUNT(*) FROM bandwidth WHERE scale_ns = 1250000 AND max_bps > 5e9";
    assert_eq!(r.all_bursts, n(&mut d, above));
    // The archive spans 2026-11-01 and 2026-11-02: its last day starts 29 days before START_NS (2026-12-01).
    let last_day = format!("{above} AND t_ns >= {}", START_NS - 29 * 86_400_000_000_000);
    assert_eq!(r.day_bursts, n(&mut d, &last_day));
    assert!(r.all_bursts > r.day_bursts && r.day_bursts > 0, "{r:?}");
    assert!(r.all_ms > 0.0 && r.day_ms > 0.0 && r.hour_ms > 0.0);
}

#[test]
fn the_ingest_benchmark_stores_what_it_counts() {
    let (_dir, db) = db_path("bench");
    let mut rounds_seen = Vec::new();
    let r = netmeas_station::bench::run(&db, 3, 2, 4, 1, |k| rounds_seen.push(k)).unwrap();
    assert_eq!(rounds_seen, [1, 2]);
    assert_eq!((r.links, r.rounds, r.epochs), (3, 2, 18));
    assert!(r.bytes > 18 * 1_000 && r.seconds > 0.0 && r.epochs_per_s > 0.0, "{r:?}");
    assert_eq!(r.links_sustained, r.epochs_per_s / 3.0);
    let mut d = Db::open(&db, Access::Read).unwrap();
    let n = |d: &mut Db, t: &str| d.query(&format!("SELECT COUNT(*) FROM {t}"), &[]).unwrap()[0][0].int("n").unwrap();
    assert_eq!((n(&mut d, "synopsis"), n(&mut d, "latency"), n(&mut d, "bandwidth")), (18, 6, 6 * 11));
    let bytes: i64 = d.query("SELECT SUM(LENGTH(body)) FROM synopsis", &[]).unwrap()[0][0].int("bytes").unwrap();
    assert!(bytes > 0 && (bytes as u64) <= r.bytes, "canonical bodies are no longer than the reported ones");
}

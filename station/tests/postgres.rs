//! The station on PostgreSQL: a throw-away cluster of the test's own
//! (Debian's server, `initdb` + `pg_ctl` on a Unix socket), the same
//! scenarios as on SQLite, and the day partitions.

mod common;
mod scenarios;

use common::*;
use netmeas_station::db::{Access, Db, Val};

#[test]
fn postgres_station_scenarios_and_day_partitions() {
    let pg = PgCluster::start("st");
    let dir = scratch("pg");
    pg.create_db("chain");
    pg.create_db("idem");
    pg.create_db("bursts");
    pg.create_db("batch");
    pg.create_db("rollup");
    pg.create_db("fleet");
    pg.create_db("dbm");
    pg.create_db("dbmrollup");
    pg.create_db("rda");
    pg.create_db("fridge");
    pg.create_db("bench");
    pg.create_db("together");
    scenarios::chain_is_paired_estimated_and_summed(&pg.url("chain"), &dir);
    scenarios::epochs_are_idempotent_and_bad_ones_refused(&pg.url("idem"), &dir);
    scenarios::bursts_are_found_where_injected(&pg.url("bursts"), &dir);
    scenarios::a_batch_keeps_its_good_epochs(&pg.url("batch"), &dir);
    scenarios::rollup_collapses_hours_like_an_hour_long_period(&pg.url("rollup"), &dir);
    scenarios::fleet_finds_what_was_injected(&pg.url("fleet"));
    scenarios::dbm::dbm_bursts_are_found_at_any_scale(&pg.url("dbm"), &dir);
    scenarios::dbm::dbm_rollup_keeps_an_hour_in_m_buckets(&pg.url("dbmrollup"), &dir);
    scenarios::rda::rda_segments_list_lost_and_reordered_packets(&pg.url("rda"), &dir);
    scenarios::fridge::fridge_delays_follow_the_service_over_time(&pg.url("fridge"), &dir);
    scenarios::stations_opened_together_share_one_database(&pg.url("together"), &dir);

    // Three connections ingesting shares of the links at once: every epoch
    // stored once, every segment paired on its connection, each day
    // partition created once although all three reach it together.
    let r = netmeas_station::bench::run(&pg.url("bench"), 40, 2, 16, 3, |_| {}).unwrap();
    assert_eq!((r.connections, r.epochs), (3, 240));
    let mut db = Db::open(&pg.url("bench"), Access::Read).unwrap();
    let n = |d: &mut Db, t: &str| d.query(&format!("SELECT COUNT(*) FROM {t}"), &[]).unwrap()[0][0].clone();
    assert_eq!([n(&mut db, "synopsis"), n(&mut db, "latency"), n(&mut db, "bandwidth")], [240, 80, 880].map(Val::Int));
    assert!(netmeas_station::query::unpaired(&mut db).unwrap().is_empty());
    let e =
        netmeas_station::bench::run(&scratch("pg").join("b.sqlite").to_string_lossy(), 2, 1, 4, 2, |_| {}).unwrap_err();
    assert!(e.contains("one writer at a time"), "{e}");

    // Every epoch of 2026-12-01 went to that day's partition of each table.
    let mut db = Db::open(&pg.url("chain"), Access::Read).unwrap();
    let parts = db
        .query(
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid \
             JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = $1 ORDER BY 1",
            &[Val::from("synopsis")],
        )
        .unwrap();
    let day = START_NS / netmeas_station::db::DAY_NS;
    assert_eq!(parts, vec![vec![Val::Text(format!("synopsis_d{day}"))]]);
    let n = db.query(&format!("SELECT COUNT(*) FROM latency_d{day}"), &[]).unwrap();
    assert_eq!(n[0][0], Val::Int(15));

    // A wrong URL or a missing database is one line naming the server, without its password.
    let e = Db::open(&pg.url("nothere").replace("user=postgres", "user=postgres&password=hunter2"), Access::Read)
        .err()
        .unwrap();
    assert!(e.contains("cannot connect") && e.contains("nothere") && !e.contains('\n'), "{e}");
    let e = Db::open("postgresql://op:hunter2@127.0.0.1:1/x", Access::Read).err().unwrap();
    assert!(e.contains("op:***@") && !e.contains("hunter2"), "{e}");
}

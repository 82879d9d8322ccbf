//! What the station tests share: LDA epochs of known segments from the golden
//! cores, a station file for them, and a throw-away PostgreSQL cluster.
#![allow(dead_code)]

use netmeas_sim::lda::{LdaConfig, LdaSynopsis};
pub use netmeas_station::fleet::{LdaLink, synopsis_json};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A small LDA config, so that tests stay quick: 2 banks of 128 rows.
pub fn lda_config() -> LdaConfig {
    LdaConfig { rows: 128, ..LdaConfig::default() }
}

/// `epochs` epochs of one segment (1 s each) measured by golden LDA cores:
/// `packets` packets per epoch, delays of mean `mean_ns(epoch)`, `loss` of
/// them lost. Sender and receiver synopses per epoch.
pub fn segment_epochs(
    cfg: &LdaConfig,
    epochs: u32,
    packets: u32,
    loss: f64,
    seed: u64,
    mean_ns: impl Fn(u32) -> f64,
) -> Vec<(LdaSynopsis, LdaSynopsis)> {
    let mut link = LdaLink::new(cfg, 1_000_000_000, seed);
    (0..epochs)
        .map(|e| {
            let (s, r, _) = link.epoch(packets, mean_ns(e), loss);
            (s, r)
        })
        .collect()
}

/// A station file of a chain of `hops` LDA segments r0 → r1 → … (each
/// segment: `rK.egress` to `rK+1.ingress`), epochs of 1 s from 2026-12-01.
pub fn chain_station(database: &str, hops: usize) -> String {
    let mut s = format!("database = {database:?}\n");
    for k in 0..hops {
        for (dir, router) in [("egress", k), ("ingress", k + 1)] {
            s += &format!(
                "[[point]]\nname = \"r{router}.{dir}\"\nrouter = \"r{router}\"\nlink = \"l{k}\"\ndirection = \"{dir}\"\n\
                 core = \"lda\"\nconfig = {{ rows = 128 }}\nepoch = \"1s\"\nstart = \"2026-12-01T00:00:00Z\"\n\n"
            );
        }
        s += &format!("[[segment]]\nname = \"l{k}\"\nsender = \"r{k}.egress\"\nreceiver = \"r{}.ingress\"\n\n", k + 1);
    }
    s
}

/// 2026-12-01T00:00:00Z in ns.
pub const START_NS: i64 = 1_796_083_200_000_000_000;

/// A fresh folder for one test.
pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("netmeas-station-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A PostgreSQL cluster of the test's own (Debian's server: `initdb` and
/// `pg_ctl`), on a Unix socket in a fresh folder, no TCP; stopped and removed
/// when dropped.
pub struct PgCluster {
    dir: PathBuf,
    bin: PathBuf,
    as_postgres: bool,
}

fn pg_bin() -> PathBuf {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path().join("bin")).filter(|p| p.join("initdb").exists()).collect())
        .unwrap_or_default();
    dirs.sort_by_key(|p| p.parent().and_then(|v| v.file_name()).and_then(|v| v.to_str()?.parse::<u32>().ok()));
    dirs.pop().expect("PostgreSQL's server is not installed (tools/setup.sh installs Debian's postgresql)")
}

impl PgCluster {
    /// Starts a cluster; initdb refuses root, so as root it runs as the `postgres` user.
    pub fn start(name: &str) -> Self {
        let bin = pg_bin();
        // A short path: a Unix socket's path is limited to 107 bytes.
        let dir = PathBuf::from(format!("/tmp/nmpg-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let as_postgres = unsafe { libc_geteuid() } == 0;
        let c = PgCluster { dir, bin, as_postgres };
        if as_postgres {
            assert!(Command::new("chown").arg("postgres:postgres").arg(&c.dir).status().unwrap().success());
        }
        let data = c.dir.join("data");
        c.run("initdb", &["-D", data.to_str().unwrap(), "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"]);
        let opts = format!("-k {} -c listen_addresses= -p 5432 -c fsync=off", c.dir.display());
        let log = c.dir.join("log");
        c.run("pg_ctl", &["-D", data.to_str().unwrap(), "-o", &opts, "-l", log.to_str().unwrap(), "-w", "start"]);
        c
    }

    fn run(&self, tool: &str, args: &[&str]) {
        let exe = self.bin.join(tool);
        let out = if self.as_postgres {
            Command::new("runuser").args(["-u", "postgres", "--"]).arg(&exe).args(args).output()
        } else {
            Command::new(&exe).args(args).output()
        }
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
        assert!(
            out.status.success(),
            "{tool} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// A URL of database `db` (created by [`Self::create_db`], or `postgres`).
    pub fn url(&self, db: &str) -> String {
        format!("postgresql:///{db}?host={}&port=5432&user=postgres", self.dir.display())
    }

    /// Creates database `db`.
    pub fn create_db(&self, db: &str) {
        let mut c = postgres::Client::connect(&self.url("postgres"), postgres::NoTls).unwrap();
        c.batch_execute(&format!("CREATE DATABASE {db}")).unwrap();
    }

    /// The cluster's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for PgCluster {
    fn drop(&mut self) {
        let data = self.dir.join("data");
        let exe = self.bin.join("pg_ctl");
        let args = ["-D", data.to_str().unwrap(), "-m", "immediate", "-w", "stop"];
        let _ = if self.as_postgres {
            Command::new("runuser").args(["-u", "postgres", "--"]).arg(&exe).args(args).output()
        } else {
            Command::new(&exe).args(args).output()
        };
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

unsafe extern "C" {
    #[link_name = "geteuid"]
    fn libc_geteuid() -> u32;
}

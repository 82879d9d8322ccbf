//! `netmeas board read --station FILE --points …`: every epoch the reader
//! takes from the engine is stored in a measurement station as soon as it is
//! read (the LDA paper's routers reporting to their monitoring station,
//! §II), one transaction per epoch, with what reading it over the serial
//! line cost (requests, retries, CRC errors) for the points' health; and the
//! same epochs as the station's synopsis files (`--save-epochs`).

use netmeas_sim::board::engine::EngineConfig;
use netmeas_sim::board::host::LinkStats;
use netmeas_sim::board::reader::EpochSynopses;
use netmeas_sim::lda::LdaSynopsis;
use netmeas_station::ingest::Epoch;
use netmeas_station::{Ingested, Station, StationConfig};
use std::path::Path;

/// An engine core whose synopses a station point takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineCore {
    /// The sender LDA core.
    Sender,
    /// The receiver LDA core.
    Receiver,
    /// The fridge core.
    Fridge,
    /// The EXPB core (one synopsis per period).
    Expb,
    /// The DBM core (one synopsis per period).
    Dbm,
}

impl EngineCore {
    /// Every core an engine can have.
    pub const ALL: [EngineCore; 5] = [Self::Sender, Self::Receiver, Self::Fridge, Self::Expb, Self::Dbm];

    /// As `--points` names it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Sender => "sender",
            Self::Receiver => "receiver",
            Self::Fridge => "fridge",
            Self::Expb => "expb",
            Self::Dbm => "dbm",
        }
    }

    /// Whether the engine `cfg` has this core.
    fn on(self, cfg: &EngineConfig) -> bool {
        match self {
            Self::Sender | Self::Receiver => true,
            Self::Fridge => cfg.fridge.is_some(),
            Self::Expb => cfg.expb.is_some(),
            Self::Dbm => cfg.dbm.is_some(),
        }
    }
}

/// One synopsis of an epoch as a station ingests it.
pub struct Body {
    /// The core that reported it.
    pub core: EngineCore,
    /// Its file name under the epoch's folder (`--save-epochs`).
    pub file: String,
    /// The synopsis, JSON text.
    pub json: String,
}

fn to_json<T: serde::Serialize>(v: &T) -> Result<String, String> {
    serde_json::to_string(v).map_err(|e| e.to_string())
}

/// The two LDA ends of an epoch, each marked with its end.
pub fn lda_bodies(sender: &LdaSynopsis, receiver: &LdaSynopsis) -> Vec<Body> {
    let body = |core, s, end: &str| Body {
        core,
        file: format!("{end}.json"),
        json: netmeas_station::fleet::synopsis_json(s, end),
    };
    vec![body(EngineCore::Sender, sender, "sender"), body(EngineCore::Receiver, receiver, "receiver")]
}

/// Every core's synopsis of one epoch: both LDA ends, the fridge's
/// histograms, and the EXPB and DBM periods read with the epoch.
pub fn epoch_bodies(s: &EpochSynopses) -> Result<Vec<Body>, String> {
    let mut out = lda_bodies(&s.sender, &s.receiver);
    if let Some(f) = &s.fridge {
        out.push(Body { core: EngineCore::Fridge, file: "fridge.json".into(), json: to_json(f)? });
    }
    for p in &s.expb {
        out.push(Body { core: EngineCore::Expb, file: format!("expb-{}.json", p.period.index), json: to_json(p)? });
    }
    for p in &s.dbm {
        out.push(Body { core: EngineCore::Dbm, file: format!("dbm-{}.json", p.period.index), json: to_json(p)? });
    }
    Ok(out)
}

/// Writes each epoch's synopses (`(seq, bodies)`) into `dir/epoch-<seq>/`, every file or none.
pub fn save_epochs(dir: &Path, epochs: &[(u32, Vec<Body>)]) -> Result<(), String> {
    let set: Vec<(std::path::PathBuf, String)> = epochs
        .iter()
        .flat_map(|(seq, bodies)| {
            let d = dir.join(format!("epoch-{seq}"));
            bodies.iter().map(move |b| (d.join(&b.file), b.json.clone()))
        })
        .collect();
    for d in set.iter().filter_map(|(p, _)| p.parent()) {
        std::fs::create_dir_all(d).map_err(|e| format!("cannot create {}: {e}", d.display()))?;
    }
    crate::output::write_set(&set)
}

/// A station taking a reading session's epochs as they are read.
pub struct StationSink {
    station: Station,
    /// Per engine core, the station point that takes its synopses.
    points: Vec<(EngineCore, String)>,
    /// Where the epochs come from, for the station's rejection log.
    source: String,
    /// The link's counts when the epoch before was stored.
    before: LinkStats,
}

impl StationSink {
    /// Opens the station of `file` for the engine `cfg` on `port`, its
    /// points named by `--points` (`core=point`, e.g. `sender=r1.tx`).
    /// Every named core must be on the engine and read (`readable`), every
    /// point in the station file with no epochs yet: the engine numbers its
    /// epochs from 0 at each reading session, so a session takes points of
    /// its own.
    pub fn open(
        file: &Path,
        list: &[String],
        cfg: &EngineConfig,
        port: &str,
        readable: &[EngineCore],
    ) -> Result<Self, String> {
        let mut points = Vec::new();
        for item in list {
            let (core, point) = item
                .split_once('=')
                .ok_or_else(|| format!("--points {item}: not CORE=POINT (e.g. sender=r1.eth0.egress)"))?;
            let core = EngineCore::ALL.into_iter().find(|c| c.name() == core).ok_or_else(|| {
                format!("--points {item}: `{core}` is not an engine core (sender, receiver, fridge, expb, dbm)")
            })?;
            if !core.on(cfg) {
                return Err(format!("--points {item}: this board's engine has no {} core", core.name()));
            }
            if !readable.contains(&core) {
                return Err(format!(
                    "--points {item}: the {} core is not read from the external streams (sender and receiver are)",
                    core.name()
                ));
            }
            if points.iter().any(|(c, _)| *c == core) {
                return Err(format!("--points: the {} core is named twice", core.name()));
            }
            points.push((core, point.to_string()));
        }
        if points.is_empty() {
            return Err("--points: name at least one core's station point (e.g. sender=r1.tx,receiver=r2.rx)".into());
        }
        let station_cfg = StationConfig::load(file)?;
        for (_, p) in &points {
            if station_cfg.point(p).is_none() {
                return Err(format!("--points: no point `{p}` in {}", file.display()));
            }
        }
        let target = station_cfg.database_or(None)?;
        let mut station = Station::open(station_cfg, &target)?;
        for (core, p) in &points {
            let held = station.stored_epochs(p)?;
            if held > 0 {
                return Err(format!(
                    "--points {}={p}: the point already holds {held} epochs; the engine numbers its epochs from 0 \
                     each session, so a session takes points with none",
                    core.name()
                ));
            }
        }
        Ok(Self { station, points, source: format!("board {port}"), before: LinkStats::default() })
    }

    /// Stores one epoch's synopses (those of the named cores) in one
    /// transaction, with what reading it cost since the epoch before
    /// (`link`: the host's counts now). A refused synopsis stops the
    /// session with the station's reason (and is in its rejection log).
    pub fn store(&mut self, bodies: &[Body], link: LinkStats) -> Result<(), String> {
        let counts = link.since(&self.before);
        let epochs: Vec<Epoch<'_>> = bodies
            .iter()
            .filter_map(|body| {
                let (_, point) = self.points.iter().find(|(c, _)| *c == body.core)?;
                Some(Epoch { point, source: &self.source, body: &body.json, link: Some(counts) })
            })
            .collect();
        for outcome in self.station.ingest_batch(&epochs)? {
            let _: Ingested = outcome?;
        }
        self.before = link;
        Ok(())
    }
}

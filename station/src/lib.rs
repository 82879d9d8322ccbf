//! The measurement station: every epoch of every measurement point archived
//! in a database, paired across segments, estimated and queried across links
//! and time — the LDA paper's monitoring station (Kompella et al., ToN 2012,
//! §II MPlane: routers report segment measurements to a centralized station
//! that localises latency along forwarding paths).
//!
//! - [`config`]: the station file (database, points, segments);
//! - [`db`]: SQLite or PostgreSQL, migrated schema, one transaction per epoch;
//! - [`point_core`]: what the station does per core, one implementation each
//!   ([`lda`], [`rda`], [`fridge`], [`expb`], [`dbm`]);
//! - [`ingest`]: epochs in, checked, stored, paired and estimated;
//! - [`query`]: latency series, path latency, lost and reordered packets,
//!   delay percentiles, bursts, unpaired epochs, rejections;
//! - [`rollup`]: the retention policy: old EXPB, DBM and fridge epochs collapsed per hour, old raw synopses dropped;
//! - [`http`]: the dashboard and its JSON queries;
//! - [`bench`]: the ingest benchmark;
//! - [`fleet`]: simulated links whose injected truth the answers are checked against;
//! - [`scenario`]: the fleet simulator: many links, diurnal load, injected bursts and spikes, checked.

pub mod bench;
pub mod config;
pub mod db;
pub mod dbm;
pub mod expb;
pub mod fleet;
pub mod fridge;
pub mod http;
pub mod ingest;
pub mod lda;
pub mod point_core;
pub mod query;
pub mod rda;
pub mod rollup;
pub mod scenario;

pub use config::StationConfig;
pub use db::{Access, Db};
pub use ingest::{Ingested, Station};

//! The MAPLE packet latency store (Lee, Duffield, Kompella, SIGMETRICS 2012).

pub mod answer;
pub mod core;
pub mod partition;
pub mod spec;
pub mod vectors;

pub use self::answer::SvbfAnswer;
pub use self::core::SvbfCore;
pub use self::partition::SvbfPartition;

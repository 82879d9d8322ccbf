//! Traffic for the measurement cores: delay and loss models of the LDA
//! evaluation (Kompella et al. §IV), FIFO sender → receiver traces with
//! ground truth, and packet keys and timestamps from pcap captures.

pub mod delay;
pub mod key;
pub mod loss;
pub mod pcap;
pub mod trace;

pub use delay::DelayDist;
pub use key::pack_key;
pub use loss::{LossModel, LossProcess};
pub use pcap::{PcapFrame, PcapPacket, PcapTrace, ipv4_packet, parse_pcap, pcap_frames, read_pcap, write_pcap};
pub use trace::{Source, Trace, TracePacket, TrafficSpec, Truth};

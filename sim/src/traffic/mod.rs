//! Traffic for the measurement cores: delay and loss models of the LDA
//! evaluation (Kompella et al. §IV), FIFO sender → receiver traces with
//! ground truth, and packet keys and timestamps from pcap and pcapng captures.

pub mod capture;
pub mod delay;
pub mod key;
pub mod loss;
pub mod pcap;
pub mod trace;

pub use capture::{CaptureFormat, CaptureReader, CapturedFrame, write_capture};
pub use delay::DelayDist;
pub use key::pack_key;
pub use loss::{LossModel, LossProcess};
pub use pcap::{PcapPacket, PcapTrace, parse_pcap, read_pcap, write_pcap, write_pcap_as};
pub use trace::{Source, Trace, TracePacket, TrafficSpec, Truth};

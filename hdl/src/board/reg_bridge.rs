//! Register bridge of the host link: request frames from the UART receiver
//! become one-clock strobes on the engine's register bus, and each request
//! is answered with a response frame through the UART transmitter. The
//! frames, the CRC, the timeout and the statuses are documented with the
//! per-clock model [`BridgeCycle`](netmeas_sim::board::link::BridgeCycle),
//! which this block equals every clock.

use super::crc16::Crc16Byte;
use netmeas_sim::board::link::{
    BridgeConfig, LINK_BUS_WAIT, LINK_CMD_READ, LINK_CMD_WRITE, LINK_REQUEST_SYNC, LINK_RESPONSE_SYNC, LinkStatus,
};
use rust_hdl::prelude::*;

/// Bridge states.
const HUNT: u64 = 0;
const RECEIVE: u64 = 1;
const EXECUTE: u64 = 2;
const RESPOND: u64 = 3;

/// The bridge for one [`BridgeConfig`].
#[derive(LogicBlock)]
pub struct RegBridge {
    // --- clock and synchronous reset ---
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: hunting, counters cleared.
    pub reset: Signal<In, Bit>,
    // --- bytes from the UART receiver ---
    /// A received byte is offered.
    pub s_valid: Signal<In, Bit>,
    /// The byte is taken (while hunting or receiving a request).
    pub s_ready: Signal<Out, Bit>,
    /// The byte.
    pub s_data: Signal<In, Bits<8>>,
    // --- bytes to the UART transmitter ---
    /// A response byte is presented.
    pub m_valid: Signal<Out, Bit>,
    /// The transmitter takes it.
    pub m_ready: Signal<In, Bit>,
    /// The byte.
    pub m_data: Signal<Out, Bits<8>>,
    // --- register bus ---
    /// Read strobe (one clock).
    pub bus_re: Signal<Out, Bit>,
    /// Write strobe (one clock).
    pub bus_we: Signal<Out, Bit>,
    /// Register address.
    pub bus_addr: Signal<Out, Bits<16>>,
    /// Word to write.
    pub bus_wdata: Signal<Out, Bits<32>>,
    /// The bus answers (in the strobe's clock or up to 255 clocks later).
    pub bus_ack: Signal<In, Bit>,
    /// The word read, with `bus_ack`.
    pub bus_rdata: Signal<In, Bits<32>>,
    // --- error counters (saturating, cleared by reset) ---
    /// Requests answered with a CRC error.
    pub crc_errors: Signal<Out, Bits<16>>,
    /// Requests dropped by the timeout.
    pub truncated: Signal<Out, Bits<16>>,
    // --- the CRC of one byte ---
    crc_byte: Crc16Byte,
    // --- constants ---
    timeout_last: Constant<Bits<32>>,
    st_hunt: Constant<Bits<2>>,
    st_receive: Constant<Bits<2>>,
    st_execute: Constant<Bits<2>>,
    st_respond: Constant<Bits<2>>,
    req_sync: Constant<Bits<8>>,
    resp_sync: Constant<Bits<8>>,
    cmd_read: Constant<Bits<8>>,
    cmd_write: Constant<Bits<8>>,
    status_done: Constant<Bits<2>>,
    status_bad_crc: Constant<Bits<2>>,
    status_bad_cmd: Constant<Bits<2>>,
    status_bus_timeout: Constant<Bits<2>>,
    wait_last: Constant<Bits<8>>,
    crc_init: Constant<Bits<16>>,
    /// Position of a read's and a write's last byte after the sync byte.
    len_read: Constant<Bits<4>>,
    len_write: Constant<Bits<4>>,
    kpos: [Constant<Bits<4>>; 8],
    zero4: Constant<Bits<4>>,
    one4: Constant<Bits<4>>,
    zero8: Constant<Bits<8>>,
    one8: Constant<Bits<8>>,
    zero16: Constant<Bits<16>>,
    one16: Constant<Bits<16>>,
    ones16: Constant<Bits<16>>,
    zero32: Constant<Bits<32>>,
    one32: Constant<Bits<32>>,
    // --- state ---
    state: DFF<Bits<2>>,
    /// Bytes after the sync byte received, or the response byte presented.
    pos: DFF<Bits<4>>,
    /// Clocks since the strobe.
    bus_wait: DFF<Bits<8>>,
    crc: DFF<Bits<16>>,
    cmd: DFF<Bits<8>>,
    addr: DFF<Bits<16>>,
    wdata: DFF<Bits<32>>,
    rdata: DFF<Bits<32>>,
    status: DFF<Bits<2>>,
    /// Clocks since the last byte of a request.
    timer: DFF<Bits<32>>,
    crc_error_count: DFF<Bits<16>>,
    truncated_count: DFF<Bits<16>>,
    // --- combinational ---
    resp_byte: Signal<Local, Bits<8>>,
    byte_in: Signal<Local, Bit>,
    /// The response starts at this edge, with this status.
    respond: Signal<Local, Bit>,
    resp_status: Signal<Local, Bits<2>>,
    frame_len: Signal<Local, Bits<4>>,
}

impl RegBridge {
    /// The bridge for `cfg` (validated by the caller).
    pub fn new(cfg: &BridgeConfig) -> Self {
        assert!(cfg.validate().is_ok(), "invalid bridge config {cfg:?}");
        let k4 = |v: u64| Constant::new(v.to_bits());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_valid: Default::default(),
            s_ready: Default::default(),
            s_data: Default::default(),
            m_valid: Default::default(),
            m_ready: Default::default(),
            m_data: Default::default(),
            bus_re: Default::default(),
            bus_we: Default::default(),
            bus_addr: Default::default(),
            bus_wdata: Default::default(),
            bus_ack: Default::default(),
            bus_rdata: Default::default(),
            crc_errors: Default::default(),
            truncated: Default::default(),
            crc_byte: Default::default(),
            timeout_last: Constant::new((cfg.timeout_clocks - 1).to_bits()),
            st_hunt: Constant::new(HUNT.to_bits()),
            st_receive: Constant::new(RECEIVE.to_bits()),
            st_execute: Constant::new(EXECUTE.to_bits()),
            st_respond: Constant::new(RESPOND.to_bits()),
            req_sync: Constant::new((LINK_REQUEST_SYNC as u64).to_bits()),
            resp_sync: Constant::new((LINK_RESPONSE_SYNC as u64).to_bits()),
            cmd_read: Constant::new((LINK_CMD_READ as u64).to_bits()),
            cmd_write: Constant::new((LINK_CMD_WRITE as u64).to_bits()),
            status_done: Constant::new((LinkStatus::Done as u64).to_bits()),
            status_bad_crc: Constant::new((LinkStatus::BadCrc as u64).to_bits()),
            status_bad_cmd: Constant::new((LinkStatus::BadCommand as u64).to_bits()),
            status_bus_timeout: Constant::new((LinkStatus::BusTimeout as u64).to_bits()),
            wait_last: Constant::new((LINK_BUS_WAIT as u64).to_bits()),
            crc_init: Constant::new(0xFFFFu64.to_bits()),
            len_read: k4(4),
            len_write: k4(8),
            kpos: [k4(0), k4(1), k4(2), k4(3), k4(4), k4(5), k4(6), k4(7)],
            zero4: k4(0),
            one4: k4(1),
            zero8: Constant::new(0u64.to_bits()),
            one8: Constant::new(1u64.to_bits()),
            zero16: Constant::new(0u64.to_bits()),
            one16: Constant::new(1u64.to_bits()),
            ones16: Constant::new(0xFFFFu64.to_bits()),
            zero32: Constant::new(0u64.to_bits()),
            one32: Constant::new(1u64.to_bits()),
            state: Default::default(),
            pos: Default::default(),
            bus_wait: Default::default(),
            crc: Default::default(),
            cmd: Default::default(),
            addr: Default::default(),
            wdata: Default::default(),
            rdata: Default::default(),
            status: Default::default(),
            timer: Default::default(),
            crc_error_count: Default::default(),
            truncated_count: Default::default(),
            resp_byte: Default::default(),
            byte_in: Default::default(),
            respond: Default::default(),
            resp_status: Default::default(),
            frame_len: Default::default(),
        }
    }
}

impl Logic for RegBridge {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            pos,
            bus_wait,
            crc,
            cmd,
            addr,
            wdata,
            rdata,
            status,
            timer,
            crc_error_count,
            truncated_count
        );
        // ---- outputs ----
        if self.pos.q.val() == self.kpos[0].val() {
            self.resp_byte.next = self.resp_sync.val();
        } else if self.pos.q.val() == self.kpos[1].val() {
            self.resp_byte.next = bit_cast::<8, 2>(self.status.q.val());
        } else if self.pos.q.val() == self.kpos[2].val() {
            self.resp_byte.next = self.rdata.q.val().get_bits::<8>(24);
        } else if self.pos.q.val() == self.kpos[3].val() {
            self.resp_byte.next = self.rdata.q.val().get_bits::<8>(16);
        } else if self.pos.q.val() == self.kpos[4].val() {
            self.resp_byte.next = self.rdata.q.val().get_bits::<8>(8);
        } else if self.pos.q.val() == self.kpos[5].val() {
            self.resp_byte.next = self.rdata.q.val().get_bits::<8>(0);
        } else if self.pos.q.val() == self.kpos[6].val() {
            self.resp_byte.next = self.crc.q.val().get_bits::<8>(8);
        } else {
            self.resp_byte.next = self.crc.q.val().get_bits::<8>(0);
        }
        self.s_ready.next = (self.state.q.val() == self.st_hunt.val()) | (self.state.q.val() == self.st_receive.val());
        self.m_valid.next = self.state.q.val() == self.st_respond.val();
        self.m_data.next = self.zero8.val();
        if self.state.q.val() == self.st_respond.val() {
            self.m_data.next = self.resp_byte.val();
        }
        self.bus_re.next = (self.state.q.val() == self.st_execute.val())
            & (self.bus_wait.q.val() == self.zero8.val())
            & (self.cmd.q.val() == self.cmd_read.val());
        self.bus_we.next = (self.state.q.val() == self.st_execute.val())
            & (self.bus_wait.q.val() == self.zero8.val())
            & (self.cmd.q.val() == self.cmd_write.val());
        self.bus_addr.next = self.addr.q.val();
        self.bus_wdata.next = self.wdata.q.val();
        self.crc_errors.next = self.crc_error_count.q.val();
        self.truncated.next = self.truncated_count.q.val();
        self.byte_in.next = self.s_valid.val() & self.s_ready.val();
        // The CRC's byte: the received one, or the response byte presented.
        self.crc_byte.crc_in.next = self.crc.q.val();
        self.crc_byte.data_in.next = self.s_data.val();
        if self.state.q.val() == self.st_respond.val() {
            self.crc_byte.data_in.next = self.resp_byte.val();
        }
        // The last byte's position after the sync byte (the command byte
        // decides; at position 0, where it arrives, no request ends).
        self.frame_len.next = self.len_read.val();
        if self.cmd.q.val() == self.cmd_write.val() {
            self.frame_len.next = self.len_write.val();
        }

        // ---- next state ----
        self.respond.next = false;
        self.resp_status.next = self.status_done.val();
        if self.state.q.val() == self.st_hunt.val() {
            if self.byte_in.val() & (self.s_data.val() == self.req_sync.val()) {
                self.state.d.next = self.st_receive.val();
                self.pos.d.next = self.zero4.val();
                self.crc.d.next = self.crc_init.val();
                self.timer.d.next = self.zero32.val();
            }
        } else if self.state.q.val() == self.st_receive.val() {
            if self.byte_in.val() {
                self.crc.d.next = self.crc_byte.crc_out.val();
                self.timer.d.next = self.zero32.val();
                if self.pos.q.val() == self.kpos[0].val() {
                    self.cmd.d.next = self.s_data.val();
                } else if self.pos.q.val() == self.kpos[1].val() {
                    self.addr.d.next = (bit_cast::<16, 8>(self.s_data.val()) << 8)
                        | (self.addr.q.val() & bit_cast::<16, 8>(self.ones16.val().get_bits::<8>(0)));
                } else if self.pos.q.val() == self.kpos[2].val() {
                    self.addr.d.next =
                        (self.addr.q.val() & (self.ones16.val() << 8)) | bit_cast::<16, 8>(self.s_data.val());
                } else if (self.pos.q.val() >= self.kpos[3].val()) & (self.pos.q.val() <= self.kpos[6].val()) {
                    self.wdata.d.next = (self.wdata.q.val() << 8) | bit_cast::<32, 8>(self.s_data.val());
                }
                if self.pos.q.val() != self.frame_len.val() {
                    self.pos.d.next = self.pos.q.val() + self.one4.val();
                } else if self.crc_byte.crc_out.val() != self.zero16.val() {
                    if self.crc_error_count.q.val() != self.ones16.val() {
                        self.crc_error_count.d.next = self.crc_error_count.q.val() + self.one16.val();
                    }
                    self.respond.next = true;
                    self.resp_status.next = self.status_bad_crc.val();
                } else if (self.cmd.q.val() == self.cmd_read.val()) | (self.cmd.q.val() == self.cmd_write.val()) {
                    self.bus_wait.d.next = self.zero8.val();
                    self.rdata.d.next = self.zero32.val();
                    self.state.d.next = self.st_execute.val();
                } else {
                    self.respond.next = true;
                    self.resp_status.next = self.status_bad_cmd.val();
                }
            } else if self.timer.q.val() == self.timeout_last.val() {
                if self.truncated_count.q.val() != self.ones16.val() {
                    self.truncated_count.d.next = self.truncated_count.q.val() + self.one16.val();
                }
                self.state.d.next = self.st_hunt.val();
            } else {
                self.timer.d.next = self.timer.q.val() + self.one32.val();
            }
        } else if self.state.q.val() == self.st_execute.val() {
            if self.bus_ack.val() {
                if self.cmd.q.val() == self.cmd_read.val() {
                    self.rdata.d.next = self.bus_rdata.val();
                }
                self.respond.next = true;
            } else if self.bus_wait.q.val() == self.wait_last.val() {
                self.respond.next = true;
                self.resp_status.next = self.status_bus_timeout.val();
            } else {
                self.bus_wait.d.next = self.bus_wait.q.val() + self.one8.val();
            }
        } else if self.m_ready.val() {
            if (self.pos.q.val() >= self.kpos[1].val()) & (self.pos.q.val() <= self.kpos[5].val()) {
                self.crc.d.next = self.crc_byte.crc_out.val();
            }
            if self.pos.q.val() == self.kpos[7].val() {
                self.state.d.next = self.st_hunt.val();
            } else {
                self.pos.d.next = self.pos.q.val() + self.one4.val();
            }
        }
        // The response: its status, a fresh CRC, byte 0; the data word is the
        // one read, and 0 unless the access was done.
        if self.respond.val() {
            self.status.d.next = self.resp_status.val();
            self.crc.d.next = self.crc_init.val();
            self.pos.d.next = self.zero4.val();
            self.state.d.next = self.st_respond.val();
            if self.resp_status.val() != self.status_done.val() {
                self.rdata.d.next = self.zero32.val();
            }
        }
        if self.reset.val() {
            self.state.d.next = self.st_hunt.val();
            self.pos.d.next = self.zero4.val();
            self.bus_wait.d.next = self.zero8.val();
            self.crc.d.next = self.zero16.val();
            self.cmd.d.next = self.zero8.val();
            self.addr.d.next = self.zero16.val();
            self.wdata.d.next = self.zero32.val();
            self.rdata.d.next = self.zero32.val();
            self.status.d.next = self.status_done.val();
            self.timer.d.next = self.zero32.val();
            self.crc_error_count.d.next = self.zero16.val();
            self.truncated_count.d.next = self.zero16.val();
        }
    }
}

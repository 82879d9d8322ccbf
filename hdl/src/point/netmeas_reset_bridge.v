// netmeas_reset_bridge: a reset on either side of a clock crossing, taken
// to both sides. The measurement point's record FIFO and status counters
// each keep state in two clock domains (the MAC's and the core's); a reset
// of one domain alone (a MAC's rx reset on a link flap, a core reset by its
// host) must reset both halves together, or the half that was not reset
// reads the other's cleared pointers as new records.
//
// Design: one four-phase handshake per direction, every request and
// acknowledge a one-bit level that crosses through two flip-flops
// (`*_sync1`, `*_sync2`, ASYNC_REG), so a reset pulse of one clock is taken
// at any ratio of the two clocks, and a reset held for thousands of clocks
// keeps both sides in reset until it ends.
//   - A side's own reset raises its request (`s_req`, `m_req`), held until
//     the other side acknowledges; the other side acknowledges
//     (`m_ack`, `s_ack`) once it is in reset, and holds it while the
//     request lasts. A reset that comes while the acknowledge of the last
//     request is still seen waits (`*_want`) until it is gone, so every
//     request runs all four phases and the other side sees it whole.
//   - A side is in reset (`*_rst_out`) while its own reset, its request,
//     the other side's acknowledge of it, or the other side's request and
//     its own acknowledge last: it leaves reset only after both halves of
//     a handshake have ended.
//   - The synchronizers are not reset: they follow the other side's level
//     (a local reset that cleared them would hide an acknowledge still
//     high, and a new request would be taken as answered).
//   - A side may clear what the other side reads (its Gray pointer, its
//     counts) only while the other side is in reset: `*_clear` is high
//     while the other side acknowledges this side's request or asks for a
//     reset itself. Before that (its own reset taken, the other side not
//     yet in reset) it holds its state: the other side must not see a
//     pointer jump back while it still reads.
//
//   s_clk, s_rst     first domain: its clock and its own reset (synchronous, active high)
//   s_rst_out        the first domain is in reset (its own or the other's): hold, take nothing
//   s_clear          ... and may clear its state: the other domain is in reset
//   m_clk, m_rst     second domain
//   m_rst_out, m_clear  the same for the second domain
//
// Latency (clocks of each side, from a reset's end): a side leaves reset
// about three of its clocks after the other has, 8 to 12 clocks in all.

`resetall
`timescale 1ns / 1ps
`default_nettype none

module netmeas_reset_bridge (
    // --- first domain ---
    input  wire s_clk,
    input  wire s_rst,
    output reg  s_rst_out,
    output wire s_clear,
    // --- second domain ---
    input  wire m_clk,
    input  wire m_rst,
    output reg  m_rst_out,
    output wire m_clear
);

// ---------------------------------------------------------------- first domain
reg s_want = 1'b0;                             // a reset to announce, once the last acknowledge is gone
reg s_req = 1'b0;                              // asks the second domain to reset
reg s_ack = 1'b0;                              // in reset for the second domain's request
(* ASYNC_REG = "TRUE" *) reg s_ack_sync1 = 1'b0;   // m_ack: the second domain is in reset for s_req
(* ASYNC_REG = "TRUE" *) reg s_ack_sync2 = 1'b0;
(* ASYNC_REG = "TRUE" *) reg s_req_sync1 = 1'b0;   // m_req: the second domain asks
(* ASYNC_REG = "TRUE" *) reg s_req_sync2 = 1'b0;

initial s_rst_out = 1'b0;
assign s_clear = s_ack_sync2 || s_req_sync2;

always @(posedge s_clk) begin
    s_ack_sync1 <= m_ack;
    s_ack_sync2 <= s_ack_sync1;
    s_req_sync1 <= m_req;
    s_req_sync2 <= s_req_sync1;
    if (s_rst) s_want <= 1'b1;
    else if (s_req) s_want <= 1'b0;
    if (!s_req) s_req <= (s_rst || s_want) && !s_ack_sync2;
    else if (s_ack_sync2 && !s_rst) s_req <= 1'b0;
    s_ack <= s_req_sync2 && s_rst_out;
    s_rst_out <= s_rst || s_want || s_req || s_ack_sync2 || s_req_sync2 || s_ack;
end

// ---------------------------------------------------------------- second domain
reg m_want = 1'b0;
reg m_req = 1'b0;
reg m_ack = 1'b0;
(* ASYNC_REG = "TRUE" *) reg m_ack_sync1 = 1'b0;   // s_ack
(* ASYNC_REG = "TRUE" *) reg m_ack_sync2 = 1'b0;
(* ASYNC_REG = "TRUE" *) reg m_req_sync1 = 1'b0;   // s_req
(* ASYNC_REG = "TRUE" *) reg m_req_sync2 = 1'b0;

initial m_rst_out = 1'b0;
assign m_clear = m_ack_sync2 || m_req_sync2;

always @(posedge m_clk) begin
    m_ack_sync1 <= s_ack;
    m_ack_sync2 <= m_ack_sync1;
    m_req_sync1 <= s_req;
    m_req_sync2 <= m_req_sync1;
    if (m_rst) m_want <= 1'b1;
    else if (m_req) m_want <= 1'b0;
    if (!m_req) m_req <= (m_rst || m_want) && !m_ack_sync2;
    else if (m_ack_sync2 && !m_rst) m_req <= 1'b0;
    m_ack <= m_req_sync2 && m_rst_out;
    m_rst_out <= m_rst || m_want || m_req || m_ack_sync2 || m_req_sync2 || m_ack;
end

endmodule

`resetall

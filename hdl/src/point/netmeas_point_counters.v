// netmeas_point_counters: the measurement point's status counters. Events
// happen in the MAC's clock domain (a frame seen, a record given, a frame
// without a record by reason, a record dropped, a FIFO overflow); the host
// reads them in the core's clock domain, through the register block. No
// frame is lost silently: every one is counted here.
//
// Design: each counter is counted in the write domain in binary, from a
// registered event, saturating at 2^W - 1, and kept in Gray code in a
// register of its own (cnt_gray). A counter moves by at most one per write
// clock, so one bit of its Gray code changes at a time, and the Gray
// register can cross through two flip-flops per bit (cnt_gray_sync1,
// cnt_gray_sync2, ASYNC_REG) as the record FIFO's pointers do (Cummings,
// SNUG 2002): the read domain sees the count before or after an event,
// never a mix. It is converted back to binary there and registered.
//
//   s_clk, s_rst   write (MAC) domain clock, synchronous active-high reset
//   s_event        bit i: counter i counts one this clock
//   m_clk, m_rst   read (core) domain clock, synchronous active-high reset
//   m_count        counter i in bits W*i+W-1..W*i, as the read domain sees it
//   m_changed      bit i: m_count's counter i moved this clock (for sticky flags)
//
// Latency: an event offered at a write clock is in the Gray register two
// write clocks later (the registered event, then the count), and in
// m_count at the third read clock after that. Reset: either reset alone
// restarts every count at 0 in both domains (netmeas_reset_bridge: the
// write side holds its counts until the read side is in reset, then
// clears them, so the read side never sees a count jump back); events
// while the write side is in reset are not counted. A pulse of one clock
// is enough.

`resetall
`timescale 1ns / 1ps
`default_nettype none

module netmeas_point_counters #(
    parameter integer N = 4,     // counters
    parameter integer W = 32     // bits per counter
) (
    // --- write domain ---
    input  wire           s_clk,
    input  wire           s_rst,
    input  wire [N-1:0]   s_event,
    // --- read domain ---
    input  wire           m_clk,
    input  wire           m_rst,
    output reg  [N*W-1:0] m_count,
    output reg  [N-1:0]   m_changed
);

// ---------------------------------------------------------------- resets
wire s_bridge_rst;
wire s_clear;
wire m_bridge_rst;
/* verilator lint_off UNUSEDSIGNAL */  // the read side keeps no state the write side reads
wire m_clear;
/* verilator lint_on UNUSEDSIGNAL */
netmeas_reset_bridge reset_bridge (
    .s_clk(s_clk), .s_rst(s_rst), .s_rst_out(s_bridge_rst), .s_clear(s_clear),
    .m_clk(m_clk), .m_rst(m_rst), .m_rst_out(m_bridge_rst), .m_clear(m_clear)
);
wire s_reset = s_rst || s_bridge_rst;
wire m_reset = m_rst || m_bridge_rst;

// ---------------------------------------------------------------- write domain
// The increment's carry out says the count is at 2^W - 1: it stays there.
// The Gray register follows the count a clock later, so that no adder sits
// in front of it.
reg  [N*W-1:0] cnt_bin = {N*W{1'b0}};
reg  [N*W-1:0] cnt_gray = {N*W{1'b0}};      // Gray code of cnt_bin: the only signal that crosses
reg  [N-1:0]   s_event_q = {N{1'b0}};
wire [N*W-1:0] cnt_bin_next;

genvar i;
generate
    for (i = 0; i < N; i = i + 1) begin : count
        wire [W:0] inc = {1'b0, cnt_bin[W*i +: W]} + {{W{1'b0}}, 1'b1};
        assign cnt_bin_next[W*i +: W] = (s_event_q[i] && !inc[W]) ? inc[W-1:0] : cnt_bin[W*i +: W];
    end
endgenerate

always @(posedge s_clk) begin
    if (s_reset) begin
        // The counts hold until the read side is in reset, then clear.
        s_event_q <= {N{1'b0}};
        if (s_clear) begin
            cnt_bin <= {N*W{1'b0}};
            cnt_gray <= {N*W{1'b0}};
        end
    end else begin
        s_event_q <= s_event;
        cnt_bin <= cnt_bin_next;
        cnt_gray <= gray_of(cnt_bin);
    end
end

// Each counter's Gray code (no bit crosses from one counter to the next).
function [N*W-1:0] gray_of(input [N*W-1:0] b);
    integer k;
    begin
        for (k = 0; k < N; k = k + 1) begin
            gray_of[W*k +: W] = b[W*k +: W] ^ (b[W*k +: W] >> 1);
        end
    end
endfunction

// ---------------------------------------------------------------- read domain
(* ASYNC_REG = "TRUE" *) reg [N*W-1:0] cnt_gray_sync1 = {N*W{1'b0}};
(* ASYNC_REG = "TRUE" *) reg [N*W-1:0] cnt_gray_sync2 = {N*W{1'b0}};
reg  [N*W-1:0] seen_gray = {N*W{1'b0}};    // cnt_gray_sync2 of the last read clock: what m_count shows
wire [N*W-1:0] seen_bin;                    // binary of cnt_gray_sync2

// Binary of each synchronized Gray code: bit j is the XOR of bits W-1..j
// (a reduction per bit: a shallow tree, not a ripple through the word).
genvar j;
generate
    for (i = 0; i < N; i = i + 1) begin : back
        for (j = 0; j < W; j = j + 1) begin : bit_of
            assign seen_bin[W*i + j] = ^cnt_gray_sync2[W*i + W - 1 : W*i + j];
        end
    end
endgenerate

integer c;
always @(posedge m_clk) begin
    if (m_reset) begin
        cnt_gray_sync1 <= {N*W{1'b0}};
        cnt_gray_sync2 <= {N*W{1'b0}};
        seen_gray <= {N*W{1'b0}};
        m_count <= {N*W{1'b0}};
        m_changed <= {N{1'b0}};
    end else begin
        cnt_gray_sync1 <= cnt_gray;
        cnt_gray_sync2 <= cnt_gray_sync1;
        seen_gray <= cnt_gray_sync2;
        m_count <= seen_bin;
        for (c = 0; c < N; c = c + 1) begin
            m_changed[c] <= cnt_gray_sync2[W*c +: W] != seen_gray[W*c +: W];
        end
    end
end

endmodule

`resetall

// netmeas_cdc_word: a configuration word written in the core's clock domain
// (a host's register) taken to the MAC's, whole. The core's side keeps a
// held copy that changes only between handshakes; a request level crosses
// (two flip-flops, ASYNC_REG), the MAC's side captures the held copy once it
// sees the request (the copy has been stable since before the request rose)
// and acknowledges; the acknowledge crosses back before the held copy may
// change again. A value written while a handshake runs is taken by the next
// one, so the MAC's side has the last value written within a few clocks of
// each side, and never a mix of two.
//
//   m_clk, m_rst     the core's clock and reset (synchronous, active high)
//   m_value          the word, as the core's register holds it
//   s_clk            the MAC's clock
//   s_value_capture  the word in the MAC's domain (0 until the first handshake)

`resetall
`timescale 1ns / 1ps
`default_nettype none

module netmeas_cdc_word #(
    parameter integer W = 32
) (
    // --- the core's side ---
    input  wire         m_clk,
    input  wire         m_rst,
    input  wire [W-1:0] m_value,
    // --- the MAC's side ---
    input  wire         s_clk,
    output reg  [W-1:0] s_value_capture = {W{1'b0}}
);

reg  [W-1:0] m_value_held = {W{1'b0}};
reg          m_req = 1'b0;
(* ASYNC_REG = "TRUE" *) reg m_ack_sync1 = 1'b0;
(* ASYNC_REG = "TRUE" *) reg m_ack_sync2 = 1'b0;
reg          s_ack = 1'b0;
(* ASYNC_REG = "TRUE" *) reg s_req_sync1 = 1'b0;
(* ASYNC_REG = "TRUE" *) reg s_req_sync2 = 1'b0;

always @(posedge m_clk) begin
    m_ack_sync1 <= s_ack;
    m_ack_sync2 <= m_ack_sync1;
    if (m_rst) begin
        m_req <= 1'b0;
    end else if (!m_req && !m_ack_sync2) begin
        if (m_value_held != m_value) begin
            m_value_held <= m_value;
            m_req <= 1'b1;
        end
    end else if (m_req && m_ack_sync2) begin
        m_req <= 1'b0;
    end
end

always @(posedge s_clk) begin
    s_req_sync1 <= m_req;
    s_req_sync2 <= s_req_sync1;
    s_ack <= s_req_sync2;
    if (s_req_sync2 && !s_ack) s_value_capture <= m_value_held;
end

endmodule

`resetall

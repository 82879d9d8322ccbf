// netmeas_async_fifo: the measurement point's clock crossing. Records (one
// per frame, from the frame parser in the MAC's clock domain) cross to the
// core's clock domain. A tap never back-pressures the MAC, so a record that
// finds the FIFO full is dropped and counted, never lost silently.
//
// Design (Cummings, "Simulation and Synthesis Techniques for Asynchronous
// FIFO Design", SNUG 2002, style 1):
//   - binary pointers of ADDR_BITS + 1 bits in each domain, and their Gray
//     code in a register of their own (the only signals that cross);
//   - each Gray pointer enters the other domain through two flip-flops
//     (`*_sync1`, `*_sync2`, marked ASYNC_REG); full and empty compare the
//     local Gray pointer with the synchronized one, so they are pessimistic
//     and never wrong;
//   - the memory is written in the write domain, from registers, a clock
//     after a record is taken, and the pointer the read domain sees moves
//     with that write; it is read in the read domain only at addresses the
//     pointers say are settled, and its read is registered (block RAM) into
//     the output register that holds the record shown.
//
// Reset: either reset alone resets both sides (netmeas_reset_bridge, one
// four-phase handshake per direction, as verilog-ethernet's axis_async_fifo
// takes each reset to the other side). A side whose reset comes first holds
// its pointer until the other side is in reset too, and only then clears
// it, so no side ever sees the other's pointer jump back while it reads:
// whatever the FIFO held is abandoned, nothing is read twice. A pulse of
// one clock is enough, at any ratio of the clocks.
//
// Ports follow the AXI4-Stream conventions, one clock and reset per domain
// (as verilog-ethernet's axis_async_fifo):
//   s_clk, s_rst                 write domain clock, synchronous active-high reset
//   s_axis_tdata/tvalid/tready   records in; tready is always 1 (drop when full)
//   s_status_full                the FIFO is full as the write domain sees it
//   s_status_empty               its memory is empty as the write domain sees it
//                                (the output register may still hold a record)
//   s_status_overflow            a record was dropped this clock
//   s_overflow_count             records dropped since reset (saturates)
//   s_status_reset               the write side is in reset (either reset): a
//                                record offered is not taken (nor counted here)
//   s_status_used                records taken and not yet read, as the write
//                                side sees it (pessimistic like full)
//   m_clk, m_rst                 read domain clock, synchronous active-high reset
//   m_axis_tdata/tvalid/tready   records out (tvalid waits for tready, data held)
//   m_status_reset               the read side is in reset (either reset)
//
// Capacity: 2^ADDR_BITS records in the memory plus one in the output register.

`resetall
`timescale 1ns / 1ps
`default_nettype none

module netmeas_async_fifo #(
    parameter integer WIDTH = 64,
    parameter integer ADDR_BITS = 4
) (
    // --- write domain ---
    input  wire             s_clk,
    input  wire             s_rst,
    input  wire [WIDTH-1:0] s_axis_tdata,
    input  wire             s_axis_tvalid,
    output wire             s_axis_tready,
    output wire             s_status_full,
    output wire             s_status_empty,
    output reg              s_status_overflow,
    output reg  [31:0]      s_overflow_count,
    output wire             s_status_reset,
    output wire [ADDR_BITS:0] s_status_used,
    // --- read domain ---
    input  wire             m_clk,
    input  wire             m_rst,
    output reg  [WIDTH-1:0] m_axis_tdata,
    output reg              m_axis_tvalid,
    input  wire             m_axis_tready,
    output wire             m_status_reset
);

localparam integer P = ADDR_BITS + 1;   // pointer bits: address and wrap
localparam integer DEPTH = 1 << ADDR_BITS;

reg [WIDTH-1:0] mem [0:DEPTH-1];

// Power-up values (an FPGA's; an ASIC takes them from either reset).
initial begin
    s_status_overflow = 1'b0;
    s_overflow_count = 32'd0;
    m_axis_tvalid = 1'b0;
end

// ---------------------------------------------------------------- resets
// Either reset reaches both sides; a side clears its pointer only while
// the other is in reset (s_clear, m_clear) and holds it until then.
wire s_bridge_rst;
wire s_clear;
wire m_bridge_rst;
wire m_clear;
netmeas_reset_bridge reset_bridge (
    .s_clk(s_clk), .s_rst(s_rst), .s_rst_out(s_bridge_rst), .s_clear(s_clear),
    .m_clk(m_clk), .m_rst(m_rst), .m_rst_out(m_bridge_rst), .m_clear(m_clear)
);
wire s_reset = s_rst || s_bridge_rst;
wire m_reset = m_rst || m_bridge_rst;
assign s_status_reset = s_reset;
assign m_status_reset = m_reset;

// ---------------------------------------------------------------- write domain
// wr_bin counts the records taken; a record is written to the memory a clock
// after it is taken (from registers, so that a block RAM's write port meets
// the MAC's clock), and wr_gray, the pointer the read domain sees, includes
// it from that clock on.
reg [P-1:0] wr_bin = {P{1'b0}};
reg [P-1:0] wr_gray_taken = {P{1'b0}};    // Gray code of wr_bin
reg [P-1:0] wr_gray = {P{1'b0}};          // records written
(* ASYNC_REG = "TRUE" *) reg [P-1:0] rd_gray_sync1 = {P{1'b0}};
(* ASYNC_REG = "TRUE" *) reg [P-1:0] rd_gray_sync2 = {P{1'b0}};
reg             wr_en_q = 1'b0;
reg [ADDR_BITS-1:0] wr_addr_q = {ADDR_BITS{1'b0}};
reg [WIDTH-1:0] wr_data_q = {WIDTH{1'b0}};

// Full: the read pointer is a whole lap behind the records taken (Gray: the two top bits differ).
assign s_status_full = wr_gray_taken == {~rd_gray_sync2[P-1:P-2], rd_gray_sync2[P-3:0]};
// Empty: the read pointer has caught up with every record taken (pessimistic
// the same way: a read shows here two clocks late).
assign s_status_empty = wr_gray_taken == rd_gray_sync2;
assign s_axis_tready = 1'b1;

wire          wr_take = s_axis_tvalid && !s_status_full && !s_reset;

// The read pointer in binary (from its synchronized Gray code): records in use.
reg  [P-1:0]  rd_bin_seen;
integer       g;
always @(*) begin
    rd_bin_seen[P-1] = rd_gray_sync2[P-1];
    for (g = P - 2; g >= 0; g = g - 1) rd_bin_seen[g] = rd_bin_seen[g+1] ^ rd_gray_sync2[g];
end
assign s_status_used = wr_bin - rd_bin_seen;
wire [P-1:0]  wr_bin_next = wr_bin + {{(P-1){1'b0}}, wr_take};

always @(posedge s_clk) begin
    wr_addr_q <= wr_bin[ADDR_BITS-1:0];
    wr_data_q <= s_axis_tdata;
    if (wr_en_q) begin
        mem[wr_addr_q] <= wr_data_q;
    end
end

always @(posedge s_clk) begin
    if (s_reset) begin
        // The pointer holds until the read side is in reset, then clears.
        if (s_clear) begin
            wr_bin <= {P{1'b0}};
            wr_gray_taken <= {P{1'b0}};
            wr_gray <= {P{1'b0}};
        end
        wr_en_q <= 1'b0;
        rd_gray_sync1 <= {P{1'b0}};
        rd_gray_sync2 <= {P{1'b0}};
        s_status_overflow <= 1'b0;
        s_overflow_count <= 32'd0;
    end else begin
        wr_bin <= wr_bin_next;
        wr_gray_taken <= wr_bin_next ^ (wr_bin_next >> 1);
        wr_gray <= wr_gray_taken;
        wr_en_q <= wr_take;
        rd_gray_sync1 <= rd_gray;
        rd_gray_sync2 <= rd_gray_sync1;
        s_status_overflow <= s_axis_tvalid && s_status_full;
        if (s_axis_tvalid && s_status_full && s_overflow_count != 32'hffff_ffff) begin
            s_overflow_count <= s_overflow_count + 32'd1;
        end
    end
end

// ---------------------------------------------------------------- read domain
reg [P-1:0] rd_bin = {P{1'b0}};
reg [P-1:0] rd_gray = {P{1'b0}};
(* ASYNC_REG = "TRUE" *) reg [P-1:0] wr_gray_sync1 = {P{1'b0}};
(* ASYNC_REG = "TRUE" *) reg [P-1:0] wr_gray_sync2 = {P{1'b0}};

wire          empty = rd_gray == wr_gray_sync2;
// The output register is free, or frees this clock: read the next record into it.
wire          rd_take = !empty && (!m_axis_tvalid || m_axis_tready) && !m_reset;
wire [P-1:0]  rd_bin_next = rd_bin + {{(P-1){1'b0}}, rd_take};

always @(posedge m_clk) begin
    if (rd_take) begin
        m_axis_tdata <= mem[rd_bin[ADDR_BITS-1:0]];
    end
end

always @(posedge m_clk) begin
    if (m_reset) begin
        // The pointer holds until the write side is in reset, then clears.
        if (m_clear) begin
            rd_bin <= {P{1'b0}};
            rd_gray <= {P{1'b0}};
        end
        wr_gray_sync1 <= {P{1'b0}};
        wr_gray_sync2 <= {P{1'b0}};
        m_axis_tvalid <= 1'b0;
    end else begin
        rd_bin <= rd_bin_next;
        rd_gray <= rd_bin_next ^ (rd_bin_next >> 1);
        wr_gray_sync1 <= wr_gray;
        wr_gray_sync2 <= wr_gray_sync1;
        if (rd_take) begin
            m_axis_tvalid <= 1'b1;
        end else if (m_axis_tready) begin
            m_axis_tvalid <= 1'b0;
        end
    end
end

endmodule

`resetall

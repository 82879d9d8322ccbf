// Formal checker of netmeas_async_fifo with its resets (netmeas_async_fifo.sby,
// run by hdl/tests/rtl/point/async_fifo.rs), bound into the FIFO renamed
// `dut`. Two free clocks (multiclock:
// any edge of either at any step, so every phase and ratio), resets of
// either side at any time and of any length, records offered and taken at
// will. Each record is its sequence number (the harness's count of offers),
// so a record shown can be followed to its taking.
//
// Properties:
//   gray    each Gray pointer changes by at most one bit from one step to
//           the next, unless the other side is in reset (then it may clear);
//   stream  a record shown stays, unchanged, until taken (no reset between);
//   held    the checker's own count of the records in the memory (taken
//           by the write side, not yet read; none once both sides are in
//           reset with their pointers cleared) never exceeds its size, and is not zero when
//           the read side reads: nothing is written over a record not yet
//           read, nothing read that was not written since the last reset;
//   count   a record offered outside reset and not taken shows as an
//           overflow (s_status_overflow, s_overflow_count);
//   together while either side is out of reset, the write pointer is ahead
//           of the read pointer by exactly the records counted in the
//           memory: a reset of either side clears both pointers before
//           either side works on, and abandons what the memory held.
// With ADDR_BITS = 2 (4 records) every case is a few records away.

`default_nettype none

module async_fifo_formal #(
    parameter integer WIDTH = 3,
    parameter integer ADDR_BITS = 2
) (
    // the FIFO's ports
    input wire             s_clk,
    input wire             s_rst,
    input wire [WIDTH-1:0] s_axis_tdata,
    input wire             s_axis_tvalid,
    input wire             s_status_full,
    input wire [31:0]      s_overflow_count,
    input wire             s_status_reset,
    input wire             m_clk,
    input wire             m_rst,
    input wire [WIDTH-1:0] m_axis_tdata,
    input wire             m_axis_tvalid,
    input wire             m_axis_tready,
    input wire             m_status_reset,
    // inside it
    input wire [ADDR_BITS:0] wr_gray,
    input wire [ADDR_BITS:0] rd_gray,
    input wire [ADDR_BITS:0] wr_bin,
    input wire [ADDR_BITS:0] rd_bin,
    input wire             rd_take,
    input wire             s_bridge_rst,
    input wire             m_bridge_rst
);

localparam integer N = 1 << WIDTH;      // sequence numbers
localparam integer P = ADDR_BITS + 1;

reg  [WIDTH-1:0] seq = {WIDTH{1'b0}};   // the next record's number
always @(*) assume(s_axis_tdata == seq);

// ---------------------------------------------------------------- environment
// Inputs change only with a rising edge of their own clock. The run starts
// from the power-up values (both sides empty and out of reset, as after a
// reset of both); resets of either side come at any step.
reg init = 1'b1;
always @($global_clock) begin
    init <= 1'b0;
    if (!init && !$rose(s_clk)) assume($stable(s_rst) && $stable(s_axis_tvalid));
    if (!init && !$rose(m_clk)) assume($stable(m_rst) && $stable(m_axis_tready));
end

// Sequence numbers do not wrap within a run.
always @(*) assume(seq != N - 1);

// ---------------------------------------------------------------- the account
// Records in the memory as the checker counts them: one more for each
// record the write side takes, one less for each the read side reads into
// its output register; none once both sides are in reset with both
// pointers cleared (what the memory held is abandoned then). Records offered outside reset and not
// taken, since the write side's last reset.
reg [ADDR_BITS+1:0] held = {(ADDR_BITS+2){1'b0}};
reg [31:0]          dropped = 32'd0;

wire s_take = s_axis_tvalid && !s_status_full && !s_status_reset;

always @(posedge s_clk) begin
    if (s_axis_tvalid) seq <= seq + 1'b1;
    if (s_status_reset) dropped <= 32'd0;
    else if (s_axis_tvalid && !s_take) dropped <= dropped + 32'd1;
end

// (held_now: held with this step's take and read; held keeps it, or 0.)
reg s_clk_q = 1'b0, m_clk_q = 1'b0, s_take_q = 1'b0, rd_take_q = 1'b0;   // the last step's
wire s_wrote = !init && s_clk && !s_clk_q && s_take_q;     // a record taken at this step's write clock
wire m_read = !init && m_clk && !m_clk_q && rd_take_q;     // a record read at this step's read clock
wire [ADDR_BITS+1:0] held_now = held + s_wrote - m_read;
always @($global_clock) begin
    s_clk_q <= s_clk;
    m_clk_q <= m_clk;
    s_take_q <= s_take;
    rd_take_q <= rd_take;
    held <= (s_bridge_rst && m_bridge_rst && wr_bin == 0 && rd_bin == 0) ? {(ADDR_BITS+2){1'b0}} : held_now;
end

// ---------------------------------------------------------------- properties
function integer ones(input [P-1:0] v);
    integer i;
    begin
        ones = 0;
        for (i = 0; i < P; i = i + 1) ones = ones + v[i];
    end
endfunction

always @($global_clock) if (!init) begin
    // gray
    if (ones(wr_gray ^ $past(wr_gray)) > 1) assert(m_bridge_rst);
    if (ones(rd_gray ^ $past(rd_gray)) > 1) assert(s_bridge_rst);
    // full and empty: nothing written over a record not read, nothing read that was not written
    assert(held_now <= (1 << ADDR_BITS));
    if (m_read) assert(held != 0);
    // together: a side out of reset sees the pointers differ by the records counted
    if (!s_bridge_rst || !m_bridge_rst) assert(wr_bin - rd_bin == held_now[ADDR_BITS:0]);
end

reg m_past = 1'b0;
reg m_held = 1'b0;
reg [WIDTH-1:0] m_held_data = {WIDTH{1'b0}};
always @(posedge m_clk) begin
    m_past <= 1'b1;
    m_held <= m_axis_tvalid && !m_axis_tready && !m_status_reset;
    m_held_data <= m_axis_tdata;
    if (m_past) begin
        // stream
        if (m_held && !m_status_reset) assert(m_axis_tvalid && m_axis_tdata == m_held_data);
    end
end

// count
always @(posedge s_clk) if (!s_status_reset) assert(s_overflow_count == dropped);

// Not vacuous: after a reset of the write side alone has run its handshake,
// a record taken after it comes out.
reg             s_only = 1'b0;       // the write side alone was reset
reg             post = 1'b0;         // ... and a record was taken after its handshake
reg [WIDTH-1:0] post_seq = {WIDTH{1'b0}};
always @(posedge s_clk) begin
    if (s_rst && !m_rst && !m_status_reset) s_only <= 1'b1;
    if (s_only && !post && s_take) begin
        post <= 1'b1;
        post_seq <= seq;
    end
end
always @(posedge m_clk) if (post && m_axis_tvalid && m_axis_tready && m_axis_tdata >= post_seq) cover(1'b1);

endmodule

bind dut async_fifo_formal #(.WIDTH(WIDTH), .ADDR_BITS(ADDR_BITS)) fifo_formal (
    .s_clk(s_clk), .s_rst(s_rst), .s_axis_tdata(s_axis_tdata), .s_axis_tvalid(s_axis_tvalid),
    .s_status_full(s_status_full), .s_overflow_count(s_overflow_count), .s_status_reset(s_status_reset),
    .m_clk(m_clk), .m_rst(m_rst), .m_axis_tdata(m_axis_tdata), .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready), .m_status_reset(m_status_reset),
    .wr_gray(wr_gray), .rd_gray(rd_gray), .wr_bin(wr_bin), .rd_bin(rd_bin), .rd_take(rd_take),
    .s_bridge_rst(s_bridge_rst), .m_bridge_rst(m_bridge_rst)
);

`default_nettype wire

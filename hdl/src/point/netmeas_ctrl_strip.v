// netmeas_ctrl_strip: the last stage of an inline point's data path (the
// MAC's clock). With `strip` set (a receiving point's CTRL_STRIP), control
// frames of in-band epoch control (EtherType ETHERTYPE, after up to two VLAN
// tags) are taken from the path and not sent on; every other frame passes
// unchanged, in order, with tready propagated. A frame's beats are held
// until its third beat (or its last) has come, where its EtherType is
// known: the path's latency is three clocks while a frame's first three
// beats come on consecutive clocks, the same with `strip` set or not.
//
//   clk, rst    the MAC's clock, synchronous active-high reset
//   strip       drop control frames (change it between frames)
//   s_axis_*    frames in (4 beats of buffer)
//   m_axis_*    frames out
//
// 64-bit data path.

`resetall
`timescale 1ns / 1ps
`default_nettype none

module netmeas_ctrl_strip #(
    parameter integer TUSER_BITS = 65,
    parameter [15:0]  ETHERTYPE = 16'h88b5
) (
    input  wire                  clk,
    input  wire                  rst,
    input  wire                  strip,
    // --- frames in ---
    input  wire [63:0]           s_axis_tdata,
    input  wire [7:0]            s_axis_tkeep,
    input  wire                  s_axis_tvalid,
    output wire                  s_axis_tready,
    input  wire                  s_axis_tlast,
    input  wire [TUSER_BITS-1:0] s_axis_tuser,
    // --- frames out ---
    output wire [63:0]           m_axis_tdata,
    output wire [7:0]            m_axis_tkeep,
    output wire                  m_axis_tvalid,
    input  wire                  m_axis_tready,
    output wire                  m_axis_tlast,
    output wire [TUSER_BITS-1:0] m_axis_tuser
);

localparam integer W = 64 + 8 + 1 + 1 + TUSER_BITS;   // {user, first, last, keep, data}

// ---------------------------------------------------------------- beats
reg  [W-1:0] buffer [0:3];
reg  [2:0]   wr = 3'd0, rd = 3'd0;          // pointers with a lap bit
wire         full = (wr ^ rd) == 3'b100;
wire         empty = wr == rd;
assign s_axis_tready = !full;
wire         take = s_axis_tvalid && !full;

// ---------------------------------------------------------------- the input frame's kind
reg  [1:0]   in_beat = 2'd0;                // beats of the input frame taken, up to 3
reg          decided = 1'b0;                // its kind is known (and queued)
reg          vlan0 = 1'b0;
wire [15:0]  et0 = {s_axis_tdata[39:32], s_axis_tdata[47:40]};    // bytes 12, 13 (beat 1)
wire [15:0]  et1 = {s_axis_tdata[7:0], s_axis_tdata[15:8]};       // bytes 16, 17 (beat 2)
wire [15:0]  et2 = {s_axis_tdata[39:32], s_axis_tdata[47:40]};    // bytes 20, 21 (beat 2)
wire         is_vlan0 = et0 == 16'h8100 || et0 == 16'h88a8;
wire         is_vlan1 = et1 == 16'h8100 || et1 == 16'h88a8;
// Decided at this beat: (decide, control).
wire         at1 = in_beat == 2'd1 && (et0 == ETHERTYPE || !is_vlan0);
wire         at2 = in_beat == 2'd2;
wire         ctrl_now = at1 ? et0 == ETHERTYPE
                      : vlan0 && (et1 == ETHERTYPE || (is_vlan1 && et2 == ETHERTYPE));
wire         decide = take && !decided && (at1 || at2 || s_axis_tlast);
// (a frame that ends before its kind is known is not a control frame)
wire         decide_ctrl = (at1 || at2) && ctrl_now;

// The kinds of the frames in the buffer, in order: 4 at most.
reg  [3:0]   kinds = 4'd0;
reg  [2:0]   kw = 3'd0, kr = 3'd0;
wire         kind_ready = kw != kr;
wire         kind_head = kinds[kr[1:0]];

always @(posedge clk) begin
    if (rst) begin
        in_beat <= 2'd0;
        decided <= 1'b0;
        kw <= 3'd0;
    end else if (take) begin
        if (in_beat == 2'd1) vlan0 <= is_vlan0;
        if (decide) begin
            kinds[kw[1:0]] <= strip && decide_ctrl;
            kw <= kw + 3'd1;
        end
        if (s_axis_tlast) begin
            in_beat <= 2'd0;
            decided <= 1'b0;
        end else begin
            if (in_beat != 2'd3) in_beat <= in_beat + 2'd1;
            if (decide) decided <= 1'b1;
        end
    end
end

always @(posedge clk) begin
    if (take) buffer[wr[1:0]] <= {s_axis_tuser, in_beat == 2'd0, s_axis_tlast, s_axis_tkeep, s_axis_tdata};
    if (rst) wr <= 3'd0;
    else if (take) wr <= wr + 3'd1;
end

// ---------------------------------------------------------------- output
wire [W-1:0] head = buffer[rd[1:0]];
wire         head_first = head[73];
reg          dropping = 1'b0;               // the frame going out is stripped
// A frame's first beat goes only once its kind is known; its kind is popped then.
wire         head_ok = !empty && (!head_first || kind_ready);
wire         head_drop = head_first ? kind_head : dropping;
assign m_axis_tvalid = head_ok && !head_drop;
assign m_axis_tdata = head[63:0];
assign m_axis_tkeep = head[71:64];
assign m_axis_tlast = head[72];
assign m_axis_tuser = head[W-1:74];
wire         pop = head_ok && (head_drop || m_axis_tready);

always @(posedge clk) begin
    if (rst) begin
        rd <= 3'd0;
        kr <= 3'd0;
        dropping <= 1'b0;
    end else if (pop) begin
        rd <= rd + 3'd1;
        if (head_first) begin
            kr <= kr + 3'd1;
            dropping <= kind_head;
        end
    end
end

endmodule

`resetall

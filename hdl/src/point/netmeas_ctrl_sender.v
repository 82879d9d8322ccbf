// netmeas_ctrl_sender: the sending side of in-band epoch control (LDA §III,
// §V: "the sender transmits a sequence-numbered control message at the end
// of each measurement interval"). In an inline measurement point's data
// path (the MAC's clock), it passes the frames from s_axis_* to m_axis_*
// and, when an epoch ends, puts a control frame between two of them, never
// inside one: once the frame in progress has ended it holds s_axis_tready
// low, builds the frame (two clocks: its fields, then their CRC) and sends
// its eight beats; then the frames go on. The data frames before it are the
// ended epoch's, those after it the next one's; the point's own detector
// (netmeas_ctrl_detect), which sees m_axis_*, flips the core exactly there.
//
// An epoch ends on `flip_req` (a host's EPOCH_FLIP), or with `mode` 1 after
// `every_packets` data frames, or with `mode` 2 once `time_ns` has passed
// the epoch's start by `every_ns` (a zero count or period never ends one;
// the host's EPOCH_FLIP still does). Each boundary carries the ended epoch's
// number (from 0 at `enable`), the data frames the sender passed in it and
// the time at the boundary (netmeas_sim::frame::control has the format).
//
//   clk, rst             the MAC's clock, synchronous active-high reset
//   enable ... time_ns   configuration and time (the MAC's clock)
//   s_axis_*             frames from the MAC (tready held low while a control frame goes)
//   m_axis_*             frames to the link, one register stage (1 clock)
//   seq                  the epoch in progress: its boundary's sequence number
//   sent                 one clock: a control frame's last beat was taken
//
// 64-bit data path: a control frame is 60 bytes, eight beats (tkeep 0x0f on
// the last).

`resetall
`timescale 1ns / 1ps
`default_nettype none

module netmeas_ctrl_sender #(
    parameter integer TUSER_BITS = 65,
    parameter [15:0]  ETHERTYPE = 16'h88b5,
    parameter [47:0]  DST_MAC = 48'hffff_ffff_ffff,   // byte 0 in bits 47:40
    parameter [47:0]  SRC_MAC = 48'h0200_0000_0001
) (
    input  wire                  clk,
    input  wire                  rst,
    // --- configuration ---
    input  wire                  enable,
    input  wire [1:0]            mode,
    input  wire [31:0]           every_packets,
    input  wire [63:0]           every_ns,
    input  wire [15:0]           segment,
    input  wire                  flip_req,
    input  wire [63:0]           time_ns,
    // --- frames from the MAC ---
    input  wire [63:0]           s_axis_tdata,
    input  wire [7:0]            s_axis_tkeep,
    input  wire                  s_axis_tvalid,
    output wire                  s_axis_tready,
    input  wire                  s_axis_tlast,
    input  wire [TUSER_BITS-1:0] s_axis_tuser,
    // --- frames to the link ---
    output reg  [63:0]           m_axis_tdata = 64'd0,
    output reg  [7:0]            m_axis_tkeep = 8'd0,
    output reg                   m_axis_tvalid = 1'b0,
    input  wire                  m_axis_tready,
    output reg                   m_axis_tlast = 1'b0,
    output reg  [TUSER_BITS-1:0] m_axis_tuser = {TUSER_BITS{1'b0}},
    // --- status ---
    output reg  [31:0]           seq = 32'd0,
    output reg                   sent = 1'b0
);

localparam [1:0] PASS = 2'd0, CLAIM = 2'd1, BUILD = 2'd2, SEND = 2'd3;

reg  [1:0]  state = PASS;
reg         frame_open = 1'b0;     // a data frame has begun and not ended
reg         pending = 1'b0;        // an epoch end waits for the gap between two frames
reg         enabled = 1'b0;        // `enable` a clock ago
reg  [63:0] count = 64'd0;         // data frames in the epoch
reg  [63:0] epoch_start = 64'd0;   // its time
reg  [63:0] b_count = 64'd0;       // the boundary's fields, held while it goes
reg  [63:0] b_time = 64'd0;
reg  [31:0] b_crc = 32'd0;
reg  [2:0]  beat = 3'd0;

// The epoch's end, by request, count or time: from the clock it is due, no
// data frame begins.
wire [63:0] elapsed = time_ns - epoch_start;
wire by_count = mode == 2'd1 && every_packets != 32'd0 && count >= {32'd0, every_packets};
wire by_time = mode == 2'd2 && every_ns != 64'd0 && elapsed >= every_ns;
wire end_due = enable && enabled && (pending || flip_req || by_count || by_time);

wire out_ready = !m_axis_tvalid || m_axis_tready;
wire gap = !frame_open;
assign s_axis_tready = out_ready && state == PASS && !(end_due && gap);
wire take = s_axis_tvalid && s_axis_tready;

// The control frame: byte i in bits 8i+7..8i.
wire [191:0] header;
wire [31:0]  crc;
wire [511:0] frame;                  // (eight beats; bytes 60..63 are not sent)
assign header[7:0] = 8'd1;           // version
assign header[15:8] = 8'd1;          // kind: epoch boundary
genvar i;
generate
    for (i = 0; i < 2; i = i + 1) begin : seg_bytes
        assign header[8*(2+i) +: 8] = segment[15-8*i -: 8];
    end
    for (i = 0; i < 4; i = i + 1) begin : seq_bytes
        assign header[8*(4+i) +: 8] = seq[31-8*i -: 8];
    end
    for (i = 0; i < 8; i = i + 1) begin : count_bytes
        assign header[8*(8+i) +: 8] = b_count[63-8*i -: 8];
        assign header[8*(16+i) +: 8] = b_time[63-8*i -: 8];
    end
    for (i = 0; i < 6; i = i + 1) begin : mac_bytes
        assign frame[8*i +: 8] = DST_MAC[47-8*i -: 8];
        assign frame[8*(6+i) +: 8] = SRC_MAC[47-8*i -: 8];
    end
endgenerate
assign frame[111:96] = {ETHERTYPE[7:0], ETHERTYPE[15:8]};
assign frame[303:112] = header;
assign frame[335:304] = b_crc;       // least significant byte first
assign frame[511:336] = 176'd0;

netmeas_ctrl_crc header_crc (.header(header), .crc(crc));

always @(posedge clk) begin
    sent <= 1'b0;
    enabled <= enable;
    if (rst) begin
        state <= PASS;
        frame_open <= 1'b0;
        pending <= 1'b0;
        enabled <= 1'b0;
        count <= 64'd0;
        seq <= 32'd0;
        m_axis_tvalid <= 1'b0;
    end else begin
        if (take) frame_open <= !s_axis_tlast;
        if (enable && !enabled) begin
            // Epoch 0 begins.
            seq <= 32'd0;
            count <= 64'd0;
            epoch_start <= time_ns;
            pending <= 1'b0;
        end else if (enable) begin
            if (take && s_axis_tlast) count <= count + 64'd1;
            if (flip_req || by_count || by_time) pending <= 1'b1;
        end
        case (state)
            PASS: begin
                if (out_ready) begin
                    m_axis_tvalid <= take;
                    m_axis_tdata <= s_axis_tdata;
                    m_axis_tkeep <= s_axis_tkeep;
                    m_axis_tlast <= s_axis_tlast;
                    m_axis_tuser <= s_axis_tuser;
                end
                if (end_due && gap) state <= CLAIM;
            end
            CLAIM: begin
                // The boundary's fields, now that no frame is in progress.
                if (m_axis_tready) m_axis_tvalid <= 1'b0;
                b_count <= count;
                b_time <= time_ns;
                state <= BUILD;
            end
            BUILD: begin
                if (m_axis_tready) m_axis_tvalid <= 1'b0;
                b_crc <= crc;
                beat <= 3'd0;
                state <= SEND;
            end
            default: begin  // SEND
                if (out_ready) begin
                    m_axis_tvalid <= 1'b1;
                    m_axis_tdata <= frame[64*beat +: 64];
                    m_axis_tkeep <= beat == 3'd7 ? 8'h0f : 8'hff;
                    m_axis_tlast <= beat == 3'd7;
                    m_axis_tuser <= {TUSER_BITS{1'b0}};
                    beat <= beat + 3'd1;
                    if (beat == 3'd7) begin
                        // The next epoch begins after it.
                        sent <= 1'b1;
                        seq <= seq + 32'd1;
                        count <= 64'd0;
                        epoch_start <= b_time;
                        pending <= flip_req;
                        state <= PASS;
                    end
                end
            end
        endcase
    end
end

endmodule

`resetall

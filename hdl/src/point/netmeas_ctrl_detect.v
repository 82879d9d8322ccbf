// netmeas_ctrl_detect: which frames on an inline point's data path are
// control frames of in-band epoch control (LDA §III), and what they say.
// It watches the beats taken on the path (the MAC's clock) and gives one
// verdict per frame, three clocks after its last beat (the frame parser's
// outcome for the same frame comes ten clocks later, so the two meet in
// frame order): whether its EtherType, after up to two VLAN tags (0x8100,
// 0x88A8), is ETHERTYPE; if so, whether it is refused and why, and its
// fields. The rules are the reference's (netmeas_sim::frame::control):
// the MAC's bad-frame flag, then a frame too short for its header and CRC,
// then the version, then the kind, then the CRC.
//
//   clk, rst        the MAC's clock, synchronous active-high reset
//   beat_*          a beat taken on the path (tdata, tkeep, tlast, the MAC's bad flag)
//   v_valid         one clock per frame: its verdict
//   v_ctrl          the frame is a control frame
//   v_error         0 accepted; 1 bad frame, 2 short, 3 version, 4 kind, 5 CRC
//   v_kind ...      its fields (v_kind 1: an epoch boundary)
//
// 64-bit data path. The first seven beats are kept (bytes 0..55: the
// header ends by byte 49 behind two tags).

`resetall
`timescale 1ns / 1ps
`default_nettype none

module netmeas_ctrl_detect #(
    parameter [15:0] ETHERTYPE = 16'h88b5
) (
    input  wire        clk,
    input  wire        rst,
    // --- beats taken on the path ---
    input  wire        beat_valid,
    input  wire [63:0] beat_data,
    input  wire [7:0]  beat_keep,
    input  wire        beat_last,
    input  wire        beat_bad,
    // --- one verdict per frame ---
    output reg         v_valid = 1'b0,
    output reg         v_ctrl = 1'b0,
    output reg  [2:0]  v_error = 3'd0,
    output reg  [7:0]  v_kind = 8'd0,
    output reg  [15:0] v_segment = 16'd0,
    output reg  [31:0] v_seq = 32'd0,
    output reg  [63:0] v_packets = 64'd0,
    output reg  [63:0] v_time = 64'd0
);

// ---------------------------------------------------------------- capture
reg  [447:0] head = 448'd0;      // bytes 0..55 of the frame, byte n in bits 8n+7..8n
reg  [2:0]   beats = 3'd0;       // beats taken of the frame, up to 7
reg  [6:0]   nbytes = 7'd0;      // its bytes, up to 127
reg          done = 1'b0;        // its last beat was taken a clock ago
reg          bad = 1'b0;

function [3:0] ones(input [7:0] k);
    integer q;
    begin
        ones = 4'd0;
        for (q = 0; q < 8; q = q + 1) ones = ones + {3'd0, k[q]};
    end
endfunction

always @(posedge clk) begin
    done <= 1'b0;
    if (rst) begin
        beats <= 3'd0;
        nbytes <= 7'd0;
    end else if (beat_valid) begin
        if (beats != 3'd7) head[64*beats +: 64] <= beat_data;
        if (beat_last) begin
            beats <= 3'd0;
            nbytes <= 7'd0;
            done <= 1'b1;
            bad <= beat_bad;
        end else begin
            if (beats != 3'd7) beats <= beats + 3'd1;
            if (nbytes < 7'd120) nbytes <= nbytes + {3'd0, ones(beat_keep)};
        end
    end
end

// The frame's length as its last beat left it (up to 127, enough to tell short).
reg  [6:0] length = 7'd0;
always @(posedge clk) if (beat_valid && beat_last) length <= (nbytes < 7'd120) ? nbytes + {3'd0, ones(beat_keep)} : 7'd127;

// ---------------------------------------------------------------- stage 1: where the header is
function [15:0] be16(input [447:0] h, input integer at);
    be16 = {h[8*at +: 8], h[8*(at+1) +: 8]};
endfunction

wire vlan0 = be16(head, 12) == 16'h8100 || be16(head, 12) == 16'h88a8;
wire vlan1 = be16(head, 16) == 16'h8100 || be16(head, 16) == 16'h88a8;
wire at14 = length >= 7'd14 && be16(head, 12) == ETHERTYPE;
wire at18 = length >= 7'd18 && vlan0 && be16(head, 16) == ETHERTYPE;
wire at22 = length >= 7'd22 && vlan0 && vlan1 && be16(head, 20) == ETHERTYPE;

reg          s1_valid = 1'b0;
reg          s1_ctrl = 1'b0;
reg          s1_bad = 1'b0;
reg          s1_short = 1'b0;
reg  [223:0] s1_window = 224'd0;   // the header's 24 bytes and the CRC's 4

always @(posedge clk) begin
    s1_valid <= done && !rst;
    s1_ctrl <= at14 || at18 || at22;
    s1_bad <= bad;
    s1_short <= at14 ? length < 7'd42 : at18 ? length < 7'd46 : length < 7'd50;
    s1_window <= at14 ? head[8*14 +: 224] : at18 ? head[8*18 +: 224] : head[8*22 +: 224];
end

// ---------------------------------------------------------------- stage 2: the verdict
wire [191:0] header = s1_window[191:0];
wire [31:0]  crc_got = s1_window[223:192];
wire [31:0]  crc_want;
netmeas_ctrl_crc header_crc (.header(header), .crc(crc_want));

function [63:0] be64(input [191:0] h, input integer at);
    integer q;
    begin
        for (q = 0; q < 8; q = q + 1) be64[63-8*q -: 8] = h[8*(at+q) +: 8];
    end
endfunction

always @(posedge clk) begin
    v_valid <= s1_valid && !rst;
    v_ctrl <= s1_ctrl;
    v_error <= s1_bad ? 3'd1
             : s1_short ? 3'd2
             : header[7:0] != 8'd1 ? 3'd3
             : header[15:8] != 8'd1 ? 3'd4
             : crc_got != crc_want ? 3'd5
             : 3'd0;
    v_kind <= header[15:8];
    v_segment <= {header[23:16], header[31:24]};
    v_seq <= {header[39:32], header[47:40], header[55:48], header[63:56]};
    v_packets <= be64(header, 8);
    v_time <= be64(header, 16);
end

endmodule

`resetall

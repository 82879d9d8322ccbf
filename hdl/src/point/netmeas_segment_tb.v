// Testbench of a segment: two inline measurement points of the same core,
// a sender and a receiver, joined by a link (Icarus Verilog, or Verilator
// with --binary --timing). In-band epoch control (LDA §III, §V): the sender
// puts a control frame on the link every EVERY data frames, the receiver
// flips its epoch at each one it takes and strips them from its output.
//
//   MAC A (clock sa) -> sender point -> link -> receiver point (clock sb) -> MAC B
//   host (clock aclk, both cores): configuration, read-outs, registers
//
// The MAC A side sends the frames of a beat file (one line per clock, as
// netmeas_point_tb.v's, waiting while the sender holds s_axis_tready low).
// The link keeps every frame the sender puts out (checking that the data
// frames leave unchanged and in order, and that no control frame sits
// inside one; control frames MAC A sends, forged ones, pass unchecked) and hands them to the receiver, each as the fate file says:
// delivered, lost, or (a control frame) corrupted in one byte of its
// header; a delivered data frame's timestamp (tuser[64:1]) becomes its
// send time + its delay (the fate file's) + OFFSET_NS, the receiver's clock
// being that far from the sender's. MAC B takes the receiver's output with
// random TREADY and checks that it is the delivered data frames, unchanged.
// The host takes each point's read-out as it comes; before it takes an
// epoch's last beat it reads the point's every status word.
//
// Prints, for the caller to compare with the golden model:
//   WIRE <k> <control> <fate>          each frame on the link, in order
//   RO <point> <tdata hex> <tlast>     each read-out beat (point 0 the sender)
//   REG <point> <index> <value>        the status words, before an epoch's last beat
//   PASS clocks=…                      or FAIL … and $fatal
// The points' map comes from netmeas_segment_tb_map.vh (generated with the
// point). Plusargs: +BEATS (lines of beats.hex), +FRAMES (lines of
// fates.hex: one per frame on the link, {fate 8, delay ns 32}; fate 0
// delivered, 1 lost, 2 corrupted), +EVERY, +SEGMENT, +OFFSET_NS, +EPOCHS (the
// sender's epochs to read out, the last ended by the host's EPOCH_FLIP),
// +SA_HALF_PS, +SB_HALF_PS, +M_HALF_PS, +READY_PCT, +SEED.

`timescale 1ps / 1ps

module netmeas_segment_tb;

`include "netmeas_segment_tb_map.vh"

localparam integer KEEP_BITS = 8;
localparam integer LINE_BITS = 64 + 2 + TUSER_BITS + KEEP_BITS + 64;
localparam integer BEAT_BITS = 64 + 8 + 1 + TUSER_BITS;        // {tuser, tlast, tkeep, tdata}
parameter integer MAX_BEATS = 200000;
parameter integer MAX_FRAMES = 40000;

integer beats = 0;
integer n_fates = 0;
integer every = 100;
integer segment = 7;
reg [63:0] offset_ns = 64'd0;
integer epochs = 1;
integer sa_half_ps = 3200;          // 156.25 MHz
integer sb_half_ps = 3103;          // 161.1 MHz
integer m_half_ps = 2500;           // 200 MHz
integer ready_pct = 70;
integer seed = 1;

reg sa = 1'b0, sb = 1'b0, aclk = 1'b0;
reg sa_resetn = 1'b0, sb_resetn = 1'b0, aresetn = 1'b0;

reg  [LINE_BITS-1:0] line_mem [0:MAX_BEATS-1];
reg  [39:0]          fate_mem [0:MAX_FRAMES-1];

// ------------------------------------------------------------ the two points
// MAC A into the sender.
reg  [63:0]           a_tdata = 64'd0;
reg  [7:0]            a_tkeep = 8'd0;
reg                   a_tvalid = 1'b0;
wire                  a_tready;
reg                   a_tlast = 1'b0;
reg  [TUSER_BITS-1:0] a_tuser = 0;
reg  [63:0]           a_time = 64'd0;
// The sender onto the link.
wire [63:0]           w_tdata;
wire [7:0]            w_tkeep;
wire                  w_tvalid;
wire                  w_tlast;
wire [TUSER_BITS-1:0] w_tuser;
// The link into the receiver.
reg  [63:0]           b_tdata = 64'd0;
reg  [7:0]            b_tkeep = 8'd0;
reg                   b_tvalid = 1'b0;
wire                  b_tready;
reg                   b_tlast = 1'b0;
reg  [TUSER_BITS-1:0] b_tuser = 0;
// The receiver to MAC B.
wire [63:0]           o_tdata;
wire [7:0]            o_tkeep;
wire                  o_tvalid;
reg                   o_tready = 1'b0;
wire                  o_tlast;
wire [TUSER_BITS-1:0] o_tuser;

// One AXI4-Lite master; the address bit above the points' selects one.
reg  [ADDR_WIDTH:0]   awaddr = 0;
reg                   awvalid = 1'b0;
reg  [31:0]           wdata = 0;
reg                   wvalid = 1'b0;
reg                   bready = 1'b0;
reg  [ADDR_WIDTH:0]   araddr = 0;
reg                   arvalid = 1'b0;
reg                   rready = 1'b0;
wire [1:0]            awready, wready, bvalid, arready, rvalid;
wire [63:0]           rdata2;
wire [3:0]            bresp2, rresp2;
wire [2*TDATA_BITS-1:0] ro_tdata;
wire [1:0]            ro_tvalid, ro_tlast;
reg  [1:0]            ro_tready = 2'b00;
wire [1:0]            irq;
wire                  sel_w = awaddr[ADDR_WIDTH];
wire                  sel_r = araddr[ADDR_WIDTH];

`POINT_TOP `POINT_PARAMS sender (
    .s_axis_aclk(sa), .s_axis_aresetn(sa_resetn),
    .s_axis_tdata(a_tdata), .s_axis_tkeep(a_tkeep), .s_axis_tvalid(a_tvalid), .s_axis_tready(a_tready),
    .s_axis_tlast(a_tlast), .s_axis_tuser(a_tuser), .s_axis_time_ns(a_time),
    .m_axis_tdata(w_tdata), .m_axis_tkeep(w_tkeep), .m_axis_tvalid(w_tvalid), .m_axis_tready(1'b1),
    .m_axis_tlast(w_tlast), .m_axis_tuser(w_tuser),
    .aclk(aclk), .aresetn(aresetn),
    .s_axil_awaddr(awaddr[ADDR_WIDTH-1:0]), .s_axil_awprot(3'b000), .s_axil_awvalid(awvalid && !sel_w),
    .s_axil_awready(awready[0]), .s_axil_wdata(wdata), .s_axil_wstrb(4'hf), .s_axil_wvalid(wvalid && !sel_w),
    .s_axil_wready(wready[0]), .s_axil_bresp(bresp2[1:0]), .s_axil_bvalid(bvalid[0]), .s_axil_bready(bready && !sel_w),
    .s_axil_araddr(araddr[ADDR_WIDTH-1:0]), .s_axil_arprot(3'b000), .s_axil_arvalid(arvalid && !sel_r),
    .s_axil_arready(arready[0]), .s_axil_rdata(rdata2[31:0]), .s_axil_rresp(rresp2[1:0]), .s_axil_rvalid(rvalid[0]),
    .s_axil_rready(rready && !sel_r),
    .m_axis_ro_tdata(ro_tdata[TDATA_BITS-1:0]), .m_axis_ro_tvalid(ro_tvalid[0]), .m_axis_ro_tready(ro_tready[0]),
    .m_axis_ro_tlast(ro_tlast[0]), .irq(irq[0])
);

`POINT_TOP `POINT_PARAMS receiver (
    .s_axis_aclk(sb), .s_axis_aresetn(sb_resetn),
    .s_axis_tdata(b_tdata), .s_axis_tkeep(b_tkeep), .s_axis_tvalid(b_tvalid), .s_axis_tready(b_tready),
    .s_axis_tlast(b_tlast), .s_axis_tuser(b_tuser), .s_axis_time_ns(64'd0),
    .m_axis_tdata(o_tdata), .m_axis_tkeep(o_tkeep), .m_axis_tvalid(o_tvalid), .m_axis_tready(o_tready),
    .m_axis_tlast(o_tlast), .m_axis_tuser(o_tuser),
    .aclk(aclk), .aresetn(aresetn),
    .s_axil_awaddr(awaddr[ADDR_WIDTH-1:0]), .s_axil_awprot(3'b000), .s_axil_awvalid(awvalid && sel_w),
    .s_axil_awready(awready[1]), .s_axil_wdata(wdata), .s_axil_wstrb(4'hf), .s_axil_wvalid(wvalid && sel_w),
    .s_axil_wready(wready[1]), .s_axil_bresp(bresp2[3:2]), .s_axil_bvalid(bvalid[1]), .s_axil_bready(bready && sel_w),
    .s_axil_araddr(araddr[ADDR_WIDTH-1:0]), .s_axil_arprot(3'b000), .s_axil_arvalid(arvalid && sel_r),
    .s_axil_arready(arready[1]), .s_axil_rdata(rdata2[63:32]), .s_axil_rresp(rresp2[3:2]), .s_axil_rvalid(rvalid[1]),
    .s_axil_rready(rready && sel_r),
    .m_axis_ro_tdata(ro_tdata[2*TDATA_BITS-1:TDATA_BITS]), .m_axis_ro_tvalid(ro_tvalid[1]),
    .m_axis_ro_tready(ro_tready[1]), .m_axis_ro_tlast(ro_tlast[1]), .irq(irq[1])
);

integer clocks = 0;
integer sent = 0;                   // beat lines sent
integer k;
`include "netmeas_tb_rnd.vh"

task fail(input [8*72-1:0] what);
    begin
        $display("FAIL %0s (beat lines sent %0d of %0d, core clocks %0d, at %0t ps)", what, sent, beats, clocks, $time);
        $fatal(1);
    end
endtask

always @(posedge aclk) clocks = clocks + 1;

// ------------------------------------------------------------ AXI4-Lite master (the host)
wire this_awready = sel_w ? awready[1] : awready[0];
wire this_wready = sel_w ? wready[1] : wready[0];
wire this_bvalid = sel_w ? bvalid[1] : bvalid[0];
wire [1:0] this_bresp = sel_w ? bresp2[3:2] : bresp2[1:0];
wire this_arready = sel_r ? arready[1] : arready[0];
wire this_rvalid = sel_r ? rvalid[1] : rvalid[0];
wire [31:0] this_rdata = sel_r ? rdata2[63:32] : rdata2[31:0];
wire [1:0] this_rresp = sel_r ? rresp2[3:2] : rresp2[1:0];

always @(posedge aclk) begin
    if (awvalid && this_awready) awvalid <= 1'b0;
    if (wvalid && this_wready) wvalid <= 1'b0;
    if (arvalid && this_arready) arvalid <= 1'b0;
end

task axil_write(input integer pt, input [31:0] a, input [31:0] d);
    integer guard;
    begin
        @(negedge aclk);
        awaddr = {pt[0], a[ADDR_WIDTH-1:0]};
        awvalid = 1'b1;
        wdata = d;
        wvalid = 1'b1;
        bready = 1'b1;
        guard = 0;
        while (awvalid || wvalid || !this_bvalid) begin
            @(negedge aclk);
            guard = guard + 1;
            if (guard > 1000) fail("a write is not answered");
        end
        if (this_bresp != 2'b00) fail("a write answered with an error");
        @(negedge aclk);
        bready = 1'b0;
    end
endtask

task axil_read(input integer pt, input [31:0] a, output [31:0] d);
    integer guard;
    begin
        @(negedge aclk);
        araddr = {pt[0], a[ADDR_WIDTH-1:0]};
        arvalid = 1'b1;
        rready = 1'b1;
        guard = 0;
        while (!this_rvalid) begin
            @(negedge aclk);
            guard = guard + 1;
            if (guard > 1000) fail("a read is not answered");
        end
        if (this_rresp != 2'b00) fail("a read answered with an error");
        d = this_rdata;
        @(negedge aclk);
        rready = 1'b0;
    end
endtask

// ------------------------------------------------------------ MAC A: the frames
integer i;
reg [LINE_BITS-1:0] l;
reg a_go = 1'b0;
reg a_done = 1'b0;
// The data frames as sent, beat by beat, for the link's check (a control
// frame MAC A sends, a forged one, is taken back out at its last beat).
reg  [BEAT_BITS-1:0] in_mem [0:MAX_BEATS-1];
integer in_beats = 0;
integer a_frame_start = 0;
integer a_beat = 0;
reg     a_frame_ctrl = 1'b0;
always @(posedge sa) begin
    if (a_tvalid && a_tready) begin
        if (a_beat == 0) a_frame_start = in_beats;
        if (a_beat == 1) a_frame_ctrl = {a_tdata[39:32], a_tdata[47:40]} == CTRL_ETHERTYPE;
        in_mem[in_beats] = {a_tuser, a_tlast, a_tkeep, a_tdata};
        in_beats = in_beats + 1;
        a_beat = a_beat + 1;
        if (a_tlast) begin
            if (a_frame_ctrl) in_beats = a_frame_start;
            a_beat = 0;
            a_frame_ctrl = 1'b0;
        end
    end
end
initial begin
    wait (a_go);
    for (i = 0; i < beats; i = i + 1) begin
        @(posedge sa) #1;
        l = line_mem[i];
        a_time = l[LINE_BITS-1 -: 64];
        a_tvalid = l[LINE_BITS-65];
        a_tlast = l[LINE_BITS-66];
        a_tuser = l[LINE_BITS-67 -: TUSER_BITS];
        a_tkeep = l[64 +: KEEP_BITS];
        a_tdata = l[63:0];
        // A beat waits while the sender holds tready low (a control frame goes).
        while (a_tvalid && !a_tready) @(posedge sa) #1;
        sent = i + 1;
    end
    @(posedge sa) #1 a_tvalid = 1'b0;
    a_done = 1'b1;
end

// ------------------------------------------------------------ the link
// Every frame the sender puts out, beat by beat; its data frames must be
// the frames MAC A sent, unchanged, and in order.
reg  [BEAT_BITS-1:0] wire_mem [0:MAX_BEATS-1];
integer wire_beats = 0;
integer wire_frames = 0;
integer wire_start [0:MAX_FRAMES-1];     // each frame's first beat
reg     wire_ctrl [0:MAX_FRAMES-1];
integer data_beats_seen = 0;
reg     w_in_frame = 1'b0;
reg     w_frame_ctrl = 1'b0;
wire    w_is_ctrl_beat1 = {w_tdata[39:32], w_tdata[47:40]} == CTRL_ETHERTYPE;
integer w_beat = 0;
always @(posedge sa) begin
    if (w_tvalid) begin
        if (wire_beats >= MAX_BEATS) fail("more beats on the link than the testbench holds");
        wire_mem[wire_beats] = {w_tuser, w_tlast, w_tkeep, w_tdata};
        if (!w_in_frame) begin
            wire_start[wire_frames] = wire_beats;
            w_beat = 0;
        end
        // The control frames are untagged: bytes 12 and 13 in the second beat.
        if (w_beat == 1) w_frame_ctrl = w_is_ctrl_beat1;
        if (w_tlast) begin
            wire_ctrl[wire_frames] = w_frame_ctrl;
            if (wire_frames >= n_fates) fail("more frames on the link than the fate file has");
            $display("WIRE %0d %0d %0d", wire_frames, w_frame_ctrl, fate_mem[wire_frames][39:32]);
            if (!w_frame_ctrl) begin
                // Its beats against MAC A's, in order.
                for (k = wire_start[wire_frames]; k <= wire_beats; k = k + 1) begin
                    if (wire_mem[k] !== in_mem[data_beats_seen]) fail("a data frame left the sender changed or out of order");
                    data_beats_seen = data_beats_seen + 1;
                end
            end
            wire_frames = wire_frames + 1;
        end
        w_in_frame = !w_tlast;
        w_beat = w_beat + 1;
        wire_beats = wire_beats + 1;
    end
end

// The receiver's MAC B side: each frame as its fate says, beat by beat.
integer f = 0;
integer bb;
reg [39:0] fate;
reg [BEAT_BITS-1:0] beat;
reg [63:0] ts;
// The delivered data frames, beat by beat, for MAC B's check.
reg  [BEAT_BITS-1:0] out_mem [0:MAX_BEATS-1];
integer out_beats = 0;
initial begin
    wait (a_go);
    forever begin
        // The next frame, once the sender has put it out whole.
        while (f >= wire_frames) @(posedge sb);
        fate = fate_mem[f];
        if (fate[39:32] != 8'd1) begin
            for (bb = wire_start[f]; bb == wire_start[f] || !wire_mem[bb - 1][72]; bb = bb + 1) begin
                beat = wire_mem[bb];
                if (!wire_ctrl[f] && bb == wire_start[f]) begin
                    // The receiver's MAC stamps it: send time + delay + offset.
                    ts = beat[73 + 64 : 74] + {32'd0, fate[31:0]} + offset_ns;
                    beat[73 + 64 : 74] = ts;
                end
                if (wire_ctrl[f] && fate[39:32] == 8'd2 && bb == wire_start[f] + 2) begin
                    // Corrupt a byte of the header (the segment's low byte): its CRC fails.
                    beat[15:8] = beat[15:8] ^ 8'h5a;
                end
                if (!wire_ctrl[f]) begin
                    out_mem[out_beats] = beat;
                    out_beats = out_beats + 1;
                end
                // (the beat before was taken at this edge)
                @(posedge sb) #1;
                b_tdata = beat[63:0];
                b_tkeep = beat[71:64];
                b_tlast = beat[72];
                b_tuser = beat[BEAT_BITS-1:73];
                b_tvalid = 1'b1;
                while (!b_tready) @(posedge sb) #1;
            end
            @(posedge sb) #1 b_tvalid = 1'b0;
        end
        f = f + 1;
    end
end

// MAC B: the receiver's output with random TREADY, against the delivered data frames.
integer out_seen = 0;
always @(posedge sb) begin
    if (sb_resetn) begin
        if (o_tvalid && o_tready) begin
            if (out_seen >= out_beats) fail("the receiver sent a beat that was not delivered to it");
            // (its timestamp as delivered: the receiver passes tuser on)
            if ({o_tuser, o_tlast, o_tkeep, o_tdata} !== out_mem[out_seen])
                fail("the receiver's output differs from the data frames delivered to it");
            out_seen = out_seen + 1;
        end
        o_tready <= ($unsigned(rnd(0)) % 100) < ready_pct;
    end
end

// ------------------------------------------------------------ the host
integer ro_epochs [0:1];
integer pt;
integer q;
reg [31:0] value;
reg host_done = 1'b0;
task take_readouts;
    begin
        for (pt = 0; pt < 2; pt = pt + 1) begin
            if (ro_tvalid[pt]) begin
                if (ro_tlast[pt]) begin
                    // The epoch's status before its last beat goes.
                    for (q = 0; q < N_STATUS; q = q + 1) begin
                        axil_read(pt, STATUS_BASE + 4 * q, value);
                        $display("REG %0d %0d %0d", pt, q, value);
                    end
                end
                $display("RO %0d %h %0d", pt, ro_tdata[pt*TDATA_BITS +: TDATA_BITS], ro_tlast[pt]);
                if (ro_tlast[pt]) ro_epochs[pt] = ro_epochs[pt] + 1;
                @(negedge aclk) ro_tready[pt] = 1'b1;
                @(negedge aclk) ro_tready[pt] = 1'b0;
            end
        end
    end
endtask

integer guard;
initial begin
    if ($value$plusargs("BEATS=%d", beats)) ;
    if ($value$plusargs("FRAMES=%d", n_fates)) ;
    if ($value$plusargs("EVERY=%d", every)) ;
    if ($value$plusargs("SEGMENT=%d", segment)) ;
    if ($value$plusargs("OFFSET_NS=%d", offset_ns)) ;
    if ($value$plusargs("EPOCHS=%d", epochs)) ;
    if ($value$plusargs("SA_HALF_PS=%d", sa_half_ps)) ;
    if ($value$plusargs("SB_HALF_PS=%d", sb_half_ps)) ;
    if ($value$plusargs("M_HALF_PS=%d", m_half_ps)) ;
    if ($value$plusargs("READY_PCT=%d", ready_pct)) ;
    if ($value$plusargs("SEED=%d", seed)) ;
    if (beats < 1 || beats > MAX_BEATS || n_fates < 1 || n_fates > MAX_FRAMES || every < 1 || epochs < 1
            || ready_pct < 1 || ready_pct > 100 || seed == 0)
        fail("unusable plusargs");
    prng = seed;
    ro_epochs[0] = 0;
    ro_epochs[1] = 0;
    $readmemh("beats.hex", line_mem, 0, beats - 1);
    $readmemh("fates.hex", fate_mem, 0, n_fates - 1);
    fork
        forever #(sa_half_ps) sa = !sa;
        begin
            #(311);
            forever #(sb_half_ps) sb = !sb;
        end
        begin
            #(777);
            forever #(m_half_ps) aclk = !aclk;
        end
        begin
            repeat (8) @(posedge sa);
            repeat (8) @(posedge aclk);
            @(posedge sa) #1 sa_resetn = 1'b1;
            @(posedge sb) #1 sb_resetn = 1'b1;
            @(posedge aclk) #1 aresetn = 1'b1;
            // Both points ready, then configured: the sender ends an epoch every EVERY
            // data frames, the receiver follows and strips the control frames.
            for (pt = 0; pt < 2; pt = pt + 1) begin
                guard = 0;
                value = 0;
                while (!value[0]) begin
                    axil_read(pt, POINT_STATUS_ADDR, value);
                    guard = guard + 1;
                    if (guard > 100000) fail("a point never showed READY");
                end
            end
            axil_write(0, CTRL_SEGMENT_ADDR, segment);
            axil_write(0, CTRL_MODE_ADDR, 1);
            axil_write(0, CTRL_EVERY_PACKETS_ADDR, every);
            axil_write(1, CTRL_SEGMENT_ADDR, segment);
            axil_write(1, CTRL_STRIP_ADDR, 1);
            axil_write(1, CTRL_ROLE_ADDR, 2);
            axil_write(0, CTRL_ROLE_ADDR, 1);
            // (the configuration reaches the MAC's clock in a few clocks)
            repeat (200) @(posedge aclk);
            a_go = 1'b1;
            while (!a_done) begin
                take_readouts;
                @(negedge aclk);
            end
            // The last epoch: the host ends it on the sender.
            repeat (2000) begin
                take_readouts;
                @(negedge aclk);
            end
            axil_write(0, FLIP_ADDR, 1);
            guard = 0;
            while (ro_epochs[0] < epochs || f < wire_frames || out_seen < out_beats || guard < 3000) begin
                take_readouts;
                @(negedge aclk);
                guard = guard + 1;
                if (guard > 20000000) fail("the read-outs never ended");
            end
            if (ro_epochs[0] != epochs) fail("the sender read out another number of epochs");
            if (wire_frames != n_fates) fail("another number of frames on the link than the fate file has");
            $display("PASS clocks=%0d wire_frames=%0d epochs=%0d/%0d", clocks, wire_frames, ro_epochs[0], ro_epochs[1]);
            $finish;
        end
    join
end

endmodule

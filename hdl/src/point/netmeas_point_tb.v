// Testbench of a packaged measurement point on AXI4-Lite (runs in Icarus
// Verilog, in Verilator with --binary --timing, or in any Verilog-2005
// simulator). The MAC's side and the core's side run on two clocks of
// unrelated periods. It drives the frames of a beat file into s_axis_*, one
// line per MAC clock (with the time on s_axis_time_ns), then holds the time
// at +END_NS (if given) while the point drains, ends the epoch by an
// EPOCH_FLIP write (if the point has one; otherwise waits for the read-out
// of the epochs the frames ended to rest), takes the read-out from m_axis_*
// with random TREADY — or, with +WINDOW=1 (a point with a flip), through
// the read-out window over AXI4-Lite, slot by slot, checking that a word
// read twice reads the same and that a slot not presented and a write are
// refused — then, for a point with a query port, sends the queries of a
// query file on s_axis_query_* with random TVALID and takes their answers
// from m_axis_answer_* with random TREADY, and reads every status word.
// Before the frames it runs the setup file's bus operations (a host's
// configuration: writes, and polls of a word until it reads a value).
// With +RESET_SIDE (1 the MAC's side, s_axis_aresetn; 2 the core's,
// aresetn; 3 both) it resets the point once, for +RESET_CLOCKS clocks of
// each side reset: at beat line +RESET_BEAT (a MAC in reset abandons the
// frame it was sending and goes on with the next one once out of it; a
// tap's MAC does not wait for the core), or with +RESET_READOUT=1 after
// the read-out's first beat. After a reset of the core's side it polls
// POINT_STATUS until READY (the frames go on meanwhile), and a reset in
// the read-out ends the run once the point is ready again. What it saw is
// printed for the caller to compare with the golden model:
//   RO <tdata hex> <tlast>        one line per read-out beat
//   ANS <tdata hex>               one line per answer
//   RESET <line>                  the reset began before beat line <line> (or the read-out's: -1)
//   RESUMED <line>                the MAC's frames went on from beat line <line>
//   READY <line>                  POINT_STATUS showed READY again before beat line <line>
//   REG <status index> <value>    one line per status word
//   FLAGS <value>                 the flags word
//   PASS clocks=…                 or FAIL … and $fatal
// The point's map comes from netmeas_point_tb_map.vh (generated with the
// point): `POINT_TOP, DATA_BITS, TUSER_BITS, TDATA_BITS, ADDR_WIDTH,
// N_STATUS, STATUS_BASE, FLIP_ADDR (0: none), `POINT_PARAMS (the top's
// parameters), QUERY_BITS and ANSWER_BITS (0: no query port) and
// `POINT_QUERY_PORTS (its connections).
// Plusargs: +BEATS (lines of the beat file), +S_HALF_PS, +M_HALF_PS,
// +WAIT_CLOCKS (core clocks after reset before the first frame),
// +READY_PCT, +SEED, +END_NS (the time after the frames; 0: unchanged),
// +WINDOW (1: the read-out through the window), +SETUP (lines of
// setup.hex), +QUERIES (lines of queries.hex), +RESET_SIDE, +RESET_BEAT,
// +RESET_CLOCKS, +RESET_READOUT.
//
// A beat file line, from its most significant bit: the time (64 bits, on
// s_axis_time_ns), tvalid, tlast, tuser (TUSER_BITS: the frame's delay
// above bit 64 if the point takes it, the ingress time in 64..1, the
// bad-frame flag in 0), tkeep, tdata. A setup line: {op, byte address,
// value}, 32 bits each (op 0: write; op 1: read until the word equals the
// value). A query line: the query's TDATA.

`timescale 1ps / 1ps

module netmeas_point_tb;

`include "netmeas_point_tb_map.vh"

localparam integer KEEP_BITS = DATA_BITS / 8;
localparam integer LINE_BITS = 64 + 2 + TUSER_BITS + KEEP_BITS + DATA_BITS;
parameter integer MAX_BEATS = 400000;
parameter integer MAX_SETUP = 1024;
parameter integer MAX_QUERIES = 65536;
localparam integer QB = QUERY_BITS > 0 ? QUERY_BITS : 8;     // (widths of the unused regs without a query port)
localparam integer AB = ANSWER_BITS > 0 ? ANSWER_BITS : 8;

integer beats = 0;
integer s_half_ps = 3200;           // 156.25 MHz: a 10G MAC
integer m_half_ps = 2500;           // 200 MHz
integer wait_clocks = 3000;
integer ready_pct = 70;
integer seed = 1;
reg [63:0] end_ns = 64'd0;
integer window_mode = 0;
integer n_setup = 0;
integer n_queries = 0;
integer reset_side = 0;             // 0 none, 1 the MAC's side, 2 the core's, 3 both
integer reset_beat = -1;            // the beat line before which it comes
integer reset_clocks = 1;           // clocks of each side it lasts
integer reset_readout = 0;          // 1: after the read-out's first beat instead
reg     readout_reset_done = 1'b0;

reg s_clk = 1'b0;
reg m_clk = 1'b0;
reg s_aresetn = 1'b0;
reg m_aresetn = 1'b0;

reg  [LINE_BITS-1:0] line_mem [0:MAX_BEATS-1];
reg  [DATA_BITS-1:0] s_axis_tdata = 0;
reg  [KEEP_BITS-1:0] s_axis_tkeep = 0;
reg                  s_axis_tvalid = 1'b0;
wire                 s_axis_tready;
reg                  s_axis_tlast = 1'b0;
reg  [TUSER_BITS-1:0] s_axis_tuser = 0;
reg  [63:0]          s_axis_time_ns = 0;

reg  [ADDR_WIDTH-1:0] awaddr = 0;
reg                   awvalid = 1'b0;
wire                  awready;
reg  [31:0]           wdata = 0;
reg                   wvalid = 1'b0;
wire                  wready;
wire [1:0]            bresp;
wire                  bvalid;
reg                   bready = 1'b0;
reg  [ADDR_WIDTH-1:0] araddr = 0;
reg                   arvalid = 1'b0;
wire                  arready;
wire [31:0]           rdata;
wire [1:0]            rresp;
wire                  rvalid;
reg                   rready = 1'b0;

wire [TDATA_BITS-1:0] m_axis_tdata;
wire                  m_axis_tvalid;
reg                   m_axis_tready = 1'b0;
wire                  m_axis_tlast;
wire                  irq;

reg  [95:0]           setup_mem [0:MAX_SETUP-1];
reg  [QB-1:0]         query_mem [0:MAX_QUERIES-1];
/* verilator lint_off UNUSEDSIGNAL */  // without a query port, nothing drives or reads them
reg  [QB-1:0]         s_axis_query_tdata = 0;
reg                   s_axis_query_tvalid = 1'b0;
wire                  s_axis_query_tready;
wire [AB-1:0]         m_axis_answer_tdata;
wire                  m_axis_answer_tvalid;
reg                   m_axis_answer_tready = 1'b0;
/* verilator lint_on UNUSEDSIGNAL */
integer queries_sent = 0;
integer answers = 0;
reg     querying = 1'b0;

`POINT_TOP `POINT_PARAMS dut (
    .s_axis_aclk(s_clk), .s_axis_aresetn(s_aresetn),
    .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep), .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready), .s_axis_tlast(s_axis_tlast), .s_axis_tuser(s_axis_tuser),
    .s_axis_time_ns(s_axis_time_ns),
    .aclk(m_clk), .aresetn(m_aresetn),
    .s_axil_awaddr(awaddr), .s_axil_awprot(3'b000), .s_axil_awvalid(awvalid), .s_axil_awready(awready),
    .s_axil_wdata(wdata), .s_axil_wstrb(4'hf), .s_axil_wvalid(wvalid), .s_axil_wready(wready),
    .s_axil_bresp(bresp), .s_axil_bvalid(bvalid), .s_axil_bready(bready),
    .s_axil_araddr(araddr), .s_axil_arprot(3'b000), .s_axil_arvalid(arvalid), .s_axil_arready(arready),
    .s_axil_rdata(rdata), .s_axil_rresp(rresp), .s_axil_rvalid(rvalid), .s_axil_rready(rready),
    .m_axis_tdata(m_axis_tdata), .m_axis_tvalid(m_axis_tvalid), .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast), `POINT_QUERY_PORTS .irq(irq)
);

integer m_clocks = 0;
reg     in_frame = 1'b0;            // the last beat sent was not a frame's last
integer ro_beats = 0;               // read-out beats taken (stream or window)
integer ro_epochs = 0;             // epochs whose last beat was taken
integer sent = 0;
`include "netmeas_tb_rnd.vh"

task fail(input [8*64-1:0] what);
    begin
        $display("FAIL %0s (beats sent %0d of %0d, core clocks %0d, at %0t ps)", what, sent, beats, m_clocks, $time);
        $fatal(1);
    end
endtask

always @(posedge m_clk) m_clocks = m_clocks + 1;

// ------------------------------------------------------------ AXI4-Lite master
// One access at a time; the master drives on falling edges.
task axil_write_resp(input [31:0] a, input [31:0] d, output [1:0] resp);
    integer guard;
    begin
        @(negedge m_clk);
        awaddr = a[ADDR_WIDTH-1:0];
        awvalid = 1'b1;
        wdata = d;
        wvalid = 1'b1;
        bready = 1'b1;
        guard = 0;
        while (awvalid || wvalid) begin
            @(negedge m_clk);
            // (a transfer happened at the rising edge between: valid and ready were both high before it)
            guard = guard + 1;
            if (guard > 1000) fail("a write is not taken");
        end
        while (!bvalid) begin
            @(negedge m_clk);
            guard = guard + 1;
            if (guard > 1000) fail("no write response");
        end
        resp = bresp;
        @(negedge m_clk);
        bready = 1'b0;
    end
endtask

task axil_write(input [31:0] a, input [31:0] d);
    reg [1:0] resp;
    begin
        axil_write_resp(a, d, resp);
        if (resp != 2'b00) fail("a write answered with an error");
    end
endtask

// The rising-edge half of the write handshakes: valid drops after its transfer.
always @(posedge m_clk) begin
    if (awvalid && awready) awvalid <= 1'b0;
    if (wvalid && wready) wvalid <= 1'b0;
    if (arvalid && arready) arvalid <= 1'b0;
end

task axil_read_resp(input [31:0] a, output [31:0] d, output [1:0] resp);
    integer guard;
    begin
        @(negedge m_clk);
        araddr = a[ADDR_WIDTH-1:0];
        arvalid = 1'b1;
        rready = 1'b1;
        guard = 0;
        while (!(rvalid && rready)) begin
            @(negedge m_clk);
            guard = guard + 1;
            if (guard > 1000) fail("no read response");
        end
        resp = rresp;
        d = rdata;
        @(negedge m_clk);
        rready = 1'b0;
    end
endtask

task axil_read(input [31:0] a, output [31:0] d);
    reg [1:0] resp;
    begin
        axil_read_resp(a, d, resp);
        if (resp != 2'b00) fail("a read answered with an error");
    end
endtask

// ------------------------------------------------------------ read-out window
function [31:0] win_addr(input integer slot, input integer word);
    begin
        win_addr = WINDOW_BASE + ((slot % 65536) << (WINDOW_STRIDE_BITS + 2)) + 4 * word;
    end
endfunction

// Reads the epoch through the window: each slot's info word (polled until
// the beat is there), its TDATA words, the first again; printed as RO lines.
task window_readout;
    integer slot, k, polls;
    reg [31:0] info, v;
    reg [1:0] resp;
    reg [32*WINDOW_WORDS-1:0] beat;
    reg last;
    begin
        slot = 0;
        last = 1'b0;
        polls = 0;
        while (!last) begin
            axil_read_resp(win_addr(slot, WINDOW_WORDS), info, resp);
            if (resp != 2'b00 || !info[31]) begin
                polls = polls + 1;
                if (polls > 100000) fail("the window never showed the next beat");
            end else begin
                if (info[15:0] != slot[15:0]) fail("the window's beat index is not the slot's");
                for (k = 0; k < WINDOW_WORDS; k = k + 1) begin
                    axil_read(win_addr(slot, k), v);
                    beat[32 * k +: 32] = v;
                end
                // Taken by its last word: read from the copy, the same word.
                axil_read(win_addr(slot, 0), v);
                if (v != beat[31:0]) fail("a window word read twice differs");
                axil_read_resp(win_addr(slot + 3, 0), v, resp);
                if (resp != 2'b10) fail("a slot not presented answered without SLVERR");
                last = info[30];
                $display("RO %h %0d", beat[TDATA_BITS-1:0], last);
                ro_beats = ro_beats + 1;
                slot = slot + 1;
            end
        end
        axil_write_resp(win_addr(0, 0), 32'd1, resp);
        if (resp != 2'b10) fail("a write to the window answered without SLVERR");
        ro_epochs = ro_epochs + 1;
    end
endtask

// ------------------------------------------------------------ read-out
always @(posedge m_clk) begin
    if (m_aresetn) begin
        if (m_axis_tvalid && m_axis_tready) begin
            $display("RO %h %0d", m_axis_tdata, m_axis_tlast);
            ro_beats = ro_beats + 1;
            if (m_axis_tlast) ro_epochs = ro_epochs + 1;
        end
        m_axis_tready <= window_mode == 0 && ($unsigned(rnd(0)) % 100) < ready_pct;
    end else begin
        m_axis_tready <= 1'b0;
    end
end

// ------------------------------------------------------------ resets
// One side's reset for reset_clocks of its clocks (an edge, then #1).
task reset_mac;
    begin
        @(posedge s_clk) #1 s_aresetn = 1'b0;
        repeat (reset_clocks) @(posedge s_clk);
        #1 s_aresetn = 1'b1;
    end
endtask

task reset_core;
    begin
        @(posedge m_clk) #1 m_aresetn = 1'b0;
        repeat (reset_clocks) @(posedge m_clk);
        #1 m_aresetn = 1'b1;
    end
endtask

// Polls POINT_STATUS until READY; prints the beat line reached.
task wait_ready;
    integer polls;
    reg [31:0] v;
    begin
        polls = 0;
        axil_read(POINT_STATUS_ADDR, v);
        while (!v[0]) begin
            polls = polls + 1;
            if (polls > 100000) fail("the point never showed READY after a reset");
            axil_read(POINT_STATUS_ADDR, v);
        end
        $display("READY %0d", sent);
    end
endtask

// A reset of the core's side while the frames go on: the MAC does not wait.
// (The bus is the poll's until it is over.)
reg core_reset_go = 1'b0;
reg core_reset_busy = 1'b0;
always @(posedge core_reset_go) begin
    core_reset_busy = 1'b1;
    reset_core;
    wait_ready;
    core_reset_busy = 1'b0;
end

// A reset in the read-out, after its first beat.
always @(posedge m_clk) begin
    if (reset_readout != 0 && !readout_reset_done && ro_beats > 0) begin
        readout_reset_done = 1'b1;
        $display("RESET -1");
        fork
            if (reset_side == 1 || reset_side == 3) reset_mac;
            if (reset_side == 2 || reset_side == 3) reset_core;
        join
    end
end

// ------------------------------------------------------------ queries and answers
// While querying: a query offered with READY_PCT % chance a clock (held
// until taken), the answers taken with the same chance.
always @(posedge m_clk) begin
    if (m_aresetn && QUERY_BITS > 0) begin
        if (s_axis_query_tvalid && s_axis_query_tready) queries_sent = queries_sent + 1;
        if (m_axis_answer_tvalid && m_axis_answer_tready) begin
            $display("ANS %h", m_axis_answer_tdata);
            answers = answers + 1;
        end
        if (!s_axis_query_tvalid || s_axis_query_tready) begin
            if (querying && queries_sent < n_queries && ($unsigned(rnd(0)) % 100) < ready_pct) begin
                s_axis_query_tvalid <= 1'b1;
                s_axis_query_tdata <= query_mem[queries_sent];
            end else begin
                s_axis_query_tvalid <= 1'b0;
            end
        end
        m_axis_answer_tready <= ($unsigned(rnd(0)) % 100) < ready_pct;
    end
end

// ------------------------------------------------------------ setup
task run_setup;
    integer k, polls;
    reg [95:0] op;
    reg [31:0] v;
    begin
        for (k = 0; k < n_setup; k = k + 1) begin
            op = setup_mem[k];
            if (op[95:64] == 32'd0) begin
                axil_write(op[63:32], op[31:0]);
            end else begin
                polls = 0;
                axil_read(op[63:32], v);
                while (v != op[31:0]) begin
                    polls = polls + 1;
                    if (polls > 100000) fail("a setup poll never read its value");
                    axil_read(op[63:32], v);
                end
            end
        end
    end
endtask

// ------------------------------------------------------------ the run
integer i;
reg [LINE_BITS-1:0] l;
reg [31:0] value;
initial begin
    if ($value$plusargs("BEATS=%d", beats)) ;
    if ($value$plusargs("S_HALF_PS=%d", s_half_ps)) ;
    if ($value$plusargs("M_HALF_PS=%d", m_half_ps)) ;
    if ($value$plusargs("WAIT_CLOCKS=%d", wait_clocks)) ;
    if ($value$plusargs("READY_PCT=%d", ready_pct)) ;
    if ($value$plusargs("SEED=%d", seed)) ;
    if ($value$plusargs("END_NS=%d", end_ns)) ;
    if ($value$plusargs("WINDOW=%d", window_mode)) ;
    if ($value$plusargs("SETUP=%d", n_setup)) ;
    if ($value$plusargs("QUERIES=%d", n_queries)) ;
    if ($value$plusargs("RESET_SIDE=%d", reset_side)) ;
    if ($value$plusargs("RESET_BEAT=%d", reset_beat)) ;
    if ($value$plusargs("RESET_CLOCKS=%d", reset_clocks)) ;
    if ($value$plusargs("RESET_READOUT=%d", reset_readout)) ;
    if (reset_side < 0 || reset_side > 3 || reset_clocks < 1 || (reset_readout != 0 && FLIP_ADDR == 0))
        fail("unusable plusargs");
    if (beats < 1 || beats > MAX_BEATS || ready_pct < 1 || ready_pct > 100 || seed == 0) fail("unusable plusargs");
    if (n_setup < 0 || n_setup > MAX_SETUP || n_queries < 0 || n_queries > MAX_QUERIES) fail("unusable plusargs");
    if (window_mode != 0 && FLIP_ADDR == 0) fail("+WINDOW needs a point with an EPOCH_FLIP");
    if (n_queries > 0 && (QUERY_BITS == 0 || FLIP_ADDR == 0)) fail("+QUERIES needs a point with a query port");
    prng = seed;
    $readmemh("beats.hex", line_mem, 0, beats - 1);
    if (n_setup > 0) $readmemh("setup.hex", setup_mem, 0, n_setup - 1);
    if (n_queries > 0) $readmemh("queries.hex", query_mem, 0, n_queries - 1);
    fork
        forever #(s_half_ps) s_clk = !s_clk;
        begin
            #(777);
            forever #(m_half_ps) m_clk = !m_clk;
        end
        begin
            repeat (8) @(posedge s_clk);
            repeat (8) @(posedge m_clk);
            @(posedge s_clk) #1 s_aresetn = 1'b1;
            @(posedge m_clk) #1 m_aresetn = 1'b1;
            repeat (wait_clocks) @(posedge m_clk);
            run_setup;
            // The frames: one line per MAC clock.
            for (i = 0; i < beats; i = i + 1) begin
                @(posedge s_clk) #1;
                if (i == reset_beat && reset_readout == 0 && reset_side != 0) begin
                    $display("RESET %0d", i);
                    s_axis_tvalid = 1'b0;
                    if (reset_side >= 2) begin
                        core_reset_busy = 1'b1;
                        core_reset_go = 1'b1;
                    end
                    if (reset_side != 2) begin
                        // The MAC in reset abandons its frame: on from the next one.
                        reset_mac;
                        while (i < beats && in_frame) begin
                            l = line_mem[i];
                            if (l[LINE_BITS-65] && l[LINE_BITS-66]) in_frame = 1'b0;
                            i = i + 1;
                        end
                        $display("RESUMED %0d", i);
                        if (i >= beats) fail("a reset in the last frame: nothing left to send");
                        @(posedge s_clk) #1;
                    end
                end
                l = line_mem[i];
                s_axis_time_ns = l[LINE_BITS-1 -: 64];
                s_axis_tvalid = l[LINE_BITS-65];
                s_axis_tlast = l[LINE_BITS-66];
                s_axis_tuser = l[LINE_BITS-67 -: TUSER_BITS];
                s_axis_tkeep = l[DATA_BITS +: KEEP_BITS];
                s_axis_tdata = l[DATA_BITS-1:0];
                if (s_axis_tvalid && !s_axis_tready) fail("the point back-pressured the MAC");
                if (s_axis_tvalid) in_frame = !s_axis_tlast;
                sent = i + 1;
            end
            @(posedge s_clk) #1 s_axis_tvalid = 1'b0;
            if (end_ns != 0) s_axis_time_ns = end_ns;
            while (core_reset_busy) @(posedge m_clk);
            // Drain: the parser's pipeline, the FIFO, the core's.
            repeat (400) @(posedge m_clk);
            if (FLIP_ADDR != 0) begin
                // (a set-up may have read out epochs before)
                value = ro_epochs;
                axil_write(FLIP_ADDR, 32'd1);
                if (window_mode != 0) window_readout;
                i = 0;
                while (ro_epochs == value && !(readout_reset_done && reset_side >= 2)) begin
                    @(posedge m_clk);
                    i = i + 1;
                    if (i > 10000000) fail("the read-out never ended");
                end
                if (readout_reset_done) begin
                    // Both sides out of reset again.
                    repeat (reset_clocks + 100) @(posedge m_clk);
                    wait_ready;
                end
                if (n_queries > 0) begin
                    querying = 1'b1;
                    i = 0;
                    while (answers < n_queries) begin
                        @(posedge m_clk);
                        i = i + 1;
                        if (i > 100 * n_queries + 100000) fail("an answer never came");
                    end
                    querying = 1'b0;
                    repeat (100) @(posedge m_clk);
                    if (answers != n_queries || queries_sent != n_queries) fail("answers differ from the queries");
                end
            end else begin
                // No flip: epochs end on the packets' times; wait for the
                // read-out to rest for 2000 clocks.
                i = 0;
                while (i < 2000) begin
                    @(posedge m_clk);
                    i = m_axis_tvalid ? 0 : i + 1;
                end
            end
            repeat (50) @(posedge m_clk);
            for (i = 0; i < N_STATUS; i = i + 1) begin
                axil_read(STATUS_BASE + 4 * i, value);
                $display("REG %0d %0d", i, value);
            end
            axil_read(FLAGS_ADDR, value);
            $display("FLAGS %0d", value);
            $display("PASS clocks=%0d ro_beats=%0d", m_clocks, ro_beats);
            $finish;
        end
    join
end

endmodule

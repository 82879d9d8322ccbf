// Self-checking testbench of netmeas_axil_slave in front of a generated
// register block (module netmeas_tb_regs, its map in netmeas_tb_map.vh;
// hdl/src/point/regs.rs), for Icarus Verilog, Verilator --binary --timing
// or any Verilog-2005 simulator.
//
// A bus master makes rounds (batches) of up to four writes and four reads
// at the same time (no read to a word a write of the round touches), each
// channel (AW, W, B, AR, R) issuing in order with its own random
// valid/ready timing, so that several requests of a channel are
// outstanding at once: W may come before AW, BREADY and RREADY may be high
// before the response or long after it. Addresses are mapped words, words
// of the whole space (mostly unmapped) and misaligned addresses; data and
// strobes are random. After each round the answers are checked against a
// model of the map:
//   - BRESP/RRESP: OKAY exactly for what the map allows, SLVERR otherwise;
//   - RDATA: configuration as written (strobes merged, bits beyond the
//     register's width dropped), commands 0, the core's read-only words as
//     the core showed them the clock after csr_re, the point's status
//     words, the sticky flags (set between rounds by flag_set, cleared by
//     writing 1);
//   - the core's register port: one csr_we per accepted write of a
//     configuration or command word, with the merged value, none for a
//     refused one; one csr_re per accepted read of a read-only core word;
//   - a response stays presented, unchanged, until taken; exactly one
//     response per request, none without.
// At the end, every configuration word is read back.
// Plusargs: +SEED, +ROUNDS, +VALID_PCT (chance per clock that a waiting
// channel raises VALID), +READY_PCT (chance per clock of BREADY/RREADY).
// Prints "PASS rounds=… writes=… reads=… errors=… clocks=…" or "FAIL …".

`timescale 1ns / 1ps

module netmeas_axil_slave_tb;

`include "netmeas_tb_map.vh"

localparam integer WORDS = 1 << (ADDR_WIDTH - 2);
localparam integer NS = N_STATUS > 0 ? N_STATUS : 1;

integer seed = 1;
integer rounds = 2000;
integer valid_pct = 60;
integer ready_pct = 60;

reg clk = 1'b0;
reg rst = 1'b1;
always #5 clk = !clk;

`include "netmeas_bus_tb_common.vh"

// --------------------------------------------------------------- the bus
reg  [ADDR_WIDTH-1:0] awaddr = 0;
reg                   awvalid = 1'b0;
wire                  awready;
reg  [31:0]           wdata = 0;
reg  [3:0]            wstrb = 0;
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

netmeas_axil_slave #(.ADDR_WIDTH(ADDR_WIDTH)) slave (
    .clk(clk), .rst(rst),
    .s_axil_awaddr(awaddr), .s_axil_awprot(3'b000), .s_axil_awvalid(awvalid), .s_axil_awready(awready),
    .s_axil_wdata(wdata), .s_axil_wstrb(wstrb), .s_axil_wvalid(wvalid), .s_axil_wready(wready),
    .s_axil_bresp(bresp), .s_axil_bvalid(bvalid), .s_axil_bready(bready),
    .s_axil_araddr(araddr), .s_axil_arprot(3'b000), .s_axil_arvalid(arvalid), .s_axil_arready(arready),
    .s_axil_rdata(rdata), .s_axil_rresp(rresp), .s_axil_rvalid(rvalid), .s_axil_rready(rready),
    .acc_valid(acc_valid), .acc_we(acc_we), .acc_addr(acc_addr), .acc_wdata(acc_wdata), .acc_wstrb(acc_wstrb),
    .rsp_valid(rsp_valid), .rsp_err(rsp_err), .rsp_rdata(rsp_rdata)
);


// ------------------------------------------------------------ the master
// A batch: up to MAX_BATCH writes and as many reads, each channel issuing
// its own in order with its own random gaps, so that several of each are
// outstanding at once; no read is to a word a write of the batch touches.
localparam integer MAX_BATCH = 4;
reg [31:0] bw_addr [0:MAX_BATCH-1];
reg [31:0] bw_data [0:MAX_BATCH-1];
reg [3:0]  bw_strb [0:MAX_BATCH-1];
reg [31:0] br_addr [0:MAX_BATCH-1];
reg [31:0] br_want [0:MAX_BATCH-1];
reg        br_ok [0:MAX_BATCH-1];
integer    nw;
integer    nr;


// The master works on falling edges: what it drives is sampled by the slave
// at the next rising edge, and what it reads of the slave's registered
// outputs is what that edge sees, whatever order a simulator runs
// processes in. valid && ready seen at a falling edge is a transfer at the
// next rising edge.
task automatic issue_aw;
    integer i;
    reg [31:0] junk;
    begin
        for (i = 0; i < nw; i = i + 1) begin
            @(negedge clk);
            while (!chance(valid_pct, rnd(1))) @(negedge clk);
            awvalid = 1'b1;
            awaddr = bw_addr[i][ADDR_WIDTH-1:0];
            while (!awready) @(negedge clk);
            @(negedge clk);
            awvalid = 1'b0;
            junk = rnd(1);
            awaddr = junk[ADDR_WIDTH-1:0];
        end
    end
endtask

task automatic issue_w;
    integer i;
    reg [31:0] junk;
    begin
        for (i = 0; i < nw; i = i + 1) begin
            @(negedge clk);
            while (!chance(valid_pct, rnd(2))) @(negedge clk);
            wvalid = 1'b1;
            wdata = bw_data[i];
            wstrb = bw_strb[i];
            while (!wready) @(negedge clk);
            @(negedge clk);
            wvalid = 1'b0;
            wdata = rnd(2);
            junk = rnd(2);
            wstrb = junk[3:0];
        end
    end
endtask

task automatic take_b;
    integer i;
    begin
        for (i = 0; i < nw; i = i + 1) begin
            @(negedge clk);
            bready = chance(ready_pct, rnd(3));
            while (!(bvalid && bready)) begin
                @(negedge clk);
                bready = chance(ready_pct, rnd(3));
            end
            if (bresp !== (write_ok(bw_addr[i]) ? 2'b00 : 2'b10)) begin
                $display("FAIL write of 0x%0h to 0x%0h: BRESP %0d", bw_data[i], bw_addr[i], bresp);
                fail("wrong write response");
            end
        end
        @(negedge clk);
        bready = chance(ready_pct / 2, rnd(3));   // (no side effect inside && or ||: simulators differ in short-circuiting)
    end
endtask

task automatic issue_ar;
    integer i;
    reg [31:0] junk;
    begin
        for (i = 0; i < nr; i = i + 1) begin
            @(negedge clk);
            while (!chance(valid_pct, rnd(4))) @(negedge clk);
            arvalid = 1'b1;
            araddr = br_addr[i][ADDR_WIDTH-1:0];
            while (!arready) @(negedge clk);
            @(negedge clk);
            arvalid = 1'b0;
            junk = rnd(4);
            araddr = junk[ADDR_WIDTH-1:0];
        end
    end
endtask

task automatic take_r;
    integer i;
    begin
        for (i = 0; i < nr; i = i + 1) begin
            @(negedge clk);
            rready = chance(ready_pct, rnd(5));
            while (!(rvalid && rready)) begin
                @(negedge clk);
                rready = chance(ready_pct, rnd(5));
            end
            check_read(br_addr[i], rdata, rresp == 2'b00, rresp == 2'b00 || rresp == 2'b10, br_want[i], br_ok[i]);
        end
        @(negedge clk);
        rready = chance(ready_pct / 2, rnd(5));
    end
endtask

// Runs the batch set up in bw_* and br_*, then applies its writes to the model.
task batch;
    integer i;
    begin
        for (i = 0; i < nr; i = i + 1) begin
            br_want[i] = read_expect(br_addr[i]);
            br_ok[i] = read_ok(br_addr[i]);
            read_made(br_addr[i]);
        end
        fork
            issue_aw();
            issue_w();
            take_b();
            issue_ar();
            take_r();
        join
        for (i = 0; i < nw; i = i + 1) model_write(bw_addr[i], bw_data[i], bw_strb[i]);
        round_end();
    end
endtask

// Whether `a` is a word written in the batch.
function written(input [31:0] a);
    integer i;
    begin
        written = 1'b0;
        for (i = 0; i < nw; i = i + 1) if (bw_addr[i][ADDR_WIDTH-1:2] == a[ADDR_WIDTH-1:2]) written = 1'b1;
    end
endfunction

// ------------------------------------------------- protocol monitor
reg        b_held = 1'b0;
reg [1:0]  b_held_resp = 2'b00;
reg        r_held = 1'b0;
reg [1:0]  r_held_resp = 2'b00;
reg [31:0] r_held_data = 32'd0;
integer    aw_taken = 0;
integer    ar_taken = 0;
integer    b_given = 0;
integer    r_given = 0;
integer    stuck = 0;             // clocks since the last transfer on any channel
// At each rising edge (a block of its own, so both simulators give it the
// values before the edge): what the slave shows against what it showed at
// the last edge, and the transfers of this edge.
always @(posedge clk) begin
    if (!rst) begin
        if (b_held && (!bvalid || bresp !== b_held_resp)) fail("a write response was withdrawn or changed");
        if (r_held && (!rvalid || rresp !== r_held_resp || rdata !== r_held_data)) fail("a read response was withdrawn or changed");
        if (awvalid && awready) aw_taken = aw_taken + 1;
        if (arvalid && arready) ar_taken = ar_taken + 1;
        if (bvalid && bready) b_given = b_given + 1;
        if (rvalid && rready) r_given = r_given + 1;
        if (b_given > aw_taken) fail("a write response without a write");
        if (r_given > ar_taken) fail("a read response without a read");
        if ((awvalid && awready) || (wvalid && wready) || (arvalid && arready) || (bvalid && bready)
            || (rvalid && rready)) stuck = 0;
        else stuck = stuck + 1;
        if (stuck > 5000) fail("no transfer on any channel in 5000 clocks");
    end
    b_held = bvalid && !bready;
    b_held_resp = bresp;
    r_held = rvalid && !rready;
    r_held_resp = rresp;
    r_held_data = rdata;
end

// ---------------------------------------------------------------- rounds
integer n;
integer i;
reg [31:0] a;

initial begin
    if ($value$plusargs("SEED=%d", seed)) ;
    if ($value$plusargs("ROUNDS=%d", rounds)) ;
    if ($value$plusargs("VALID_PCT=%d", valid_pct)) ;
    if ($value$plusargs("READY_PCT=%d", ready_pct)) ;
    if (rounds < 1 || valid_pct < 1 || valid_pct > 100 || ready_pct < 1 || ready_pct > 100) fail("unusable plusargs");
    model_reset();
    repeat (4) @(negedge clk);
    rst = 1'b0;
    for (n = 0; n < rounds; n = n + 1) begin
        nw = $unsigned(rnd(0)) % (MAX_BATCH + 1);
        nr = $unsigned(rnd(0)) % (MAX_BATCH + 1);
        if (nw + nr == 0) nr = 1;
        for (i = 0; i < nw; i = i + 1) begin
            pick_addr(a);
            bw_addr[i] = a;
            bw_data[i] = rnd(0);
            a = rnd(0);
            bw_strb[i] = chance(70, rnd(0)) ? 4'hf : a[3:0];
        end
        for (i = 0; i < nr; i = i + 1) begin
            pick_addr(a);
            while (written(a)) pick_addr(a);
            br_addr[i] = a;
        end
        batch();
    end
    // Every word of the map read back, MAX_BATCH at a time.
    nw = 0;
    for (n = 0; n < MAP_COUNT; n = n + nr) begin
        nr = MAP_COUNT - n < MAX_BATCH ? MAP_COUNT - n : MAX_BATCH;
        for (i = 0; i < nr; i = i + 1) br_addr[i] = map_addr(n + i);
        batch();
    end
    repeat (4) @(negedge clk);
    if (bvalid || rvalid) fail("a response without a request");
    if (b_given != aw_taken || r_given != ar_taken) fail("requests and responses differ in number");
    check_config_words;
    $display("PASS rounds=%0d writes=%0d reads=%0d errors=%0d clocks=%0d", rounds, writes, reads, errors, clocks);
    $finish;
end

endmodule

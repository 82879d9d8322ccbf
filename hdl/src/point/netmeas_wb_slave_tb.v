// Self-checking testbench of netmeas_wb_slave in front of a generated
// register block (module netmeas_tb_regs, its map in netmeas_tb_map.vh;
// hdl/src/point/regs.rs), for Icarus Verilog, Verilator --binary --timing
// or any Verilog-2005 simulator.
//
// A Wishbone B4 pipelined master makes bus cycles of 1 to 8 accesses, reads
// and writes mixed, STB raised on random clocks (STALL honoured), and now
// and then abandons a cycle by dropping CYC before its answers (and raises
// it again one clock later, for a cycle in which no answer may show). Each access
// is checked in order against a model of the map updated in the order the
// accesses were made:
//   - ACK exactly for what the map allows, ERR otherwise, one answer per
//     access, none while CYC is low;
//   - DAT_O as in netmeas_axil_slave_tb (configuration as written with
//     SEL merged, commands 0, the core's read-only words, status, flags);
//   - the core's register port: one csr_we per accepted write of a
//     configuration or command word, none for a refused one, and one
//     csr_re per read of a read-only core word, abandoned or not.
// At the end, every word of the map is read back.
// Plusargs: +SEED, +ROUNDS (bus cycles), +VALID_PCT (chance per clock of
// STB within a cycle). Prints "PASS rounds=… writes=… reads=… errors=…
// clocks=…" or "FAIL …".

`timescale 1ns / 1ps

module netmeas_wb_slave_tb;

`include "netmeas_tb_map.vh"

localparam integer NS = N_STATUS > 0 ? N_STATUS : 1;

integer seed = 1;
integer rounds = 1000;
integer valid_pct = 60;

reg clk = 1'b0;
reg rst = 1'b1;
always #5 clk = !clk;

`include "netmeas_bus_tb_common.vh"

// --------------------------------------------------------------- the bus
reg  [ADDR_WIDTH-3:0] wb_adr = 0;
reg  [31:0]           wb_dat_w = 0;
wire [31:0]           wb_dat_r;
reg  [3:0]            wb_sel = 0;
reg                   wb_we = 1'b0;
reg                   wb_stb = 1'b0;
reg                   wb_cyc = 1'b0;
wire                  wb_stall;
wire                  wb_ack;
wire                  wb_err;
wire [31:0]           wb_byte_addr = {{(32-ADDR_WIDTH){1'b0}}, wb_adr, 2'b00};

netmeas_wb_slave #(.ADDR_WIDTH(ADDR_WIDTH)) slave (
    .clk(clk), .rst(rst),
    .wb_adr_i(wb_adr), .wb_dat_i(wb_dat_w), .wb_dat_o(wb_dat_r), .wb_sel_i(wb_sel), .wb_we_i(wb_we),
    .wb_stb_i(wb_stb), .wb_cyc_i(wb_cyc), .wb_stall_o(wb_stall), .wb_ack_o(wb_ack), .wb_err_o(wb_err),
    .acc_valid(acc_valid), .acc_we(acc_we), .acc_addr(acc_addr), .acc_wdata(acc_wdata), .acc_wstrb(acc_wstrb),
    .rsp_valid(rsp_valid), .rsp_err(rsp_err), .rsp_rdata(rsp_rdata)
);


// ------------------------------------------- accesses awaiting answers
reg        q_we [0:15];
reg [31:0] q_addr [0:15];
reg [31:0] q_want [0:15];
reg        q_ok [0:15];
integer    issued;
integer    answered;

// The answer shown before this edge, checked against the oldest access.
task take_answer;
    integer i;
    begin
        if (wb_ack && wb_err) fail("ACK and ERR together");
        if ((wb_ack || wb_err) && !wb_cyc) fail("an answer while CYC is low");
        if (wb_ack || wb_err) begin
            if (answered >= issued) fail("an answer without an access");
            i = answered % 16;
            if (q_we[i]) begin
                if (wb_ack !== q_ok[i]) begin
                    $display("FAIL write to 0x%0h answered %0s", q_addr[i], wb_ack ? "ACK" : "ERR");
                    fail("wrong write answer");
                end
            end else begin
                check_read(q_addr[i], wb_dat_r, wb_ack, 1'b1, q_want[i], q_ok[i]);
            end
            answered = answered + 1;
        end
    end
endtask

reg [31:0] a;
reg [31:0] d;
reg [3:0]  s;
reg        w;
reg [31:0] junk;
reg        go;
integer    len;
integer    abandon;
integer    n;
integer    t;
integer    readback;

// One bus cycle of `len` accesses (the map's words in order when
// `readback`), abandoned after its access `abandon` (-1: not). The master
// works on falling edges: what it drives is sampled at the next rising
// edge, what it reads is what the slave shows in that clock.
task bus_cycle;
    begin
        issued = 0;
        answered = 0;
        t = 0;
        @(negedge clk);
        wb_cyc = 1'b1;
        wb_stb = 1'b0;
        while (answered < len && !(abandon >= 0 && issued > abandon)) begin
            @(negedge clk);
            // The answer shown in this clock, then the access of the next edge.
            take_answer();
            // Drawn first: a call inside && or || may or may not be made.
            go = chance(valid_pct, rnd(0));
            if (wb_stb && wb_stall) begin
                // held: the same access again
            end else if (issued < len && (readback != 0 || go)) begin
                if (readback != 0) begin
                    a = map_addr(issued);
                    w = 1'b0;
                end else begin
                    pick_addr(a);
                    w = chance(50, rnd(0));
                end
                d = rnd(0);
                junk = rnd(0);
                s = chance(70, rnd(0)) ? 4'hf : junk[3:0];
                wb_stb = 1'b1;
                wb_we = w;
                wb_adr = a[ADDR_WIDTH-1:2];
                wb_dat_w = d;
                wb_sel = s;
            end else begin
                junk = rnd(0);
                wb_stb = 1'b0;
                wb_we = junk[0];
                wb_adr = junk[ADDR_WIDTH-1:2];
                wb_dat_w = rnd(0);
                wb_sel = junk[7:4];
            end
            #1;
            if (wb_stb && !wb_stall) begin
                // Taken at the coming rising edge: its effect, in the order made.
                q_we[issued % 16] = wb_we;
                q_addr[issued % 16] = wb_byte_addr;
                if (wb_we) begin
                    q_ok[issued % 16] = write_ok(wb_byte_addr);
                    model_write(wb_byte_addr, wb_dat_w, wb_sel);
                end else begin
                    q_ok[issued % 16] = read_ok(wb_byte_addr);
                    q_want[issued % 16] = read_expect(wb_byte_addr);
                    read_made(wb_byte_addr);
                end
                issued = issued + 1;
            end
            t = t + 1;
            if (t > 64 * len + 64) fail("a bus cycle did not end");
        end
        // The last answer taken, then CYC dropped; an abandoned cycle drops
        // CYC in the clock its last access is answered: no answer may show.
        @(negedge clk);
        if (abandon >= 0) begin
            wb_cyc = 1'b0;
            wb_stb = 1'b0;
            #1;
        end
        take_answer();
        wb_cyc = 1'b0;
        wb_stb = 1'b0;
        if (abandon >= 0) begin
            // One clock with CYC low, then a cycle without accesses: no
            // answer of the abandoned accesses may show in it.
            @(negedge clk);
            take_answer();
            issued = 0;
            answered = 0;
            wb_cyc = 1'b1;
            #1;
            take_answer();
            @(negedge clk);
            take_answer();
            @(negedge clk);
            take_answer();
            wb_cyc = 1'b0;
        end
        // Two clocks with CYC low: no answer may show.
        @(negedge clk);
        take_answer();
        @(negedge clk);
        take_answer();
    end
endtask

initial begin
    if ($value$plusargs("SEED=%d", seed)) ;
    if ($value$plusargs("ROUNDS=%d", rounds)) ;
    if ($value$plusargs("VALID_PCT=%d", valid_pct)) ;
    if (rounds < 1 || valid_pct < 1 || valid_pct > 100) fail("unusable plusargs");
    model_reset();
    repeat (4) @(negedge clk);
    rst = 1'b0;
    readback = 0;
    for (n = 0; n < rounds; n = n + 1) begin
        len = 1 + $unsigned(rnd(0)) % 8;
        // Both drawn first: a call inside ?: may or may not be made.
        go = chance(10, rnd(0));
        t = $unsigned(rnd(0)) % len;
        abandon = go ? t : -1;
        bus_cycle();
        round_end();
    end
    readback = 1;
    len = MAP_COUNT;
    abandon = -1;
    bus_cycle();
    round_end();
    check_config_words;
    $display("PASS rounds=%0d writes=%0d reads=%0d errors=%0d clocks=%0d", rounds, writes, reads, errors, clocks);
    $finish;
end

endmodule

// Self-checking testbench of netmeas_point_query. It runs in Icarus
// Verilog, in Verilator (--binary --timing) or in any Verilog-2005
// simulator.
//
// A model core takes queries with random q_ready and answers each one
// LATENCY clocks later, for one clock, with a function of the query; the
// query source offers queries 0, 1, … with random TVALID, and the answer
// sink takes answers with random TREADY, stalling now and then for STALL
// clocks so that the answers owed fill the FIFO. Every answer must come, in
// order, equal to its query's function, and none may be lost: the run ends
// with every query answered and read. Printed: PASS queries=… clocks=…
// held=… (clocks a query was held back only because the FIFO was owed
// full) or FAIL … and $fatal.
// Plusargs: +QUERIES, +READY_PCT, +VALID_PCT, +TAKE_PCT, +STALL, +SEED.

`timescale 1ns / 1ps

module netmeas_point_query_tb;

parameter integer LATENCY = 22;          // the SVBF core's clocks from a query to its answer
parameter integer DEPTH_BITS = 5;
localparam integer QB = 80;
localparam integer AB = 152;

integer n_queries = 20000;
integer ready_pct = 80;                  // the core's q_ready
integer valid_pct = 90;                  // the source's TVALID
integer take_pct = 70;                   // the sink's TREADY outside a stall
integer stall = 300;                     // clocks of a stall (one in 400 clocks starts one)
integer seed = 1;

reg clk = 1'b0;
reg rst = 1'b1;

reg  [QB-1:0] s_tdata = 0;
reg           s_tvalid = 1'b0;
wire          s_tready;
wire [QB-1:0] q_data;
wire          q_valid;
reg           q_ready = 1'b0;
reg  [AB-1:0] r_data = 0;
reg           r_valid = 1'b0;
wire [AB-1:0] m_tdata;
wire          m_tvalid;
reg           m_tready = 1'b0;

netmeas_point_query #(.QUERY_BITS(QB), .ANSWER_BITS(AB), .DEPTH_BITS(DEPTH_BITS)) dut (
    .clk(clk), .rst(rst),
    .s_axis_query_tdata(s_tdata), .s_axis_query_tvalid(s_tvalid), .s_axis_query_tready(s_tready),
    .core_q_data(q_data), .core_q_valid(q_valid), .core_q_ready(q_ready),
    .core_r_data(r_data), .core_r_valid(r_valid),
    .m_axis_answer_tdata(m_tdata), .m_axis_answer_tvalid(m_tvalid), .m_axis_answer_tready(m_tready)
);

`include "netmeas_tb_rnd.vh"

// Query i: {i[15:0] as the tag, a 64-bit pattern of i}.
function [QB-1:0] query_of(input integer i);
    reg [63:0] k;
    begin
        k = {i[31:0] ^ 32'h9e3779b9, i[31:0] * 32'h85ebca6b};
        query_of = {i[15:0], k};
    end
endfunction

// The model core's answer to a query.
function [AB-1:0] answer_of(input [QB-1:0] q);
    begin
        answer_of = {~q[71:0], q};
    end
endfunction

integer clocks = 0;
integer sent = 0;              // queries taken
integer got = 0;               // answers read
integer held = 0;
integer stall_left = 0;
reg [AB-1:0] pipe [0:LATENCY-1];
reg [LATENCY-1:0] pipe_valid = 0;
integer k;
integer waited;

task fail(input [8*64-1:0] what);
    begin
        $display("FAIL %0s (queries %0d, answers %0d, clock %0d)", what, sent, got, clocks);
        $fatal(1);
    end
endtask

always #2 clk = !clk;

always @(posedge clk) begin
    if (!rst) begin
        clocks = clocks + 1;
        // The query source.
        if (s_tvalid && s_tready) begin
            if (q_data != query_of(sent)) fail("the core's query is not the stream's");
            sent = sent + 1;
        end
        if (s_tvalid && !s_tready && q_ready) held = held + 1;
        if (s_tvalid && q_valid != s_tready && q_ready) fail("q_valid and TREADY disagree");
        if (!s_tvalid || s_tready) begin
            s_tvalid <= sent < n_queries && ($unsigned(rnd(0)) % 100) < valid_pct;
            s_tdata <= query_of(sent);
        end
        // The model core: an answer LATENCY clocks after each query it takes.
        r_valid <= pipe_valid[LATENCY-1];
        r_data <= pipe[LATENCY-1];
        for (k = LATENCY - 1; k > 0; k = k - 1) begin
            pipe[k] <= pipe[k-1];
            pipe_valid[k] <= pipe_valid[k-1];
        end
        pipe[0] <= answer_of(q_data);
        pipe_valid[0] <= q_valid && q_ready;
        q_ready <= ($unsigned(rnd(0)) % 100) < ready_pct;
        // The answer sink.
        if (m_tvalid && m_tready) begin
            if (m_tdata != answer_of(query_of(got))) fail("an answer out of order or wrong");
            got = got + 1;
        end
        if (stall_left > 0) stall_left = stall_left - 1;
        else if ($unsigned(rnd(0)) % 400 == 0) stall_left = stall;
        m_tready <= stall_left == 0 && ($unsigned(rnd(0)) % 100) < take_pct;
    end
end

initial begin
    if ($value$plusargs("QUERIES=%d", n_queries)) ;
    if ($value$plusargs("READY_PCT=%d", ready_pct)) ;
    if ($value$plusargs("VALID_PCT=%d", valid_pct)) ;
    if ($value$plusargs("TAKE_PCT=%d", take_pct)) ;
    if ($value$plusargs("STALL=%d", stall)) ;
    if ($value$plusargs("SEED=%d", seed)) ;
    if (n_queries < 1 || ready_pct < 1 || valid_pct < 1 || take_pct < 1 || seed == 0) fail("unusable plusargs");
    prng = seed;
    repeat (4) @(negedge clk);
    rst = 1'b0;
    waited = 0;
    while (got < n_queries) begin
        @(posedge clk);
        waited = waited + 1;
        if (waited > 1000 * n_queries) fail("the answers stopped");
    end
    repeat (4 * LATENCY) @(posedge clk);
    @(negedge clk);     // (every process of the last rising edge has run)
    if (got != n_queries || sent != n_queries || m_tvalid) fail("answers differ from the queries");
    $display("PASS queries=%0d clocks=%0d held=%0d", sent, clocks, held);
    $finish;
end

endmodule

// Self-checking testbench of netmeas_point_counters (runs in Icarus
// Verilog, in Verilator with --binary --timing, or in any Verilog-2005
// simulator): two free-running clocks of unrelated periods, random events
// on every write clock, both resets asserted together at the start (the
// events begin 64 clocks of the slower domain after they end, once the
// reset bridge's handshakes are over). A
// model counts the events in the write domain (saturating at 2^W - 1).
// Checked at every read clock, for every counter:
//   - m_count never goes back, and never shows more than the model;
//   - it shows at least what the model had two write clocks and four read
//     clocks earlier (the latency bound of the datasheet: two write clocks,
//     then three read clocks, plus the part of one an event waits for the
//     first edge);
//   - m_changed is high exactly in the clocks m_count moves;
// and, once the events stop, that every m_count equals its model.
// The counters' number and width are parameters (N, W), the run plusargs
// (+S_HALF_PS, +M_HALF_PS, +M_PHASE_PS, +EVENT_PCT, +CLOCKS, +SEED), so
// that one build serves many runs. The random draws are a xorshift32 of the
// testbench's own, the same in every simulator. Prints one line
// "PASS events=… s_clocks=… m_clocks=…", or "FAIL …" and stops with $fatal.

`timescale 1ps / 1ps

module netmeas_point_counters_tb;

parameter integer N = 4;
parameter integer W = 32;

integer s_half_ps = 3200;            // write clock: 156.25 MHz
integer m_half_ps = 2500;            // read clock: 200 MHz
integer m_phase_ps = 1234;           // read clock's first rising edge after the write clock's
integer event_pct = 50;              // chance of an event per counter and write clock (counter i: pct·(i+1)/N)
integer clocks = 20000;              // write clocks with events
integer seed = 1;

reg s_clk = 1'b0;
reg m_clk = 1'b0;
reg s_rst = 1'b1;
reg m_rst = 1'b1;
reg  [N-1:0]   s_event = {N{1'b0}};
wire [N*W-1:0] m_count;
wire [N-1:0]   m_changed;

netmeas_point_counters #(.N(N), .W(W)) dut (
    .s_clk(s_clk), .s_rst(s_rst), .s_event(s_event),
    .m_clk(m_clk), .m_rst(m_rst), .m_count(m_count), .m_changed(m_changed)
);

localparam [W-1:0] MAX = {W{1'b1}};

reg [W-1:0] model [0:N-1];           // events counted, saturating
reg [W-1:0] model_d1 [0:N-1];        // the model before the last write clock's events
reg [W-1:0] model_d2 [0:N-1];        // ... and before the two last write clocks' events
reg [W-1:0] past [0:3][0:N-1];       // model_d2 at each of the last four read clocks
reg [W-1:0] shown [0:N-1];           // m_count of the last read clock
integer events = 0;
integer s_clocks = 0;
integer m_clocks = 0;
integer stopped = 0;
integer k;
integer a;

`include "netmeas_tb_rnd.vh"
reg running = 1'b0;                  // the resets' handshakes are over: events and checks run

task fail(input [8*64-1:0] what);
    begin
        $display("FAIL %0s (events=%0d s_clocks=%0d m_clocks=%0d at %0t ps)", what, events, s_clocks, m_clocks, $time);
        $fatal(1);
    end
endtask

initial begin
    if ($value$plusargs("S_HALF_PS=%d", s_half_ps)) ;
    if ($value$plusargs("M_HALF_PS=%d", m_half_ps)) ;
    if ($value$plusargs("M_PHASE_PS=%d", m_phase_ps)) ;
    if ($value$plusargs("EVENT_PCT=%d", event_pct)) ;
    if ($value$plusargs("CLOCKS=%d", clocks)) ;
    if ($value$plusargs("SEED=%d", seed)) ;
    if (clocks < 1 || s_half_ps < 1 || m_half_ps < 1 || event_pct < 0 || event_pct > 100 || seed == 0)
        fail("unusable plusargs");
    prng = seed;
    for (k = 0; k < N; k = k + 1) begin
        model[k] = {W{1'b0}};
        model_d1[k] = {W{1'b0}};
        model_d2[k] = {W{1'b0}};
        shown[k] = {W{1'b0}};
        for (a = 0; a < 4; a = a + 1) past[a][k] = {W{1'b0}};
    end
    fork
        forever #(s_half_ps) s_clk = !s_clk;
        begin
            #(m_phase_ps);
            forever #(m_half_ps) m_clk = !m_clk;
        end
        begin
            #(8 * (s_half_ps > m_half_ps ? s_half_ps : m_half_ps) + m_phase_ps);
            // Released 1 ps after an edge of each clock: no race with the edge.
            @(posedge s_clk) #1 s_rst = 1'b0;
            @(posedge m_clk) #1 m_rst = 1'b0;
            repeat (64) begin
                @(posedge s_clk);
                @(posedge m_clk);
            end
            running = 1'b1;
        end
    join
end

// ------------------------------------------------------------ events
reg [31:0] draw;
always @(posedge s_clk) begin
    if (running) begin
        s_clocks = s_clocks + 1;
        for (k = 0; k < N; k = k + 1) begin
            model_d2[k] = model_d1[k];
            model_d1[k] = model[k];
            if (s_event[k]) begin
                events = events + 1;
                if (model[k] != MAX) model[k] = model[k] + 1'b1;
            end
        end
        if (s_clocks <= clocks) begin
            for (k = 0; k < N; k = k + 1) begin
                draw = rnd(0);
                s_event[k] <= (draw % 100) * N < event_pct * (k + 1);
            end
        end else begin
            s_event <= {N{1'b0}};
            stopped = 1;
        end
    end
end

// ------------------------------------------------------------ reader
reg [W-1:0] now;
always @(posedge m_clk) begin
    if (running) begin
        m_clocks = m_clocks + 1;
        for (k = 0; k < N; k = k + 1) begin
            now = m_count[W*k +: W];
            if (now < shown[k]) fail("a count went back");
            if (now > model[k]) fail("a count shows more events than there were");
            if (m_clocks > 4 && now < past[3][k]) fail("a count lags more than the latency bound");
            if (m_changed[k] !== (now != shown[k])) fail("m_changed does not follow m_count");
            shown[k] = now;
            for (a = 3; a > 0; a = a - 1) past[a][k] = past[a-1][k];
            past[0][k] = model_d2[k];
        end
    end
end

// ------------------------------------------------------------ end
initial begin
    wait (stopped == 1);
    repeat (8) @(posedge m_clk);
    for (k = 0; k < N; k = k + 1) begin
        if (m_count[W*k +: W] !== model[k]) begin
            $display("FAIL counter %0d shows %0d, %0d counted", k, m_count[W*k +: W], model[k]);
            fail("a count differs from the events once they stop");
        end
    end
    $display("PASS events=%0d s_clocks=%0d m_clocks=%0d", events, s_clocks, m_clocks);
    $finish;
end

endmodule

// Self-checking testbench of netmeas_async_fifo (Icarus Verilog, Verilator
// --binary --timing, or any Verilog-2005 simulator): two free-running
// clocks of unrelated periods, records offered on random write clocks and
// taken on random read clocks, both resets asserted together at the start,
// and then, with +RESETS=n, n resets of one side alone or of both, each
// 1 to RESET_MAX clocks of its own domain long, at random times (so at
// any phase of the other clock). Each record carries its number. Checked:
//   - every record not dropped comes out exactly once, in order, unchanged;
//     a record may be missing only if it was dropped (full), refused (offered
//     while s_status_reset) or in the FIFO while a reset ran (from its start
//     until both sides show out of reset): a reset abandons what the FIFO
//     held, and never gives a record that was not taken, or one twice;
//   - a record is dropped exactly when s_status_full shows at its write
//     clock, and s_status_overflow / s_overflow_count count exactly those;
//   - s_axis_tready is always 1 (the tap never slows the link);
//   - s_status_empty never shows while a record taken is still in the
//     memory, and shows once the FIFO has drained;
//   - m_axis_tvalid stays up with its data held until taken;
//   - with +NO_DROPS=1 (the reader keeps up), nothing is dropped;
//   - after the writer stops, the FIFO drains and shows nothing more.
// The FIFO's size is set by the parameters WIDTH and ADDR_BITS, the run by
// plusargs (+S_HALF_PS, +M_HALF_PS, +M_PHASE_PS, +WRITE_PCT, +READ_PCT,
// +RECORDS, +SEED, +NO_DROPS, +RESETS, +RESET_SIDE (0 either at random, 1
// the write side, 2 the read side, 3 both), +RESET_MAX), so that one build
// serves many runs.
// Prints one line "PASS records=… dropped=… refused=… vanished=…
// max_latency_ps=…", or
// "FAIL …" and stops with $fatal.

`timescale 1ps / 1ps

module netmeas_async_fifo_tb;

// The FIFO's size: parameters.
parameter integer WIDTH = 32;        // ≥ 32: a record carries its number
parameter integer ADDR_BITS = 4;
parameter integer MAX_RECORDS = 100000;
// The run: plusargs (+S_HALF_PS=3200 …), so that one build serves every run.
integer s_half_ps = 3200;            // write clock: 156.25 MHz
integer m_half_ps = 2500;            // read clock: 200 MHz
integer m_phase_ps = 1234;           // read clock's first rising edge after the write clock's
integer write_pct = 100;             // chance of a record on a write clock
integer read_pct = 100;              // chance of m_axis_tready on a read clock
integer records = 100000;            // records offered, ≤ MAX_RECORDS
integer seed = 1;
integer no_drops = 0;                // 1: fail on any drop
integer resets = 0;                  // resets after the first
integer reset_side = 0;              // 0 either at random, 1 write side, 2 read side, 3 both
integer reset_max = 40;              // longest reset, clocks of its domain

reg s_clk = 1'b0;
reg m_clk = 1'b0;
reg s_rst = 1'b1;
reg m_rst = 1'b1;
reg [WIDTH-1:0] s_axis_tdata = {WIDTH{1'b0}};
reg s_axis_tvalid = 1'b0;
reg m_axis_tready = 1'b0;
wire s_axis_tready;
wire s_status_full;
wire s_status_empty;
wire s_status_overflow;
wire [31:0] s_overflow_count;
wire s_status_reset;
wire [ADDR_BITS:0] s_status_used;
wire [WIDTH-1:0] m_axis_tdata;
wire m_axis_tvalid;
wire m_status_reset;

netmeas_async_fifo #(.WIDTH(WIDTH), .ADDR_BITS(ADDR_BITS)) dut (
    .s_clk(s_clk), .s_rst(s_rst),
    .s_axis_tdata(s_axis_tdata), .s_axis_tvalid(s_axis_tvalid), .s_axis_tready(s_axis_tready),
    .s_status_full(s_status_full), .s_status_empty(s_status_empty), .s_status_overflow(s_status_overflow),
    .s_overflow_count(s_overflow_count), .s_status_reset(s_status_reset), .s_status_used(s_status_used),
    .m_clk(m_clk), .m_rst(m_rst),
    .m_axis_tdata(m_axis_tdata), .m_axis_tvalid(m_axis_tvalid), .m_axis_tready(m_axis_tready),
    .m_status_reset(m_status_reset)
);

// Per record: dropped, refused (offered in reset), in the FIFO while a
// reset ran, and the time it was offered.
reg        dropped [0:MAX_RECORDS-1];
reg        refused [0:MAX_RECORDS-1];
reg        may_vanish [0:MAX_RECORDS-1];
reg [63:0] offered_at [0:MAX_RECORDS-1];

integer seed_w;
integer seed_r;
integer offered = 0;        // records offered so far (the next record's number)
integer drops = 0;          // of them dropped
integer drops_counted = 0;  // dropped since the write side's last reset (what s_overflow_count shows)
integer refusals = 0;       // of them refused: offered while the write side was in reset
integer vanished = 0;       // of them abandoned by a reset
integer resets_done = 0;
reg     started = 1'b0;     // the first reset's handshake has ended: the writer may begin
reg     in_reset = 1'b0;    // a reset runs: from its start until both sides are out of it
integer overflow_pulses = 0;
integer received = 0;
integer expect_next = 0;    // the next number the reader may see (skipping drops)
reg     [63:0] max_latency = 64'd0;
integer s_clocks = 0;
integer m_clocks = 0;
reg     held_valid = 1'b0;  // last read clock showed a record not taken
reg     [WIDTH-1:0] held_data = {WIDTH{1'b0}};
integer k;

// Record `n`: its number in bits 31..0, repeated above, every other copy inverted.
function [WIDTH-1:0] record_of(input [31:0] n);
    integer w;
    begin
        record_of = {WIDTH{1'b0}};
        for (w = 0; w < (WIDTH + 31) / 32; w = w + 1) begin
            record_of = record_of | ({{(WIDTH-32){1'b0}}, (w % 2 == 1) ? ~n : n} << (32 * w));
        end
    end
endfunction

task fail(input [8*64-1:0] what);
    begin
        $display("FAIL %0s (offered=%0d dropped=%0d received=%0d at %0t ps)", what, offered, drops, received, $time);
        $fatal(1);
    end
endtask

// The run's plusargs, then the two clocks and both resets together, for 4
// clocks of the slower domain; the writer begins once the write side shows
// out of reset.
initial begin
    if ($value$plusargs("S_HALF_PS=%d", s_half_ps)) ;
    if ($value$plusargs("M_HALF_PS=%d", m_half_ps)) ;
    if ($value$plusargs("M_PHASE_PS=%d", m_phase_ps)) ;
    if ($value$plusargs("WRITE_PCT=%d", write_pct)) ;
    if ($value$plusargs("READ_PCT=%d", read_pct)) ;
    if ($value$plusargs("RECORDS=%d", records)) ;
    if ($value$plusargs("SEED=%d", seed)) ;
    if ($value$plusargs("NO_DROPS=%d", no_drops)) ;
    if ($value$plusargs("RESETS=%d", resets)) ;
    if ($value$plusargs("RESET_SIDE=%d", reset_side)) ;
    if ($value$plusargs("RESET_MAX=%d", reset_max)) ;
    if (reset_side < 0 || reset_side > 3 || reset_max < 1 || resets < 0) fail("unusable plusargs");
    if (records < 1 || records > MAX_RECORDS || s_half_ps < 1 || m_half_ps < 1) fail("unusable plusargs");
    seed_w = seed;
    seed_r = seed + 7919;
    for (k = 0; k < records; k = k + 1) begin
        dropped[k] = 1'b0;
        refused[k] = 1'b0;
        may_vanish[k] = 1'b0;
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
        end
    join
end

// Records taken and not yet received that no reset may have abandoned.
function integer owed(input integer unused);
    integer j;
    begin
        owed = 0;
        for (j = expect_next; j < offered; j = j + 1)
            if (!dropped[j] && !refused[j] && !may_vanish[j]) owed = owed + 1;
    end
endfunction

// ------------------------------------------------------------ writer
always @(posedge s_clk) begin
    if (!s_axis_tready) fail("s_axis_tready low");
    if (!s_rst) begin
        s_clocks = s_clocks + 1;
        if (s_status_reset) begin
            drops_counted = 0;
            overflow_pulses = 0;
        end else if (s_status_overflow) begin
            overflow_pulses = overflow_pulses + 1;
        end
        // Every record taken before this clock has left the memory (been
        // received, or sits in the output register) if the FIFO shows empty
        // (a reset abandons what it held: not checked while one runs).
        if (!in_reset && s_status_empty && owed(0) > (m_axis_tvalid ? 1 : 0))
            fail("s_status_empty while a record is in the memory");
        // The records in use agree with the flags from the same pointers.
        if (!s_status_reset && s_status_used > (1 << ADDR_BITS))
            fail("s_status_used beyond the memory");
        if (!s_status_reset && s_status_full != (s_status_used == (1 << ADDR_BITS)))
            fail("s_status_used disagrees with s_status_full");
        if (!s_status_reset && s_status_empty != (s_status_used == 0))
            fail("s_status_used disagrees with s_status_empty");
        if (s_axis_tvalid) begin
            // The record offered this clock is taken unless the FIFO shows
            // full, or its write side is in reset.
            if (s_status_reset) begin
                refused[offered] = 1'b1;
                refusals = refusals + 1;
            end else if (s_status_full) begin
                dropped[offered] = 1'b1;
                drops = drops + 1;
                drops_counted = drops_counted + 1;
                if (no_drops != 0 && resets == 0) fail("a record was dropped while the reader keeps up");
            end else if (in_reset) begin
                may_vanish[offered] = 1'b1;
            end
            offered_at[offered] = $time;
            offered = offered + 1;
        end
        if (!s_status_reset) started = 1'b1;
        if (started && offered < records && ($unsigned($random(seed_w)) % 100) < write_pct) begin
            s_axis_tvalid <= 1'b1;
            s_axis_tdata <= record_of(offered);
        end else begin
            s_axis_tvalid <= 1'b0;
            s_axis_tdata <= {WIDTH{1'b1}};
        end
    end
end

// ------------------------------------------------------------ reader
always @(posedge m_clk) begin
    if (!m_rst) begin
        m_clocks = m_clocks + 1;
        if (held_valid && !m_status_reset && (!m_axis_tvalid || m_axis_tdata !== held_data))
            fail("a record shown was withdrawn or changed");
        if (m_axis_tvalid && m_axis_tready) begin
            // Records skipped must have been dropped, refused or abandoned by a reset.
            while (expect_next < offered && expect_next != m_axis_tdata[31:0]
                   && (dropped[expect_next] || refused[expect_next] || may_vanish[expect_next])) begin
                if (!dropped[expect_next] && !refused[expect_next]) vanished = vanished + 1;
                expect_next = expect_next + 1;
            end
            if (m_axis_tdata !== record_of(expect_next) || expect_next >= offered
                    || dropped[expect_next] || refused[expect_next]) begin
                $display("FAIL record %0d out, %0d expected", m_axis_tdata[31:0], expect_next);
                fail("a record out of order, lost, repeated, changed or never taken");
            end
            if ($time - offered_at[expect_next] > max_latency) max_latency = $time - offered_at[expect_next];
            expect_next = expect_next + 1;
            received = received + 1;
        end
        held_valid = m_axis_tvalid && !m_axis_tready;
        held_data = m_axis_tdata;
        m_axis_tready <= ($unsigned($random(seed_r)) % 100) < read_pct;
    end
end

// ------------------------------------------------------------ resets
// After the first, +RESETS resets of one side or both, each 1 to RESET_MAX
// clocks of its own domain, 20 to 1 000 write clocks apart. From a reset's
// start until both sides show out of reset, whatever the FIFO holds may be
// abandoned.
task mark_in_fifo;
    integer j;
    begin
        for (j = expect_next; j < offered; j = j + 1) may_vanish[j] = 1'b1;
    end
endtask

integer r, side, len, seed_x;
initial begin
    wait (!s_rst && !m_rst);
    seed_x = seed + 104729;
    for (r = 0; r < resets; r = r + 1) begin
        repeat (20 + ($unsigned($random(seed_x)) % 981)) @(posedge s_clk);
        side = reset_side != 0 ? reset_side : 1 + ($unsigned($random(seed_x)) % 3);
        len = 1 + ($unsigned($random(seed_x)) % reset_max);
        // A reset lasts from its first clock to the end of both sides' handshakes.
        in_reset = 1'b1;
        mark_in_fifo;
        if (side == 1 || side == 3) begin
            @(posedge s_clk) #1 s_rst = 1'b1;
        end
        if (side == 2 || side == 3) begin
            @(posedge m_clk) #1 m_rst = 1'b1;
        end
        fork
            if (side == 1 || side == 3) begin
                repeat (len) @(posedge s_clk);
                #1 s_rst = 1'b0;
            end
            if (side == 2 || side == 3) begin
                repeat (len) @(posedge m_clk);
                #1 m_rst = 1'b0;
            end
        join
        // Both sides out of reset, and a clock of each after it.
        while (s_status_reset || m_status_reset || s_rst || m_rst) @(posedge m_clk);
        @(posedge s_clk);
        @(posedge m_clk);
        mark_in_fifo;
        in_reset = 1'b0;
        resets_done = resets_done + 1;
    end
end

// ------------------------------------------------------------ end
initial begin
    wait (offered == records && resets_done == resets);
    // Drain: the reader takes whatever is left.
    repeat (4 * (1 << ADDR_BITS) * 100 / (read_pct > 0 ? read_pct : 1) + 64) @(posedge m_clk);
    while (expect_next < records && (dropped[expect_next] || refused[expect_next] || may_vanish[expect_next])) begin
        if (!dropped[expect_next] && !refused[expect_next]) vanished = vanished + 1;
        expect_next = expect_next + 1;
    end
    if (expect_next != records) fail("records missing after the drain");
    if (received + drops + refusals + vanished != records) fail("records missing or counted twice after the drain");
    if (m_axis_tvalid) fail("a record shown after the drain");
    @(posedge s_clk);
    @(posedge s_clk);
    if (!s_status_empty) fail("s_status_empty low after the drain");
    if (s_overflow_count != drops_counted) fail("s_overflow_count differs from the records dropped");
    if (overflow_pulses != drops_counted) fail("s_status_overflow pulses differ from the records dropped");
    $display("PASS records=%0d dropped=%0d refused=%0d vanished=%0d received=%0d max_latency_ps=%0d s_clocks=%0d m_clocks=%0d",
             records, drops, refusals, vanished, received, max_latency, s_clocks, m_clocks);
    $finish;
end

endmodule

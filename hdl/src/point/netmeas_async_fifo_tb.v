// Self-checking testbench of netmeas_async_fifo (Icarus Verilog, Verilator
// --binary --timing, or any Verilog-2005 simulator): two free-running
// clocks of unrelated periods, records offered on random write clocks and
// taken on random read clocks, both resets asserted together at the start.
// Each record carries its number. Checked:
//   - every record not dropped comes out exactly once, in order, unchanged;
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
// +RECORDS, +SEED, +NO_DROPS), so that one build serves many runs.
// Prints one line "PASS records=… dropped=… max_latency_ps=…", or
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
wire [WIDTH-1:0] m_axis_tdata;
wire m_axis_tvalid;

netmeas_async_fifo #(.WIDTH(WIDTH), .ADDR_BITS(ADDR_BITS)) dut (
    .s_clk(s_clk), .s_rst(s_rst),
    .s_axis_tdata(s_axis_tdata), .s_axis_tvalid(s_axis_tvalid), .s_axis_tready(s_axis_tready),
    .s_status_full(s_status_full), .s_status_empty(s_status_empty), .s_status_overflow(s_status_overflow),
    .s_overflow_count(s_overflow_count),
    .m_clk(m_clk), .m_rst(m_rst),
    .m_axis_tdata(m_axis_tdata), .m_axis_tvalid(m_axis_tvalid), .m_axis_tready(m_axis_tready)
);

// Per record: dropped, and the time it was offered.
reg        dropped [0:MAX_RECORDS-1];
reg [63:0] offered_at [0:MAX_RECORDS-1];

integer seed_w;
integer seed_r;
integer offered = 0;        // records offered so far (the next record's number)
integer drops = 0;          // of them dropped
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
// clocks of the slower domain.
initial begin
    if ($value$plusargs("S_HALF_PS=%d", s_half_ps)) ;
    if ($value$plusargs("M_HALF_PS=%d", m_half_ps)) ;
    if ($value$plusargs("M_PHASE_PS=%d", m_phase_ps)) ;
    if ($value$plusargs("WRITE_PCT=%d", write_pct)) ;
    if ($value$plusargs("READ_PCT=%d", read_pct)) ;
    if ($value$plusargs("RECORDS=%d", records)) ;
    if ($value$plusargs("SEED=%d", seed)) ;
    if ($value$plusargs("NO_DROPS=%d", no_drops)) ;
    if (records < 1 || records > MAX_RECORDS || s_half_ps < 1 || m_half_ps < 1) fail("unusable plusargs");
    seed_w = seed;
    seed_r = seed + 7919;
    for (k = 0; k < records; k = k + 1) dropped[k] = 1'b0;
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

// ------------------------------------------------------------ writer
always @(posedge s_clk) begin
    if (!s_axis_tready) fail("s_axis_tready low");
    if (!s_rst) begin
        s_clocks = s_clocks + 1;
        if (s_status_overflow) overflow_pulses = overflow_pulses + 1;
        // Every record taken before this clock has left the memory (been
        // received, or sits in the output register) if the FIFO shows empty.
        if (s_status_empty && offered - drops > received + (m_axis_tvalid ? 1 : 0))
            fail("s_status_empty while a record is in the memory");
        if (s_axis_tvalid) begin
            // The record offered this clock is taken unless the FIFO shows full.
            if (s_status_full) begin
                dropped[offered] = 1'b1;
                drops = drops + 1;
                if (no_drops != 0) fail("a record was dropped while the reader keeps up");
            end
            offered_at[offered] = $time;
            offered = offered + 1;
        end
        if (offered < records && ($unsigned($random(seed_w)) % 100) < write_pct) begin
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
        if (held_valid && (!m_axis_tvalid || m_axis_tdata !== held_data)) fail("a record shown was withdrawn or changed");
        if (m_axis_tvalid && m_axis_tready) begin
            while (expect_next < offered && dropped[expect_next]) expect_next = expect_next + 1;
            if (m_axis_tdata !== record_of(expect_next)) begin
                $display("FAIL record %0d out, %0d expected", m_axis_tdata[31:0], expect_next);
                fail("a record out of order, lost, repeated or changed");
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

// ------------------------------------------------------------ end
initial begin
    wait (offered == records);
    // Drain: the reader takes whatever is left.
    repeat (4 * (1 << ADDR_BITS) * 100 / (read_pct > 0 ? read_pct : 1) + 64) @(posedge m_clk);
    if (received + drops != records) fail("records missing after the drain");
    if (m_axis_tvalid) fail("a record shown after the drain");
    @(posedge s_clk);
    @(posedge s_clk);
    if (!s_status_empty) fail("s_status_empty low after the drain");
    if (s_overflow_count != drops) fail("s_overflow_count differs from the records dropped");
    if (overflow_pulses != drops) fail("s_status_overflow pulses differ from the records dropped");
    $display("PASS records=%0d dropped=%0d received=%0d max_latency_ps=%0d s_clocks=%0d m_clocks=%0d",
             records, drops, received, max_latency, s_clocks, m_clocks);
    $finish;
end

endmodule

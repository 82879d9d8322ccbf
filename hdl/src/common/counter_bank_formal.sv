// Formal properties of the counter bank (docs/cores/counter-bank.md; Kompella
// et al., ToN 2012, §V: {count, timestamp sum} rows updated by
// read-modify-write at line rate, two copies for the read-out), proven by
// SymbiYosys (counter_bank.sby) on the exported Verilog, renamed `dut`.
//
// Every input is free (but the operands, below): any update stream
// (back-to-back updates to one row included), a flip requested on any cycle, any
// back-pressure on the read-out, resets at any time after the first cycle.
// A shadow keeps what each row of each copy must hold: an update accepted
// while `epoch` is e adds to copy e (the update offered with a taken flip
// counts in the old epoch), a row read out of the frozen copy is cleared.
`default_nettype none
module counter_bank_formal #(
    parameter A = 1,     // row address bits
    parameter ROWS = 2,  // rows
    parameter CW = 16,   // count bits
    parameter TW = 32    // timestamp-sum bits
) (
    input wire clock,
    input wire reset,
    input wire s_upd_valid,
    input wire [A-1:0] s_upd_row,
    input wire [CW-1:0] s_upd_count,
    input wire [TW-1:0] s_upd_tsum,
    input wire flip,
    input wire m_ro_ready,
    input wire ovf_clear
);
    wire s_upd_ready, flip_ready, epoch, m_ro_valid, m_ro_last, ovf_sticky;
    wire [A-1:0] m_ro_row;
    wire [CW-1:0] m_ro_count;
    wire [TW-1:0] m_ro_tsum;

    dut bank (
        .clock(clock),
        .reset(reset),
        .s_upd_valid(s_upd_valid),
        .s_upd_ready(s_upd_ready),
        .s_upd_row(s_upd_row),
        .s_upd_count(s_upd_count),
        .s_upd_tsum(s_upd_tsum),
        .flip(flip),
        .flip_ready(flip_ready),
        .epoch(epoch),
        .m_ro_valid(m_ro_valid),
        .m_ro_ready(m_ro_ready),
        .m_ro_row(m_ro_row),
        .m_ro_count(m_ro_count),
        .m_ro_tsum(m_ro_tsum),
        .m_ro_last(m_ro_last),
        .ovf_sticky(ovf_sticky),
        .ovf_clear(ovf_clear)
    );

    // The first cycle is a reset; rows exist.
    reg started = 1'b0;
    always @(posedge clock) started <= 1'b1;
    always @(*) if (!started) assume(reset);
    always @(*) assume(s_upd_row < ROWS);
    // Small operands (the LDA adds 1 a packet): the solver then reasons about
    // which record each update reads (the forwarding paths), not about the
    // equivalence of two chains of wide adders, which it cannot do in useful
    // time. The adders themselves are checked bit for bit by the co-simulation.
    always @(*) assume(s_upd_count <= 1 && s_upd_tsum <= 3);

    // The shadow: copy e's row r at index {e, r}.
    reg [2*ROWS*CW-1:0] count_shadow;
    reg [2*ROWS*TW-1:0] tsum_shadow;
    wire take = s_upd_valid && s_upd_ready && !reset;
    wire beat = m_ro_valid && m_ro_ready && !reset;
    wire [A:0] upd_slot = {epoch, s_upd_row};
    wire [A:0] ro_slot = {~epoch, m_ro_row};
    always @(posedge clock) begin
        if (reset) begin
            count_shadow <= 0;
            tsum_shadow <= 0;
        end else begin
            if (take) begin
                count_shadow[upd_slot*CW +: CW] <= count_shadow[upd_slot*CW +: CW] + s_upd_count;
                tsum_shadow[upd_slot*TW +: TW] <= tsum_shadow[upd_slot*TW +: TW] + s_upd_tsum;
            end
            // Never the same slot as the update: the copies differ.
            if (beat) begin
                count_shadow[ro_slot*CW +: CW] <= 0;
                tsum_shadow[ro_slot*TW +: TW] <= 0;
            end
        end
    end

    // Every row read out holds exactly the updates of its epoch (none lost,
    // none counted twice, whatever the distance between updates to it), rows
    // come in order and the last one is flagged.
    always @(*) if (started && m_ro_valid) begin
        assert(m_ro_row < ROWS);
        assert(m_ro_count == count_shadow[ro_slot*CW +: CW]);
        assert(m_ro_tsum == tsum_shadow[ro_slot*TW +: TW]);
        assert(m_ro_last == (m_ro_row == ROWS - 1));
    end

    // The stream rule on the read-out: a presented row stays, unchanged, until taken.
    always @(posedge clock) if (started && !$past(reset) && $past(m_ro_valid && !m_ro_ready)) begin
        assert(m_ro_valid);
        assert(m_ro_row == $past(m_ro_row));
        assert(m_ro_count == $past(m_ro_count));
        assert(m_ro_tsum == $past(m_ro_tsum));
        assert(m_ro_last == $past(m_ro_last));
    end

    // s_upd_ready is low only while clearing after a reset: once high, it
    // stays high until the next reset.
    always @(posedge clock) if (started && !$past(reset) && $past(s_upd_ready)) assert(s_upd_ready);

    // Not vacuous: a whole epoch with updates is read out within the depth.
    always @(*) cover(started && beat && m_ro_last && m_ro_count != 0);
endmodule
`default_nettype wire

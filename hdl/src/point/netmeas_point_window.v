// netmeas_point_window: the frozen epoch of a measurement point's core as a
// memory window on its register bus. The core streams its frozen epoch out
// beat by beat and clears each row as it goes (the read-and-clear that lets
// its banks flip without a clearing pass), so the window is read in beat
// order: slot i of the window is beat i of the epoch (counted from the
// epoch's first beat, modulo 2^INDEX_BITS).
//
// Slot i, at byte offset i * 4 * 2^STRIDE_BITS of the window:
//   word 0 .. WORDS-1   the beat's TDATA, 32 bits each from bit 0
//   word WORDS          its info: bit 31 the beat is there, bit 30 it is the
//                       epoch's last (TLAST), bits INDEX_BITS-1:0 its index
// A read of the presented beat's slot answers from the stream; a read of its
// last TDATA word takes the beat (TREADY for one clock), which then stays
// readable from a copy until the next beat is taken, so a word read twice
// reads the same. A read of any other slot (a beat not presented yet, or
// gone), of a word past the info word, or any write: an error response
// (SLVERR) and no side effect. The info word of the next slot says when the
// next beat is there: a host reads info, then the TDATA words, slot by slot,
// until a beat says it is the last.
//
// The access port is the register block's: one access per clock, registered
// as it enters and answered two clocks after it (rsp_*); rsp_rdata and
// rsp_err are 0 in a clock without an answer, so the point ORs the window's
// answer with the register block's.

`resetall
`timescale 1ns / 1ps
`default_nettype none

module netmeas_point_window #(
    parameter integer TDATA_BITS = 64,     // the read-out stream's width (a multiple of 8)
    parameter integer STRIDE_BITS = 2,     // 2^STRIDE_BITS words per slot (> TDATA_BITS / 32)
    parameter integer INDEX_BITS = 16,     // slots in the window: 2^INDEX_BITS
    parameter integer ADDR_WIDTH = 2 + STRIDE_BITS + INDEX_BITS   // byte address within the window
) (
    input  wire                  clk,
    input  wire                  rst,               // synchronous, active high
    // access port (the register block's): one access per clock
    input  wire                  acc_valid,
    input  wire                  acc_we,
    input  wire [ADDR_WIDTH-1:0] acc_addr,          // byte address within the window
    // its answer, two clocks after the access
    output reg                   rsp_valid,
    output reg                   rsp_err,
    output reg  [31:0]           rsp_rdata,
    // the read-out stream (the core's m_ro_*, also on the point's m_axis_*)
    input  wire [TDATA_BITS-1:0] ro_tdata,
    input  wire                  ro_tvalid,
    input  wire                  ro_tlast,
    input  wire                  ro_tready_ext,     // the stream's own taker (m_axis_tready)
    output wire                  ro_take            // the window takes the beat (OR it into TREADY)
);

localparam integer WORDS = (TDATA_BITS + 31) / 32;
localparam integer SLOT_BITS = 32 << STRIDE_BITS;          // a slot's words, padded
localparam [31:0] LAST_WORD_32 = WORDS - 1;
localparam [31:0] INFO_WORD_32 = WORDS;
localparam [STRIDE_BITS-1:0] LAST_WORD = LAST_WORD_32[STRIDE_BITS-1:0];   // its read takes the beat
localparam [STRIDE_BITS-1:0] INFO_WORD = INFO_WORD_32[STRIDE_BITS-1:0];
// The words of a slot a read may address: TDATA's and the info word.
localparam [(1 << STRIDE_BITS)-1:0] WORD_OK = {(1 << STRIDE_BITS){1'b1}} >> ((1 << STRIDE_BITS) - WORDS - 1);

// The access, registered: the decode starts from flops.
reg                   a_valid = 1'b0;
reg                   a_we = 1'b0;
reg  [STRIDE_BITS+1:0] a_addr = {(STRIDE_BITS+2){1'b0}};   // its byte within the slot
reg                   a_live = 1'b0;     // its slot is the presented beat's index
reg                   a_kept = 1'b0;     // its slot is the copy's index
reg                   a_take = 1'b0;     // it takes the beat presented (see ro_take)

// Where the stream is: the index of the beat presented (beats taken since the
// epoch's first), and a copy of the beat taken last.
reg  [INDEX_BITS-1:0] index = {INDEX_BITS{1'b0}};
reg                   kept_valid = 1'b0;
reg  [INDEX_BITS-1:0] kept_index = {INDEX_BITS{1'b0}};
reg                   kept_last = 1'b0;
reg  [TDATA_BITS-1:0] kept_data = {TDATA_BITS{1'b0}};

wire [SLOT_BITS-1:0]  live_slot = {{(SLOT_BITS - TDATA_BITS){1'b0}}, ro_tdata};
wire [SLOT_BITS-1:0]  kept_slot = {{(SLOT_BITS - TDATA_BITS){1'b0}}, kept_data};
wire                  aligned = a_addr[1:0] == 2'b00;
wire [STRIDE_BITS-1:0] word = a_addr[STRIDE_BITS+1:2];
wire                  read = a_valid && !a_we && aligned && WORD_OK[word];
wire                  at_live = ro_tvalid && a_live;
wire                  at_kept = kept_valid && a_kept;
wire                  taken = ro_tvalid && (ro_tready_ext || ro_take);

// The slot compares are decoded as the access enters, a clock early,
// against the indices the stream and the copy will have then (this clock's,
// or the next ones if a beat is taken now): a_live is slot == index, a_kept
// slot == kept_index. A read of the presented beat's last TDATA word takes
// it (ro_take is read && slot == index && word == LAST_WORD), so TREADY
// comes from a flop and not through the compare. TREADY does not wait for
// TVALID (no path from the stream's valid back to its ready).
assign ro_take = a_take;
wire [INDEX_BITS-1:0] acc_slot = acc_addr[ADDR_WIDTH-1:STRIDE_BITS+2];
wire                  acc_takes = acc_valid && !acc_we && acc_addr[1:0] == 2'b00
                                  && acc_addr[STRIDE_BITS+1:2] == LAST_WORD;
wire                  slot_now = acc_slot == index;
wire                  slot_next = acc_slot == index + {{(INDEX_BITS-1){1'b0}}, 1'b1};
wire                  slot_first = acc_slot == {INDEX_BITS{1'b0}};
wire                  slot_kept = acc_slot == kept_index;
wire                  live_next = !taken ? slot_now : ro_tlast ? slot_first : slot_next;
wire                  kept_next = taken ? slot_now : slot_kept;
always @(posedge clk) begin
    a_valid <= acc_valid && !rst;
    a_we <= acc_we;
    a_addr <= acc_addr[STRIDE_BITS+1:0];
    a_live <= live_next;
    a_kept <= kept_next;
    a_take <= acc_takes && !rst && live_next;
end

// The answer's word: from the live beat or from the copy.
wire [31:0] info = at_live ? {1'b1, ro_tlast, {(30 - INDEX_BITS){1'b0}}, index}
                           : {1'b1, kept_last, {(30 - INDEX_BITS){1'b0}}, kept_index};
wire [31:0] data = at_live ? live_slot[{word, 5'd0} +: 32] : kept_slot[{word, 5'd0} +: 32];
wire [31:0] answer = word == INFO_WORD ? info : data;

always @(posedge clk) begin
    rsp_valid <= a_valid;
    rsp_err <= a_valid && !(read && (at_live || at_kept));
    rsp_rdata <= read && (at_live || at_kept) ? answer : 32'd0;
    if (taken) begin
        index <= ro_tlast ? {INDEX_BITS{1'b0}} : index + {{(INDEX_BITS-1){1'b0}}, 1'b1};
        kept_valid <= 1'b1;
        kept_index <= index;
        kept_last <= ro_tlast;
        kept_data <= ro_tdata;
    end
    if (rst) begin
        rsp_valid <= 1'b0;
        rsp_err <= 1'b0;
        rsp_rdata <= 32'd0;
        index <= {INDEX_BITS{1'b0}};
        kept_valid <= 1'b0;
    end
end

endmodule

`resetall

// netmeas_point_query: a measurement point's query port (MAPLE §4: a query
// names a packet by its hash, the answer is its latency estimate) as two
// AXI4-Stream ports. Queries from s_axis_query_* go to the core's query
// input; the core's answers, one clock each and never held, go into a FIFO
// of 2^DEPTH_BITS entries that m_axis_answer_* reads. A query is taken only
// while the answers owed (queries taken whose answer has not been read from
// m_axis_answer_*) are fewer than the FIFO's entries, so every answer finds
// room whatever the answer stream's TREADY does: back-pressure on the
// answers becomes back-pressure on the queries, never a lost answer. With
// 2^DEPTH_BITS above the core's query latency the port runs at one query
// per clock while answers are taken.
//
// Answers leave in the order the core gives them (the SVBF core: the order
// of its queries; each carries its query's tag).

`resetall
`timescale 1ns / 1ps
`default_nettype none

module netmeas_point_query #(
    parameter integer QUERY_BITS = 80,      // a query's TDATA (the core's query inputs)
    parameter integer ANSWER_BITS = 152,    // an answer's TDATA (the core's answer outputs)
    parameter integer DEPTH_BITS = 5        // the answer FIFO holds 2^DEPTH_BITS answers
) (
    input  wire                   clk,
    input  wire                   rst,                    // synchronous, active high
    // --- queries in (AXI4-Stream slave)
    input  wire [QUERY_BITS-1:0]  s_axis_query_tdata,
    input  wire                   s_axis_query_tvalid,
    output wire                   s_axis_query_tready,
    // --- the core's query input
    output wire [QUERY_BITS-1:0]  core_q_data,
    output wire                   core_q_valid,
    input  wire                   core_q_ready,
    // --- the core's answers: one clock each, never held
    input  wire [ANSWER_BITS-1:0] core_r_data,
    input  wire                   core_r_valid,
    // --- answers out (AXI4-Stream master)
    output wire [ANSWER_BITS-1:0] m_axis_answer_tdata,
    output wire                   m_axis_answer_tvalid,
    input  wire                   m_axis_answer_tready
);

localparam integer DEPTH = 1 << DEPTH_BITS;
localparam [DEPTH_BITS:0] DEPTH_P = DEPTH[DEPTH_BITS:0];

reg  [ANSWER_BITS-1:0] mem [0:DEPTH-1];
reg  [DEPTH_BITS:0]    wr_ptr = {(DEPTH_BITS + 1){1'b0}};
reg  [DEPTH_BITS:0]    rd_ptr = {(DEPTH_BITS + 1){1'b0}};
reg  [DEPTH_BITS:0]    owed = {(DEPTH_BITS + 1){1'b0}};    // taken queries whose answer is not read

wire room = owed != DEPTH_P;
wire take_query = s_axis_query_tvalid && core_q_ready && room;
wire take_answer = m_axis_answer_tvalid && m_axis_answer_tready;

assign core_q_data = s_axis_query_tdata;
assign core_q_valid = s_axis_query_tvalid && room;
assign s_axis_query_tready = core_q_ready && room;
assign m_axis_answer_tvalid = wr_ptr != rd_ptr;
assign m_axis_answer_tdata = mem[rd_ptr[DEPTH_BITS-1:0]];

always @(posedge clk) begin
    if (core_r_valid) mem[wr_ptr[DEPTH_BITS-1:0]] <= core_r_data;
end

always @(posedge clk) begin
    if (rst) begin
        wr_ptr <= {(DEPTH_BITS + 1){1'b0}};
        rd_ptr <= {(DEPTH_BITS + 1){1'b0}};
        owed <= {(DEPTH_BITS + 1){1'b0}};
    end else begin
        if (core_r_valid) wr_ptr <= wr_ptr + 1'b1;
        if (take_answer) rd_ptr <= rd_ptr + 1'b1;
        owed <= owed + {{DEPTH_BITS{1'b0}}, take_query} - {{DEPTH_BITS{1'b0}}, take_answer};
    end
end

endmodule

`resetall

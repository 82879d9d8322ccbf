// netmeas_wb_slave: Wishbone B4 pipelined slave in front of a measurement
// point's register block (netmeas; docs/cores/bus-slaves.md), as a LiteX
// SoC's Wishbone bus reaches it: 32-bit data, word addresses (ADR is the
// byte address without its two low bits), SEL as byte strobes.
//
// Never stalls: every clock with CYC and STB high is an access, answered
// two clocks later by ACK (with DAT_O for a read) or by ERR for an
// unmapped or refused address, which has no side effect. Answers come in
// the order of the accesses, one per access; while CYC is low none is
// given (an access of a cycle the master abandoned has taken effect, and
// its answer is not shown).

`timescale 1ns / 1ps

module netmeas_wb_slave #(
    parameter integer ADDR_WIDTH = 12      // byte address bits of the register block
) (
    input  wire                  clk,
    input  wire                  rst,      // synchronous, active high

    // Wishbone B4 pipelined slave
    input  wire [ADDR_WIDTH-3:0] wb_adr_i, // word address
    input  wire [31:0]           wb_dat_i,
    output wire [31:0]           wb_dat_o,
    input  wire [3:0]            wb_sel_i,
    input  wire                  wb_we_i,
    input  wire                  wb_stb_i,
    input  wire                  wb_cyc_i,
    output wire                  wb_stall_o,
    output wire                  wb_ack_o,
    output wire                  wb_err_o,

    // access port of the register block
    output wire                  acc_valid,
    output wire                  acc_we,
    output wire [ADDR_WIDTH-1:0] acc_addr,
    output wire [31:0]           acc_wdata,
    output wire [3:0]            acc_wstrb,
    input  wire                  rsp_valid,
    input  wire                  rsp_err,
    input  wire [31:0]           rsp_rdata
);

// The register block's answer, two clocks after its access, belongs to an
// access of this cycle: made in the last clock (answering1) and two clocks
// ago (answering2), none in reset, none across a clock with CYC low.
reg answering1;
reg answering2;

assign acc_valid  = wb_cyc_i && wb_stb_i && !rst;
assign acc_we     = wb_we_i;
assign acc_addr   = {wb_adr_i, 2'b00};
assign acc_wdata  = wb_dat_i;
assign acc_wstrb  = wb_sel_i;

assign wb_stall_o = 1'b0;
assign wb_ack_o   = answering2 && rsp_valid && !rsp_err && wb_cyc_i;
assign wb_err_o   = answering2 && rsp_valid && rsp_err && wb_cyc_i;
assign wb_dat_o   = rsp_rdata;    // 0 with a write's or an error's answer

always @(posedge clk) begin
    answering1 <= acc_valid;
    answering2 <= answering1 && wb_cyc_i;
    if (rst) begin
        answering1 <= 1'b0;
        answering2 <= 1'b0;
    end
end

endmodule

// netmeas_axil_slave: AXI4-Lite slave in front of a measurement point's
// register block (netmeas; docs/cores/bus-slaves.md).
//
// Each of the five channels takes any valid/ready timing: the write
// address and the write data are held as they come (in either order), the
// read address likewise; a write is performed once both halves are held and
// its response slot is free, a read once its response slot is free, one
// access per clock to the register block (alternating when both wait), and
// the register block's answer two clocks later becomes BRESP/RRESP (OKAY,
// or SLVERR for an unmapped, misaligned or refused address, which has no
// side effect) and RDATA. A response stays presented, unchanged, until
// taken. AWPROT and ARPROT are accepted and not used.
//
// Sustained rate: one write every 4 clocks and one read every 4 clocks with
// BREADY/RREADY high, interleaved.

`timescale 1ns / 1ps

module netmeas_axil_slave #(
    parameter integer ADDR_WIDTH = 12      // byte address bits of the register block
) (
    input  wire                  clk,
    input  wire                  rst,      // synchronous, active high

    // AXI4-Lite slave
    input  wire [ADDR_WIDTH-1:0] s_axil_awaddr,
    /* verilator lint_off UNUSEDSIGNAL */  // protection bits: the map has no privileged words
    input  wire [2:0]            s_axil_awprot,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire                  s_axil_awvalid,
    output wire                  s_axil_awready,
    input  wire [31:0]           s_axil_wdata,
    input  wire [3:0]            s_axil_wstrb,
    input  wire                  s_axil_wvalid,
    output wire                  s_axil_wready,
    output wire [1:0]            s_axil_bresp,
    output wire                  s_axil_bvalid,
    input  wire                  s_axil_bready,
    input  wire [ADDR_WIDTH-1:0] s_axil_araddr,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [2:0]            s_axil_arprot,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire                  s_axil_arvalid,
    output wire                  s_axil_arready,
    output wire [31:0]           s_axil_rdata,
    output wire [1:0]            s_axil_rresp,
    output wire                  s_axil_rvalid,
    input  wire                  s_axil_rready,

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

localparam [1:0] RESP_OKAY = 2'b00;
localparam [1:0] RESP_SLVERR = 2'b10;

// Held halves of a write, and the held read address.
reg                  aw_full;
reg [ADDR_WIDTH-1:0] aw_addr;
reg                  w_full;
reg [31:0]           w_data;
reg [3:0]            w_strb;
reg                  ar_full;
reg [ADDR_WIDTH-1:0] ar_addr;
// Responses presented.
reg                  b_valid;
reg [1:0]            b_resp;
reg                  r_valid;
reg [1:0]            r_resp;
reg [31:0]           r_data;
// The accesses of the last two clocks (the register block answers an access
// two clocks after it): pend1 of the last clock, pend2 answered in this one.
reg                  pend1;
reg                  pend1_we;
reg                  pend2;
reg                  pend2_we;
reg                  last_write;       // the last access was a write (alternation)

assign s_axil_awready = !aw_full;
assign s_axil_wready  = !w_full;
assign s_axil_arready = !ar_full;
assign s_axil_bvalid  = b_valid;
assign s_axil_bresp   = b_resp;
assign s_axil_rvalid  = r_valid;
assign s_axil_rresp   = r_resp;
assign s_axil_rdata   = r_data;

// A write may go when both halves are held and its response slot is free
// (no response presented, none on its way); a read likewise.
wire wr_can = aw_full && w_full && !b_valid && !(pend1 && pend1_we) && !(pend2 && pend2_we);
wire rd_can = ar_full && !r_valid && !(pend1 && !pend1_we) && !(pend2 && !pend2_we);
wire do_wr  = wr_can && (!rd_can || !last_write);
wire do_rd  = rd_can && !do_wr;

assign acc_valid = do_wr || do_rd;
assign acc_we    = do_wr;
assign acc_addr  = do_wr ? aw_addr : ar_addr;
assign acc_wdata = w_data;
assign acc_wstrb = w_strb;

always @(posedge clk) begin
    if (s_axil_awvalid && !aw_full) begin
        aw_full <= 1'b1;
        aw_addr <= s_axil_awaddr;
    end
    if (s_axil_wvalid && !w_full) begin
        w_full <= 1'b1;
        w_data <= s_axil_wdata;
        w_strb <= s_axil_wstrb;
    end
    if (s_axil_arvalid && !ar_full) begin
        ar_full <= 1'b1;
        ar_addr <= s_axil_araddr;
    end
    // do_wr needs both halves held, so neither is taken in its clock.
    if (do_wr) begin
        aw_full <= 1'b0;
        w_full <= 1'b0;
    end
    if (do_rd) ar_full <= 1'b0;
    if (acc_valid) last_write <= do_wr;
    pend1 <= acc_valid;
    pend1_we <= do_wr;
    pend2 <= pend1;
    pend2_we <= pend1_we;

    if (b_valid && s_axil_bready) b_valid <= 1'b0;
    if (r_valid && s_axil_rready) r_valid <= 1'b0;
    if (pend2 && rsp_valid) begin
        if (pend2_we) begin
            b_valid <= 1'b1;
            b_resp <= rsp_err ? RESP_SLVERR : RESP_OKAY;
        end else begin
            r_valid <= 1'b1;
            r_resp <= rsp_err ? RESP_SLVERR : RESP_OKAY;
            r_data <= rsp_err ? 32'd0 : rsp_rdata;
        end
    end

    if (rst) begin
        aw_full <= 1'b0;
        w_full <= 1'b0;
        ar_full <= 1'b0;
        b_valid <= 1'b0;
        r_valid <= 1'b0;
        pend1 <= 1'b0;
        pend1_we <= 1'b0;
        pend2 <= 1'b0;
        pend2_we <= 1'b0;
        last_write <= 1'b0;
        aw_addr <= {ADDR_WIDTH{1'b0}};
        w_data <= 32'd0;
        w_strb <= 4'd0;
        ar_addr <= {ADDR_WIDTH{1'b0}};
        b_resp <= RESP_OKAY;
        r_resp <= RESP_OKAY;
        r_data <= 32'd0;
    end
end

endmodule

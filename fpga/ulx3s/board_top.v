// ULX3S board top of the netmeas measurement engine: the ECP5 PLL makes the
// engine's 50 MHz clock from the 25 MHz oscillator (ecppll -i 25 -o 50:
// VCO 600 MHz), reset is held until the PLL locks and for 16 clocks after
// FIRE2 is released, the FT231X serial lines go to the engine's host link,
// LEDs 0-3 show its status (running, frozen epoch, source waiting, overflow),
// LED 7 the PLL lock. `ENGINE_TOP` is the exported engine's
// module, `KEY_BITS` its key width.
`default_nettype none
module netmeas_ulx3s (
    input  wire       clk_25mhz,
    input  wire       btn_reset,
    input  wire       ftdi_txd,
    output wire       ftdi_rxd,
    output wire [7:0] led
);
    wire clock, locked;
    (* FREQUENCY_PIN_CLKI="25" *)
    (* FREQUENCY_PIN_CLKOP="50" *)
    (* ICP_CURRENT="12" *) (* LPF_RESISTOR="8" *) (* MFG_ENABLE_FILTEROPAMP="1" *) (* MFG_GMCREF_SEL="2" *)
    EHXPLLL #(
        .PLLRST_ENA("DISABLED"), .INTFB_WAKE("DISABLED"), .STDBY_ENABLE("DISABLED"), .DPHASE_SOURCE("DISABLED"),
        .OUTDIVIDER_MUXA("DIVA"), .OUTDIVIDER_MUXB("DIVB"), .OUTDIVIDER_MUXC("DIVC"), .OUTDIVIDER_MUXD("DIVD"),
        .CLKI_DIV(1), .CLKOP_ENABLE("ENABLED"), .CLKOP_DIV(12), .CLKOP_CPHASE(5), .CLKOP_FPHASE(0),
        .FEEDBK_PATH("CLKOP"), .CLKFB_DIV(2)
    ) pll (
        .RST(1'b0), .STDBY(1'b0), .CLKI(clk_25mhz), .CLKOP(clock), .CLKFB(clock), .CLKINTFB(),
        .PHASESEL0(1'b0), .PHASESEL1(1'b0), .PHASEDIR(1'b1), .PHASESTEP(1'b1), .PHASELOADREG(1'b1),
        .PLLWAKESYNC(1'b0), .ENCLKOP(1'b0), .LOCK(locked)
    );

    // Reset: synchronized button, held 16 clocks after release and until lock.
    reg [1:0] btn_sync = 2'b11;
    reg [4:0] hold = 5'd0;
    always @(posedge clock) begin
        btn_sync <= {btn_sync[0], btn_reset | ~locked};
        if (btn_sync[1]) hold <= 5'd0;
        else if (!hold[4]) hold <= hold + 5'd1;
    end
    wire reset = ~hold[4];

    wire [3:0] status;
    ENGINE_TOP engine (
        .clock(clock),
        .reset(reset),
        .rx(ftdi_txd),
        .tx(ftdi_rxd),
        .leds(status),
        // No NIC on this board: the external packet-metadata streams are idle
        // (CTRL.external stays clear; the on-chip source feeds the cores).
        .x_tx_valid(1'b0), .x_tx_key({KEY_BITS{1'b0}}), .x_tx_ts(40'd0), .x_tx_class(8'd0), .x_tx_flip(1'b0),
        .x_tx_ready(),
        .x_rx_valid(1'b0), .x_rx_key({KEY_BITS{1'b0}}), .x_rx_ts(40'd0), .x_rx_class(8'd0), .x_rx_flip(1'b0),
        .x_rx_ready()
    );
    assign led = {locked, 3'b000, status};
endmodule
`default_nettype wire

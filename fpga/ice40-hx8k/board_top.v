// iCE40-HX8K breakout board top of the netmeas measurement engine: the
// engine runs on the 12 MHz oscillator (3 Mbaud is exactly 4 clocks a bit),
// reset is held for 16 clocks after configuration (the board has no user
// button), the FT2232H serial lines go to the engine's host link and LEDs
// D2-D5 show its status (running, frozen epoch, source waiting, overflow).
// `ENGINE_TOP` is the exported engine's module, `KEY_BITS` its key width.
`default_nettype none
module netmeas_hx8k (
    input  wire       clk_12mhz,
    input  wire       uart_rx,
    output wire       uart_tx,
    output wire [3:0] led
);
    reg [4:0] hold = 5'd0;
    always @(posedge clk_12mhz) if (!hold[4]) hold <= hold + 5'd1;

    ENGINE_TOP engine (
        .clock(clk_12mhz),
        .reset(~hold[4]),
        .rx(uart_rx),
        .tx(uart_tx),
        .leds(led),
        // No NIC on this board: the external packet-metadata streams are idle
        // (CTRL.external stays clear; the on-chip source feeds the cores).
        .x_tx_valid(1'b0), .x_tx_key({KEY_BITS{1'b0}}), .x_tx_ts(40'd0), .x_tx_class(8'd0), .x_tx_flip(1'b0),
        .x_tx_ready(),
        .x_rx_valid(1'b0), .x_rx_key({KEY_BITS{1'b0}}), .x_rx_ts(40'd0), .x_rx_class(8'd0), .x_rx_flip(1'b0),
        .x_rx_ready()
    );
endmodule
`default_nettype wire

// Formal properties of the host link's register bridge (docs/board.md, "Host
// link"; the frames are documented with netmeas_sim::board::link), proven by
// SymbiYosys (reg_bridge.sby) on the exported Verilog of the bridge, renamed
// `dut`. This checker is bound into `dut` (the `bind` at the end; the test
// places the instance in `dut`, Yosys having no `bind`), so it sees the
// bridge's registers beside its ports.
//
// Every input is free: any byte stream (good and bad frames, stray bytes,
// gaps past the timeout), any transmitter back-pressure, any bus answer and
// resets at any time after the first cycle. The checker keeps its own account
// of the request being received: the bytes taken since the sync byte that
// started it, their CRC-16/CCITT-FALSE (a bit-serial function written from
// the standard, not the bridge's XOR network), the command, address and data
// bytes. The bridge must strobe the register bus, and answer "done", only for
// a frame whose CRC checks, with the frame's own command, length, address and
// data; its response bytes keep the stream rule.
`default_nettype none
module reg_bridge_formal (
    input wire clock,
    input wire reset,
    input wire s_valid,
    input wire s_ready,
    input wire [7:0] s_data,
    input wire m_valid,
    input wire m_ready,
    input wire [7:0] m_data,
    input wire bus_re,
    input wire bus_we,
    input wire [15:0] bus_addr,
    input wire [31:0] bus_wdata,
    input wire [1:0] state,
    input wire [1:0] status,
    input wire [3:0] pos,
    input wire [15:0] crc,
    input wire [7:0] cmd,
    input wire [15:0] addr,
    input wire [31:0] wdata
);
    localparam [1:0] HUNT = 2'd0, RECEIVE = 2'd1, EXECUTE = 2'd2, RESPOND = 2'd3;
    localparam [1:0] DONE = 2'd0;
    localparam [7:0] SYNC = 8'h5A, READ = 8'h01, WRITE = 8'h02;

    // CRC-16/CCITT-FALSE of one more byte, most significant bit first.
    function [15:0] crc16_byte(input [15:0] c, input [7:0] b);
        integer i;
        reg [15:0] x;
        begin
            x = c ^ {b, 8'h00};
            for (i = 0; i < 8; i = i + 1) x = x[15] ? {x[14:0], 1'b0} ^ 16'h1021 : {x[14:0], 1'b0};
            crc16_byte = x;
        end
    endfunction

    // The first cycle is a reset.
    reg started = 1'b0;
    always @(posedge clock) started <= 1'b1;
    always @(*) if (!started) assume(reset);

    // The checker's account of the request: bytes taken after its sync byte
    // (f_n), their CRC, and the fields at their frame positions (command at
    // 0, address at 1-2, data word at 3-6, most significant byte first).
    wire take = s_valid && s_ready && !reset;
    wire frame_start = take && state == HUNT && s_data == SYNC;
    wire frame_byte = take && state == RECEIVE;
    reg [3:0] f_n;
    reg [15:0] f_crc;
    reg [7:0] f_cmd;
    reg [15:0] f_addr;
    reg [31:0] f_wdata;
    always @(posedge clock) begin
        if (reset) begin
            f_n <= 0;
            f_crc <= 0;
            f_cmd <= 0;
            f_addr <= 0;
            f_wdata <= 0;
        end else if (frame_start) begin
            f_n <= 0;
            f_crc <= 16'hFFFF;
        end else if (frame_byte) begin
            f_n <= f_n + 1;
            f_crc <= crc16_byte(f_crc, s_data);
            if (f_n == 0) f_cmd <= s_data;
            if (f_n == 1) f_addr[15:8] <= s_data;
            if (f_n == 2) f_addr[7:0] <= s_data;
            if (f_n >= 3 && f_n <= 6) f_wdata <= {f_wdata[23:0], s_data};
        end
    end
    // A whole frame with a good CRC: a read is 5 bytes after the sync byte,
    // a write 9.
    wire f_good = f_crc == 16'h0000 &&
        ((f_cmd == READ && f_n == 5) || (f_cmd == WRITE && f_n == 9));

    // The register bus is strobed only for a good frame, with its fields.
    always @(*) if (started && !reset) begin
        if (bus_re) begin
            assert(f_good && f_cmd == READ);
            assert(bus_addr == f_addr);
        end
        if (bus_we) begin
            assert(f_good && f_cmd == WRITE);
            assert(bus_addr == f_addr);
            assert(bus_wdata == f_wdata);
        end
        assert(!(bus_re && bus_we));
    end

    // A "done" response only for a good frame (a read-out acknowledged only
    // when its request checked).
    always @(*) if (started && state == RESPOND && status == DONE) assert(f_good);

    // The bridge's registers agree with the account (inductive strengthening).
    always @(*) if (started) begin
        assert(cmd == f_cmd);
        assert(addr == f_addr);
        assert(wdata == f_wdata);
        if (state == RECEIVE) begin
            assert(pos == f_n);
            assert(crc == f_crc);
            assert(f_n <= (f_n == 0 || f_cmd != WRITE ? 4 : 8));
        end
        if (state == EXECUTE) assert(f_good);
    end

    // s_ready is high exactly while hunting or receiving.
    always @(*) if (started) assert(s_ready == (state == HUNT || state == RECEIVE));

    // The stream rule on the response bytes: a presented byte stays,
    // unchanged, until taken.
    always @(posedge clock) if (started && !$past(reset) && !reset && $past(m_valid && !m_ready)) begin
        assert(m_valid);
        assert(m_data == $past(m_data));
    end

    // Not vacuous: a write is strobed and a read is answered "done".
    always @(*) cover(started && !reset && bus_we);
    always @(*) cover(started && !reset && state == RESPOND && status == DONE && f_cmd == READ && m_valid && m_ready && pos == 7);
endmodule

bind dut reg_bridge_formal checker_inst (
    .clock(clock),
    .reset(reset),
    .s_valid(s_valid),
    .s_ready(s_ready),
    .s_data(s_data),
    .m_valid(m_valid),
    .m_ready(m_ready),
    .m_data(m_data),
    .bus_re(bus_re),
    .bus_we(bus_we),
    .bus_addr(bus_addr),
    .bus_wdata(bus_wdata),
    .state(state$q),
    .status(status$q),
    .pos(pos$q),
    .crc(crc$q),
    .cmd(cmd$q),
    .addr(addr$q),
    .wdata(wdata$q)
);
`default_nettype wire

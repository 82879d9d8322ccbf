// The part of the bus slaves' testbenches that does not depend on the bus
// (included inside netmeas_axil_slave_tb and netmeas_wb_slave_tb, after
// the map, NS, clk and rst): the register block and its signals, the
// model of the map, the core's side of the register port, the point's
// status and flag inputs, and the checks.

// ------------------------------------------------ the register block
localparam integer NC = N_CMDS > 0 ? N_CMDS : 1;

wire                  acc_valid;
wire                  acc_we;
wire [ADDR_WIDTH-1:0] acc_addr;
wire [31:0]           acc_wdata;
wire [3:0]            acc_wstrb;
wire                  rsp_valid;
wire                  rsp_err;
wire [31:0]           rsp_rdata;

wire                     csr_we;
wire                     csr_re;
wire [CSR_ADDR_BITS-1:0] csr_addr;
wire [CSR_DATA_BITS-1:0] csr_wdata;
reg  [31:0]              csr_rdata = 32'd0;
reg  [32*NS-1:0]         status_words = 0;
reg  [N_FLAGS-1:0]       flag_set = 0;
wire [N_FLAGS-1:0]       flags;
wire [NC-1:0]            cmd_pulse;
wire [32*(N_CONFIG > 0 ? N_CONFIG : 1)-1:0] config_words;

netmeas_tb_regs regs (
    .clk(clk), .rst(rst),
    .acc_valid(acc_valid), .acc_we(acc_we), .acc_addr(acc_addr), .acc_wdata(acc_wdata), .acc_wstrb(acc_wstrb),
    .rsp_valid(rsp_valid), .rsp_err(rsp_err), .rsp_rdata(rsp_rdata),
    .csr_we(csr_we), .csr_re(csr_re), .csr_addr(csr_addr), .csr_wdata(csr_wdata), .csr_rdata(csr_rdata),
    .status_words(status_words), .flag_set(flag_set), .flags(flags), .cmd_pulse(cmd_pulse),
    .config_words(config_words)
);

// The point's configuration words, as the block drives them, against the model.
task check_config_words;
    integer q;
    begin
        for (q = 0; q < MAP_COUNT; q = q + 1) begin
            if (map_kind(map_addr(q)) == 7
                    && config_words[32*map_config(map_addr(q)) +: 32] !== model[map_addr(q) >> 2])
                fail("a configuration word's output differs from what was written");
        end
    end
endtask

// Random numbers: xorshift32, one state per stream (0 the master's choices,
// 1..5 the AXI channels' timing), the same sequence in every simulator.
reg [31:0] prng [0:5];

`include "netmeas_tb_xorshift.vh"

function [31:0] rnd(input integer stream);
    begin
        prng[stream] = xorshift32(prng[stream]);
        rnd = prng[stream];
    end
endfunction
integer clocks = 0;
integer writes = 0;
integer reads = 0;
integer errors = 0;

task fail(input [8*72-1:0] what);
    begin
        $display("FAIL %0s (writes=%0d reads=%0d at %0t ns)", what, writes, reads, $time);
        $fatal(1);
    end
endtask

function chance(input integer pct, input integer draw);
    chance = ($unsigned(draw) % 100) < pct;
endfunction

// ----------------------------------------------------- the core's side
// What a read-only core word shows: a function of its address, only in the
// clock after csr_re (junk otherwise, so a late sample is caught).
function [31:0] ro_word(input [31:0] w);
    ro_word = 32'h5eed0000 ^ (w * 32'h01000193);
endfunction

localparam integer CORE_WORDS = 1 << CSR_ADDR_BITS;
reg [31:0] core_held [0:CORE_WORDS-1];      // the last csr_wdata per word
integer    core_we [0:CORE_WORDS-1];        // csr_we pulses per word
integer    core_re = 0;                     // csr_re pulses
reg [31:0] want_core_held [0:CORE_WORDS-1];
integer    want_core_we [0:CORE_WORDS-1];
integer    want_core_re = 0;
integer    cmd_seen [0:NC-1];               // cmd_pulse pulses per command
integer    want_cmd [0:NC-1];
integer    cmd_k;
integer    cmd_i;

always @(posedge clk) begin
    if (!rst) clocks = clocks + 1;
    for (cmd_k = 0; cmd_k < NC; cmd_k = cmd_k + 1) if (cmd_pulse[cmd_k]) cmd_seen[cmd_k] = cmd_seen[cmd_k] + 1;
    if (csr_we) begin
        core_held[csr_addr] = {{(32-CSR_DATA_BITS){1'b0}}, csr_wdata};
        core_we[csr_addr] = core_we[csr_addr] + 1;
    end
    if (csr_re) begin
        core_re = core_re + 1;
        csr_rdata <= ro_word({{(32-CSR_ADDR_BITS){1'b0}}, csr_addr});
    end else begin
        csr_rdata <= ~ro_word({{(32-CSR_ADDR_BITS){1'b0}}, csr_addr}) ^ clocks;
    end
end

// ------------------------------------------------------------ the model
reg [31:0]        model [0:(1 << (ADDR_WIDTH - 2))-1];   // configuration words as held
reg [N_FLAGS-1:0] flags_model;
integer           k;

function [31:0] mask_of(input integer bits);
    mask_of = bits >= 32 ? 32'hffffffff : (32'd1 << bits) - 32'd1;
endfunction

function [31:0] strobe_mask(input [3:0] s);
    strobe_mask = {{8{s[3]}}, {8{s[2]}}, {8{s[1]}}, {8{s[0]}}};
endfunction

function read_ok(input [31:0] a);
    read_ok = a[1:0] == 2'b00 && map_kind(a) != 0;
endfunction

function write_ok(input [31:0] a);
    write_ok = a[1:0] == 2'b00
        && (map_kind(a) == 1 || map_kind(a) == 2 || map_kind(a) == 5 || map_kind(a) == 6 || map_kind(a) == 7);
endfunction

function [31:0] read_expect(input [31:0] a);
    begin
        read_expect = 32'd0;
        if (read_ok(a)) begin
            case (map_kind(a))
            1, 7: read_expect = model[a[ADDR_WIDTH-1:2]];
            3: read_expect = ro_word(a >> 2);
            4: read_expect = status_words[32*map_status(a) +: 32];
            5: read_expect = {{(32-N_FLAGS){1'b0}}, flags_model};
            default: read_expect = 32'd0;
            endcase
        end
    end
endfunction

task model_reset;
    begin
        for (k = 0; k < (1 << (ADDR_WIDTH - 2)); k = k + 1) model[k] = map_reset(k * 4);
        for (k = 0; k < CORE_WORDS; k = k + 1) begin
            core_held[k] = 32'd0;
            core_we[k] = 0;
            want_core_held[k] = 32'd0;
            want_core_we[k] = 0;
        end
        flags_model = 0;
        for (k = 0; k < NC; k = k + 1) begin
            cmd_seen[k] = 0;
            want_cmd[k] = 0;
        end
        for (k = 0; k < 6; k = k + 1) prng[k] = 32'h9e3779b9 * (seed * 8 + k + 1) | 32'd1;
        for (k = 0; k < NS; k = k + 1) status_words[32*k +: 32] = rnd(0);
    end
endtask

// The effect of an accepted write.
task model_write(input [31:0] a, input [31:0] d, input [3:0] s);
    reg [31:0] m;
    reg [31:0] merged;
    begin
        writes = writes + 1;
        m = strobe_mask(s);
        if (!write_ok(a)) begin
            errors = errors + 1;
        end else begin
            case (map_kind(a))
            1: begin
                merged = (model[a[ADDR_WIDTH-1:2]] & ~m) | (d & m);
                model[a[ADDR_WIDTH-1:2]] = merged & mask_of({26'd0, map_bits(a)});
                want_core_we[a >> 2] = want_core_we[a >> 2] + 1;
                want_core_held[a >> 2] = merged & mask_of(CSR_DATA_BITS);
            end
            2: begin
                want_core_we[a >> 2] = want_core_we[a >> 2] + 1;
                want_core_held[a >> 2] = d & m & mask_of(CSR_DATA_BITS);
            end
            7: begin
                merged = (model[a[ADDR_WIDTH-1:2]] & ~m) | (d & m);
                model[a[ADDR_WIDTH-1:2]] = merged & mask_of({26'd0, map_bits(a)});
            end
            5: flags_model = flags_model & ~(d[N_FLAGS-1:0] & m[N_FLAGS-1:0]);
            6: if (d[0] && s[0]) begin
                cmd_i = {24'd0, map_cmd(a)};
                want_cmd[cmd_i] = want_cmd[cmd_i] + 1;
            end
            default: ;
            endcase
        end
    end
endtask

// A read made (accepted by the slave): a read-only core word pulses csr_re.
task read_made(input [31:0] a);
    begin
        if (read_ok(a) && map_kind(a) == 3) want_core_re = want_core_re + 1;
    end
endtask

// A read's answer against what was expected when it was made.
task check_read(input [31:0] a, input [31:0] got, input okay, input legal, input [31:0] want, input want_ok);
    begin
        reads = reads + 1;
        if (!legal) fail("an answer that is neither OKAY nor an error");
        if (okay !== want_ok) begin
            $display("FAIL read of 0x%0h answered %0s", a, okay ? "OKAY" : "with an error");
            fail("wrong read response");
        end
        if (!okay) errors = errors + 1;
        if (got !== (okay ? want : 32'd0)) begin
            $display("FAIL read of 0x%0h gave 0x%0h, 0x%0h expected", a, got, okay ? want : 32'd0);
            fail("wrong read data");
        end
    end
endtask

// A random address: mostly mapped words, some misaligned, some anywhere.
task pick_addr(output [31:0] a);
    integer r;
    begin
        r = $unsigned(rnd(0)) % 100;
        a = map_addr($unsigned(rnd(0)) % MAP_COUNT);
        if (r >= 60 && r < 75) a = a + 1 + $unsigned(rnd(0)) % 3;
        if (r >= 75) a = ($unsigned(rnd(0)) % (1 << (ADDR_WIDTH - 2))) * 4;
    end
endtask

// Between rounds: the core's port checked against the model, then maybe
// flags raised and status words changed.
task round_end;
    reg [N_FLAGS-1:0] set;
    begin
        @(negedge clk);
        for (k = 0; k < CORE_WORDS; k = k + 1) begin
            if (core_we[k] != want_core_we[k]) begin
                $display("FAIL core word %0d written %0d times, %0d expected", k, core_we[k], want_core_we[k]);
                fail("the core's register port saw a wrong number of writes");
            end
            if (core_held[k] !== want_core_held[k]) begin
                $display("FAIL core word %0d holds 0x%0h, 0x%0h expected", k, core_held[k], want_core_held[k]);
                fail("the core's register port saw a wrong value");
            end
        end
        if (core_re != want_core_re) fail("the core's read strobe pulsed a wrong number of times");
        for (k = 0; k < NC; k = k + 1) begin
            if (cmd_seen[k] != want_cmd[k]) begin
                $display("FAIL command %0d pulsed %0d times, %0d expected", k, cmd_seen[k], want_cmd[k]);
                fail("a command pulsed a wrong number of times");
            end
        end
        if (flags !== flags_model) fail("the flags differ from the model");
        if (($unsigned(rnd(0)) % 100) < 30) begin
            k = rnd(0);
            set = k[N_FLAGS-1:0];
            flag_set = set;
            flags_model = flags_model | set;
            @(negedge clk);
            flag_set = 0;
        end
        if (($unsigned(rnd(0)) % 100) < 20) begin
            k = $unsigned(rnd(0)) % NS;
            status_words[32*k +: 32] = rnd(0);
        end
    end
endtask

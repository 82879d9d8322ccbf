// One stream of random draws for a testbench: `prng` (seed it with a
// non-zero value) and rnd(0), its next xorshift32 step. Included by the
// point's testbenches that draw from one stream.
reg [31:0] prng = 32'h1;

`include "netmeas_tb_xorshift.vh"

function [31:0] rnd(input integer unused);
    begin
        prng = xorshift32(prng);
        rnd = prng;
    end
endfunction

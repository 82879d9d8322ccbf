// The testbenches' random draws: Marsaglia's xorshift32 (13, 17, 5), the
// step of a non-zero 32-bit state. Included by the point's testbenches.
function [31:0] xorshift32(input [31:0] s);
    reg [31:0] x;
    begin
        x = s;
        x = x ^ (x << 13);
        x = x ^ (x >> 17);
        x = x ^ (x << 5);
        xorshift32 = x;
    end
endfunction

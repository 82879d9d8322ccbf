// Frame parser body (`hdl/src/frame/frame_parser.rs` puts the module's ports
// and these localparams in front of it):
//   DB, KB, SLOTS   data bits, keep bits (bytes) per beat, beats in the 128-byte window
//   TS_TUSER        1: timestamp from s_axis_tuser[64:1]; 0: from time_ns
//   FLOW_Q_j        H3 columns of the flow ID (104 key bits -> 32)
//   MATCH_Q_j       H3 columns of the match ID (128 bits -> 32)
//
// One frame's outcome per frame, FRAME_PARSER_LATENCY (13) clocks after its
// last beat; one beat taken every clock (s_axis_tready is always high).
//
//   capture  the first 128 bytes of the frame (bytes past its end zero; each
//            beat lands in the window a clock after it is taken), its length,
//            the MAC's bad flag and AXI4-Stream byte-rule breaks, the
//            timestamp of its first beat
//   A1, A2   Ethernet and VLAN tags: every type and length compared at once,
//            then where the IP header starts; its 44 bytes
//   B1, B2   IPv4 header, or IPv6 header and its first extension header:
//            every check at once, then the first that failed
//   C1-C3    IPv6 second extension header's bytes, its checks at once, then
//            the first that failed and where the transport header starts
//   D        the transport header's 20 bytes
//   E1, E2   TCP / UDP / DNS fields and checks, then role, number, reason
//   F        H3 flow ID and match ID; the outputs
//
// Reasons (stat_reason - 1, as netmeas_sim::frame::Unparsed): 0 bad frame,
// 1 truncated, 2 not IP, 3 too many VLAN tags, 4 bad IP header, 5 length
// mismatch, 6 IPv6 extension chain, 7 bad TCP/UDP header.

localparam integer WIN = 1024;
localparam [2:0] R_BAD = 3'd0, R_TRUNC = 3'd1, R_NOT_IP = 3'd2, R_VLANS = 3'd3,
                 R_BAD_IP = 3'd4, R_LENGTH = 3'd5, R_CHAIN = 3'd6, R_BAD_L4 = 3'd7;
// The latest frame offset a transport header may start at (its 20 bytes in the window).
localparam [11:0] MAX_L4 = 12'd108;
// The window's bytes from 34 (the earliest transport header) on.
localparam integer TAIL = WIN - 8 * 34;

integer i;
integer j;

// The tap never slows the link.
initial s_axis_tready = 1'b1;
always @(posedge clock) s_axis_tready <= 1'b1;

// ---------------------------------------------------------------- capture
reg [WIN-1:0] win = {WIN{1'b0}};
reg           in_frame = 1'b0;
reg [7:0]     beat = 8'd0;        // beats of the frame so far, up to SLOTS
reg [15:0]    len = 16'd0;        // bytes so far
reg           too_long = 1'b0;    // more than 65 535 bytes
reg           broken = 1'b0;      // a beat broke the byte rules
reg [63:0]    ts = 64'd0;
reg           done0 = 1'b0;       // the frame's last beat was taken at the last edge
reg           done_bad = 1'b0;

wire          first = !in_frame;
wire [KB:0]   keep_ext = {1'b0, s_axis_tkeep};
wire [KB-1:0] keep_plus = s_axis_tkeep + {{(KB-1){1'b0}}, 1'b1};
// Lanes 0..n-1 (n >= 1) on the last beat, every lane before it.
wire          keep_ok = s_axis_tlast ? (s_axis_tkeep[0] && (s_axis_tkeep & keep_plus) == {KB{1'b0}})
                                     : (s_axis_tkeep == {KB{1'b1}});
reg  [7:0]    tail_bytes;
reg  [DB-1:0] masked;
always @(*) begin
    tail_bytes = 8'd0;
    for (i = 0; i < KB; i = i + 1)
        if (keep_ext[i] && !keep_ext[i + 1]) tail_bytes = tail_bytes | (i[7:0] + 8'd1);
    for (i = 0; i < KB; i = i + 1)
        masked[8 * i +: 8] = s_axis_tkeep[i] ? s_axis_tdata[8 * i +: 8] : 8'd0;
end
wire [7:0]  nbytes = !keep_ok ? 8'd0 : s_axis_tlast ? tail_bytes : KB8;
wire [7:0]  slot = first ? 8'd0 : beat;
wire [16:0] len_sum = (first ? 17'd0 : {1'b0, len}) + {9'd0, nbytes};
wire        long_next = (first ? 1'b0 : too_long) | len_sum[16];
wire        broken_next = (first ? 1'b0 : broken) | !keep_ok;

always @(posedge clock) begin
    done0 <= 1'b0;
    if (reset) begin
        in_frame <= 1'b0;
    end else if (s_axis_tvalid) begin
        beat <= (slot == SLOTS8) ? slot : slot + 8'd1;
        len <= len_sum[15:0];
        too_long <= long_next;
        broken <= broken_next;
        if (first) ts <= TS_TUSER ? s_axis_tuser[64:1] : time_ns;
        in_frame <= !s_axis_tlast;
        done0 <= s_axis_tlast;
        done_bad <= broken_next | long_next | s_axis_tuser[0];
    end
end

// The window is written one clock behind the beat, by a load and a clear
// enable per slot from registers of their own: each drives one slot's DB
// flip-flops instead of one input driving all of them.
reg [SLOTS-1:0] w_load = {SLOTS{1'b0}}, w_clear = {SLOTS{1'b0}};
reg [DB-1:0]    w_data = {DB{1'b0}};
always @(posedge clock) begin
    w_data <= masked;
    for (j = 0; j < SLOTS; j = j + 1) begin
        w_load[j] <= !reset && s_axis_tvalid && slot == j[7:0];
        w_clear[j] <= !reset && s_axis_tvalid && first && slot != j[7:0];
    end
    for (j = 0; j < SLOTS; j = j + 1)
        if (w_load[j]) win[j * DB +: DB] <= w_data;
        else if (w_clear[j]) win[j * DB +: DB] <= {DB{1'b0}};
end

// The frame's length, flags and time, held while stage A reads the window
// (the next frame's first beat may already be counting).
reg           done = 1'b0;        // the window holds a whole frame this clock
reg  [15:0]   f_len = 16'd0;
reg  [63:0]   f_ts = 64'd0;
reg           f_bad = 1'b0;
always @(posedge clock) begin
    done <= done0 && !reset;
    {f_len, f_ts, f_bad} <= {len, ts, done_bad};
end

// ---------------------------------------------------------------- A: Ethernet
function [15:0] be16w(input [WIN-1:0] w, input integer o);
    be16w = {w[8 * o +: 8], w[8 * o + 8 +: 8]};
endfunction
function is_vlan(input [15:0] t);
    is_vlan = t == 16'h8100 || t == 16'h88a8;
endfunction

function is_ip(input [15:0] t);
    is_ip = t == 16'h0800 || t == 16'h86dd;
endfunction

// A1: every comparison of the Ethernet header at once, from the window of the
// clock it holds the whole frame; the window from byte 14 on kept for A2.
wire [15:0] t0 = be16w(win, 12), t1 = be16w(win, 16), t2 = be16w(win, 20);
reg             a1_valid = 1'b0, a1_bad = 1'b0;
reg  [2:0]      a1_vlan = 3'd0;    // bit k: the type at byte 12 + 4k is a VLAN tag
reg  [2:0]      a1_ip = 3'd0;      // ... is IPv4 or IPv6
reg  [2:0]      a1_v6 = 3'd0;      // ... is IPv6
reg  [2:0]      a1_short = 3'd0;   // the frame is shorter than 14 + 4k bytes
reg  [1:0]      a1_sel = 2'd0;     // tags before the IP header if the frame is IP (0, 1, 2)
reg  [15:0]     a1_avail0 = 16'd0, a1_avail1 = 16'd0, a1_avail2 = 16'd0;   // its length - 14 - 4k
reg  [15:0]     a1_len = 16'd0;
reg  [63:0]     a1_ts = 64'd0;
reg  [WIN-113:0] a1_win = {(WIN-112){1'b0}};
always @(posedge clock) begin
    a1_valid <= done && !reset;
    a1_bad <= f_bad;
    a1_vlan <= {is_vlan(t2), is_vlan(t1), is_vlan(t0)};
    a1_ip <= {is_ip(t2), is_ip(t1), is_ip(t0)};
    a1_v6 <= {t2 == 16'h86dd, t1 == 16'h86dd, t0 == 16'h86dd};
    a1_sel <= !is_vlan(t0) ? 2'd0 : !is_vlan(t1) ? 2'd1 : 2'd2;
    a1_short <= {f_len < 16'd22, f_len < 16'd18, f_len < 16'd14};
    a1_avail0 <= f_len - 16'd14;
    a1_avail1 <= f_len - 16'd18;
    a1_avail2 <= f_len - 16'd22;
    a1_len <= f_len;
    a1_ts <= f_ts;
    a1_win <= win[WIN-1 : 112];
end

// A2: the tags' decision from those flags, and the IP header's 44 bytes.
// The bytes are selected by a1_sel, a register: where the IP header starts
// if the frame is IP, which is all that matters when the decision finds no
// error (an error's record is never shown).
reg         eth_err;
reg  [2:0]  eth_code;
always @(*) begin
    eth_err = 1'b0;
    eth_code = R_BAD;
    if (a1_bad) begin
        eth_err = 1'b1;
    end else if (a1_short[0]) begin
        {eth_err, eth_code} = {1'b1, R_TRUNC};
    end else if (a1_vlan[0]) begin
        if (a1_short[1]) begin
            {eth_err, eth_code} = {1'b1, R_TRUNC};
        end else if (a1_vlan[1]) begin
            if (a1_short[2]) begin
                {eth_err, eth_code} = {1'b1, R_TRUNC};
            end else if (a1_vlan[2]) begin
                {eth_err, eth_code} = {1'b1, R_VLANS};
            end
        end
    end
    if (!eth_err && !a1_ip[a1_sel])
        {eth_err, eth_code} = {1'b1, R_NOT_IP};
end

reg           a_valid = 1'b0, a_err = 1'b0, a_v6 = 1'b0;
reg  [2:0]    a_code = 3'd0;
reg  [351:0]  a_l3 = 352'd0;      // 44 bytes from the IP header on
reg  [11:0]   a_l3off = 12'd0;
reg  [11:0]   a_at48 = 12'd0;     // a_l3off + 48: past the IPv6 header and 8 bytes of an extension header
reg  [11:0]   a_room48 = 12'd0;   // MAX_L4 - a_at48: the room those leave
reg  [15:0]   a_avail = 16'd0;    // frame bytes from the IP header on
reg  [15:0]   a_len = 16'd0;
reg  [63:0]   a_ts = 64'd0;
reg  [TAIL-1:0] a_tail = {TAIL{1'b0}};
always @(posedge clock) begin
    a_valid <= a1_valid && !reset;
    a_err <= eth_err;
    a_code <= eth_code;
    a_v6 <= a1_v6[a1_sel];
    // a1_win starts at byte 14: the IP header at 14, 18 or 22.
    a_l3 <= a1_sel == 2'd0 ? a1_win[0 +: 352] : a1_sel == 2'd1 ? a1_win[8 * 4 +: 352] : a1_win[8 * 8 +: 352];
    a_l3off <= 12'd14 + {8'd0, a1_sel, 2'b00};
    a_at48 <= 12'd62 + {8'd0, a1_sel, 2'b00};
    a_room48 <= MAX_L4 - 12'd62 - {8'd0, a1_sel, 2'b00};
    a_avail <= a1_sel == 2'd0 ? a1_avail0 : a1_sel == 2'd1 ? a1_avail1 : a1_avail2;
    a_len <= a1_len;
    a_ts <= a1_ts;
    a_tail <= a1_win[WIN-113 : 8 * 20];
end

// ---------------------------------------------------------------- B1: IP header, every check at once
// Functions take the vector they read as an argument: a continuous assignment
// is re-evaluated when its function's arguments change, not what it reads.
function [7:0] l3b(input [351:0] l3, input integer k);
    l3b = l3[8 * k +: 8];
endfunction
function [31:0] l3w(input [351:0] l3, input integer k);
    l3w = {l3[8 * k +: 8], l3[8 * k + 8 +: 8], l3[8 * k + 16 +: 8], l3[8 * k + 24 +: 8]};
endfunction
function is_ext(input [7:0] n);
    is_ext = n == 8'd0 || n == 8'd43 || n == 8'd44 || n == 8'd60;
endfunction

wire [7:0]  l3b0 = l3b(a_l3, 0);
wire [3:0]  v4_ihlw = l3b0[3:0];
wire [15:0] v4_ihl = {10'd0, v4_ihlw, 2'b00};
wire [15:0] v4_total = {l3b(a_l3, 2), l3b(a_l3, 3)};
wire [15:0] v4_frag = {l3b(a_l3, 6), l3b(a_l3, 7)};
wire [15:0] v6_plen = {l3b(a_l3, 4), l3b(a_l3, 5)};
wire [16:0] v6_end = 17'd40 + {1'b0, v6_plen};        // from the IP header's start
wire [31:0] v6_word = l3w(a_l3, 0);
wire [7:0]  v6_next = l3b(a_l3, 6);
wire [15:0] e1_frag = {l3b(a_l3, 42), l3b(a_l3, 43)};
// The first extension header is 8 bytes (a fragment header) or 8 x (its
// length byte + 1): what follows it is computed with one adder each, the
// header's 8 bytes taken in a_at48 and a_room48, and x - (b + 1) as x + ~b
// (14 bits: negative when the payload cannot hold the header).
wire        e1_frag_hdr = v6_next == 8'd44;
wire [7:0]  e1_lenb = l3b(a_l3, 41);
wire [13:0] e1_left8 = e1_frag_hdr ? {1'b0, v6_plen[15:3]} - 14'd1 : {1'b0, v6_plen[15:3]} + {6'h3f, ~e1_lenb};
wire [12:0] e1_room = e1_frag_hdr ? {1'b0, a_room48} : {1'b0, a_room48} - {2'd0, e1_lenb, 3'b000};

// Per version: the checks in the reference's order, the header's fields and
// the candidates of what follows (frame offset of the next header, IP
// bytes after it, room left before MAX_L4).
reg          p_err, p_short, p_badhdr, p_badlen, p_e1, p_e1_trunc, p_e1_far;
reg  [2:0]   p_code;
reg  [7:0]   p_proto, p_e1_next;
reg  [11:0]  p_at, p_at1;
reg  [15:0]  p_rest, p_rest1;
reg  [11:0]  p_room, p_room1;
reg          p_first, p_whole, p_first1, p_whole1;
reg  [31:0]  p_src = 32'd0, p_dst = 32'd0;
reg  [15:0]  p_id = 16'd0, p_len = 16'd0;
reg  [7:0]   p_class = 8'd0;
reg  [63:0]  p_ts = 64'd0;
reg  [TAIL-1:0] p_tail = {TAIL{1'b0}};
reg          p_valid = 1'b0;
initial begin
    {p_err, p_short, p_badhdr, p_badlen, p_e1, p_e1_trunc, p_e1_far} = 7'd0;
    {p_code, p_proto, p_e1_next, p_at, p_at1, p_rest, p_rest1, p_room, p_room1} = 99'd0;
    {p_first, p_whole, p_first1, p_whole1} = 4'd0;
end
always @(posedge clock) begin
    p_valid <= a_valid && !reset;
    {p_err, p_code} <= {a_err, a_code};
    if (!a_v6) begin
        p_short <= a_avail < 16'd20;
        p_badhdr <= l3b0[7:4] != 4'd4 || v4_ihlw < 4'd5;
        p_badlen <= v4_total < v4_ihl || v4_total > a_avail;
        p_proto <= l3b(a_l3, 9);
        p_at <= a_l3off + v4_ihl[11:0];
        p_rest <= v4_total - v4_ihl;
        p_room <= MAX_L4 - a_l3off - v4_ihl[11:0];
        p_first <= v4_frag[12:0] == 13'd0;
        p_whole <= v4_frag[12:0] == 13'd0 && !v4_frag[13];
        p_e1 <= 1'b0;
        p_src <= l3w(a_l3, 12);
        p_dst <= l3w(a_l3, 16);
        p_id <= {l3b(a_l3, 4), l3b(a_l3, 5)};
        p_class <= l3b(a_l3, 1);
    end else begin
        p_short <= a_avail < 16'd40;
        p_badhdr <= l3b0[7:4] != 4'd6;
        p_badlen <= v6_end > {1'b0, a_avail};
        p_proto <= v6_next;
        p_at <= a_l3off + 12'd40;
        p_rest <= v6_plen;
        p_room <= MAX_L4 - a_l3off - 12'd40;
        p_first <= 1'b1;
        p_whole <= 1'b1;
        p_e1 <= is_ext(v6_next);
        p_src <= l3w(a_l3, 8) ^ l3w(a_l3, 12) ^ l3w(a_l3, 16) ^ l3w(a_l3, 20);
        p_dst <= l3w(a_l3, 24) ^ l3w(a_l3, 28) ^ l3w(a_l3, 32) ^ l3w(a_l3, 36);
        p_id <= v6_word[15:0] ^ {12'd0, v6_word[19:16]};
        p_class <= v6_word[27:20];
    end
    // The first extension header (IPv6): the packet must hold its 8 bytes and
    // its length, and it must end by MAX_L4.
    p_e1_trunc <= v6_plen[15:3] == 13'd0 || e1_left8[13];
    p_e1_far <= e1_room[12];
    p_e1_next <= l3b(a_l3, 40);
    p_at1 <= e1_frag_hdr ? a_at48 : a_at48 + {1'b0, e1_lenb, 3'b000};
    p_rest1 <= {e1_left8[12:0], v6_plen[2:0]};
    p_room1 <= e1_room[11:0];
    p_first1 <= e1_frag_hdr ? e1_frag[15:3] == 13'd0 : 1'b1;
    p_whole1 <= e1_frag_hdr ? e1_frag[15:3] == 13'd0 && !e1_frag[0] : 1'b1;
    {p_len, p_ts, p_tail} <= {a_len, a_ts, a_tail};
end

// ---------------------------------------------------------------- B2: IP header, the first failed check
reg         ip_err;
reg  [2:0]  ip_code;
reg         ip_ext1;
always @(*) begin
    {ip_err, ip_code} = {p_err, p_code};
    ip_ext1 = 1'b0;
    if (!p_err) begin
        if (p_short) {ip_err, ip_code} = {1'b1, R_TRUNC};
        else if (p_badhdr) {ip_err, ip_code} = {1'b1, R_BAD_IP};
        else if (p_badlen) {ip_err, ip_code} = {1'b1, R_LENGTH};
        else if (p_e1) begin
            if (p_e1_trunc) {ip_err, ip_code} = {1'b1, R_TRUNC};
            else if (p_e1_far) {ip_err, ip_code} = {1'b1, R_CHAIN};
            else ip_ext1 = 1'b1;
        end
    end
end

reg          b_valid = 1'b0, b_err = 1'b0, b_first = 1'b0, b_whole = 1'b0, b_ext2 = 1'b0;
reg  [2:0]   b_code = 3'd0;
reg  [7:0]   b_proto = 8'd0;
reg  [6:0]   b_pos = 7'd0;        // next header's offset in the tail (frame offset - 34)
reg  [15:0]  b_rest = 16'd0;      // IP bytes from the next header on
reg  [11:0]  b_room = 12'd0;      // bytes the next header may take before MAX_L4
reg  [31:0]  b_src = 32'd0, b_dst = 32'd0;
reg  [15:0]  b_id = 16'd0, b_len = 16'd0;
reg  [7:0]   b_class = 8'd0;
reg  [63:0]  b_ts = 64'd0;
reg  [TAIL-1:0] b_tail = {TAIL{1'b0}};
always @(posedge clock) begin
    b_valid <= p_valid && !reset;
    {b_err, b_code} <= {ip_err, ip_code};
    // Without an error the next header starts in 34..108.
    if (ip_ext1) begin
        b_proto <= p_e1_next;
        b_pos <= p_at1[6:0] - 7'd34;
        {b_rest, b_room, b_first, b_whole} <= {p_rest1, p_room1, p_first1, p_whole1};
        b_ext2 <= is_ext(p_e1_next);
    end else begin
        b_proto <= p_proto;
        b_pos <= p_at[6:0] - 7'd34;
        {b_rest, b_room, b_first, b_whole} <= {p_rest, p_room, p_first, p_whole};
        b_ext2 <= 1'b0;
    end
    {b_src, b_dst, b_id, b_class, b_len, b_ts, b_tail} <= {p_src, p_dst, p_id, p_class, p_len, p_ts, p_tail};
end

// ---------------------------------------------------------------- C1: second IPv6 extension header's bytes
// Header offsets are 2 mod 4 (14, 18 or 22 plus multiples of 4 and 8): b_pos
// is a multiple of 4, and the second extension header starts in 62..108.
reg          q_valid = 1'b0, q_err = 1'b0, q_first = 1'b0, q_whole = 1'b0, q_ext2 = 1'b0;
reg  [2:0]   q_code = 3'd0;
reg  [7:0]   q_proto = 8'd0;
reg  [6:0]   q_pos = 7'd0, q_pos8 = 7'd0;
reg  [15:0]  q_rest = 16'd0, q_rest8 = 16'd0;   // rest, and rest - 8
reg  [11:0]  q_room8 = 12'd0;                   // room - 8
reg          q_rest_lt8 = 1'b0, q_room_lt8 = 1'b0, q_frag_hdr = 1'b0;
reg  [31:0]  q_e2 = 32'd0;
reg  [31:0]  q_src = 32'd0, q_dst = 32'd0;
reg  [15:0]  q_id = 16'd0, q_len = 16'd0;
reg  [7:0]   q_class = 8'd0;
reg  [63:0]  q_ts = 64'd0;
reg  [TAIL-1:0] q_tail = {TAIL{1'b0}};
wire [4:0]   b_word = b_pos[6:2];
always @(posedge clock) begin
    q_valid <= b_valid && !reset;
    {q_err, q_code, q_proto, q_pos, q_rest, q_first, q_whole, q_ext2} <=
        {b_err, b_code, b_proto, b_pos, b_rest, b_first, b_whole, b_ext2};
    // An extension header is 8 bytes, or 8 + 8 x its length byte: compared below
    // without an adder in the way.
    q_pos8 <= b_pos + 7'd8;
    q_rest8 <= b_rest - 16'd8;
    q_rest_lt8 <= b_rest < 16'd8;
    q_room8 <= b_room - 12'd8;
    q_room_lt8 <= b_room < 12'd8;
    q_frag_hdr <= b_proto == 8'd44;
    q_e2 <= b_word < 5'd23 ? b_tail[32 * b_word +: 32] : 32'd0;
    {q_src, q_dst, q_id, q_class, q_len, q_ts, q_tail} <= {b_src, b_dst, b_id, b_class, b_len, b_ts, b_tail};
end

// ---------------------------------------------------------------- C2: second IPv6 extension header, every check at once
wire [7:0]  e2_next = q_e2[7:0];
wire [15:0] e2_more = q_frag_hdr ? 16'd0 : {5'd0, q_e2[15:8], 3'b000};   // length - 8
wire [15:0] e2_frag = {q_e2[23:16], q_e2[31:24]};
wire [6:0]  e2_pos = q_pos8 + e2_more[6:0];

reg          r_valid = 1'b0, r_err = 1'b0, r_first = 1'b0, r_whole = 1'b0, r_ext2 = 1'b0;
reg  [2:0]   r_code = 3'd0;
reg  [7:0]   r_proto = 8'd0, r_next = 8'd0;
reg          r_rest_lt8 = 1'b0, r_past_rest = 1'b0, r_past_room = 1'b0, r_next_ext = 1'b0;
reg          r_frag_hdr = 1'b0, r_frag_first = 1'b0, r_frag_whole = 1'b0;
reg  [4:0]   r_word = 5'd0;       // transport header's offset in the tail, in words, if no check fails
reg  [15:0]  r_payload = 16'd0;   // bytes of the IP packet after its headers
reg  [31:0]  r_src = 32'd0, r_dst = 32'd0;
reg  [15:0]  r_id = 16'd0, r_len = 16'd0;
reg  [7:0]   r_class = 8'd0;
reg  [63:0]  r_ts = 64'd0;
reg  [TAIL-1:0] r_tail = {TAIL{1'b0}};
always @(posedge clock) begin
    r_valid <= q_valid && !reset;
    {r_err, r_code, r_proto, r_first, r_whole, r_ext2} <= {q_err, q_code, q_proto, q_first, q_whole, q_ext2};
    r_next <= e2_next;
    r_rest_lt8 <= q_rest_lt8;
    r_past_rest <= e2_more > q_rest8;
    r_past_room <= q_room_lt8 || e2_more > {4'd0, q_room8};
    r_next_ext <= is_ext(e2_next);
    r_frag_hdr <= q_frag_hdr;
    r_frag_first <= e2_frag[15:3] == 13'd0;
    r_frag_whole <= e2_frag[15:3] == 13'd0 && !e2_frag[0];
    r_word <= q_ext2 ? e2_pos[6:2] : q_pos[6:2];
    r_payload <= q_ext2 ? q_rest8 - e2_more : q_rest;
    {r_src, r_dst, r_id, r_class, r_len, r_ts, r_tail} <= {q_src, q_dst, q_id, q_class, q_len, q_ts, q_tail};
end

// ---------------------------------------------------------------- C3: the first failed check, where the transport header starts
reg         x_err, x_first, x_whole;
reg  [2:0]  x_code;
reg  [7:0]  x_proto;
always @(*) begin
    {x_err, x_code, x_proto, x_first, x_whole} = {r_err, r_code, r_proto, r_first, r_whole};
    if (!r_err && r_ext2) begin
        if (r_rest_lt8) {x_err, x_code} = {1'b1, R_TRUNC};
        else if (r_past_rest) {x_err, x_code} = {1'b1, R_TRUNC};
        else if (r_past_room) {x_err, x_code} = {1'b1, R_CHAIN};
        else if (r_next_ext) {x_err, x_code} = {1'b1, R_CHAIN};
        else begin
            x_proto = r_next;
            if (r_frag_hdr) {x_first, x_whole} = {r_frag_first, r_frag_whole};
        end
    end
end

reg          c_valid = 1'b0, c_err = 1'b0, c_first = 1'b0, c_whole = 1'b0;
reg  [2:0]   c_code = 3'd0;
reg  [7:0]   c_proto = 8'd0;
reg  [1:0]   c_lo = 2'd0;         // transport header's word in c_win
reg  [255:0] c_win = 256'd0;      // the tail's 8 words from a multiple of 4 that hold the transport header
reg  [15:0]  c_payload = 16'd0;   // bytes of the IP packet after its headers
reg  [31:0]  c_src = 32'd0, c_dst = 32'd0;
reg  [15:0]  c_id = 16'd0, c_len = 16'd0;
reg  [7:0]   c_class = 8'd0;
reg  [63:0]  c_ts = 64'd0;
// Without an error the transport header starts in 34..108: word 0..18
// (any word in range after an error: its bytes are not used).
wire [4:0]   l4_word = r_word > 5'd18 ? 5'd0 : r_word;
// The tail in whole groups of 4 words, zeros past its end (groups 0..4).
wire [767:0] r_tail_groups = {{(768 - TAIL){1'b0}}, r_tail};
always @(posedge clock) begin
    c_valid <= r_valid && !reset;
    {c_err, c_code, c_proto, c_first, c_whole} <= {x_err, x_code, x_proto, x_first, x_whole};
    // The transport header's word selected in two steps, a clock each: its
    // group of 4 words here (a 5-way choice of 256 bits), the word in D.
    c_lo <= l4_word[1:0];
    c_win <= r_tail_groups[128 * l4_word[4:2] +: 256];
    c_payload <= r_payload;
    {c_src, c_dst, c_id, c_class, c_len, c_ts} <= {r_src, r_dst, r_id, r_class, r_len, r_ts};
end

// ---------------------------------------------------------------- D: transport header bytes
reg          d_valid = 1'b0, d_err = 1'b0, d_first = 1'b0, d_whole = 1'b0;
reg  [2:0]   d_code = 3'd0;
reg  [7:0]   d_proto = 8'd0;
reg  [159:0] d_l4 = 160'd0;
reg  [15:0]  d_payload = 16'd0;
reg  [31:0]  d_src = 32'd0, d_dst = 32'd0;
reg  [15:0]  d_id = 16'd0, d_len = 16'd0;
reg  [7:0]   d_class = 8'd0;
reg  [63:0]  d_ts = 64'd0;
always @(posedge clock) begin
    d_valid <= c_valid && !reset;
    {d_err, d_code, d_proto, d_first, d_whole, d_payload} <= {c_err, c_code, c_proto, c_first, c_whole, c_payload};
    d_l4 <= c_win[32 * c_lo +: 160];
    {d_src, d_dst, d_id, d_class, d_len, d_ts} <= {c_src, c_dst, c_id, c_class, c_len, c_ts};
end

// ---------------------------------------------------------------- E1: TCP, UDP, DNS fields and checks
function [7:0] l4b(input [159:0] l4, input integer k);
    l4b = l4[8 * k +: 8];
endfunction
wire [7:0]  l4b12 = l4b(d_l4, 12);
wire [7:0]  l4b10 = l4b(d_l4, 10);
wire [7:0]  flags = l4b(d_l4, 13);
wire [15:0] doff = {10'd0, l4b12[7:4], 2'b00};
wire [15:0] ulen = {l4b(d_l4, 4), l4b(d_l4, 5)};
wire        fin = flags[0];

reg          u_valid = 1'b0, u_err = 1'b0;
reg  [2:0]   u_code = 3'd0;
reg  [7:0]   u_proto = 8'd0;
// What selects the role in E2, decided here from registers so that E2 only
// combines them: which transport the checks apply to, the TCP flags that
// give the role, whether a UDP datagram is a DNS query or response.
reg          u_tcp = 1'b0, u_udp = 1'b0, u_live = 1'b0, u_syn = 1'b0, u_ackf = 1'b0;
reg          u_dns_query = 1'b0, u_dns_reply = 1'b0;
reg          u_tcp_short = 1'b0, u_doff_bad = 1'b0, u_doff_big = 1'b0, u_data = 1'b0;
reg          u_udp_short = 1'b0, u_ulen_bad = 1'b0;
reg  [31:0]  u_tcp_data = 32'd0;  // bytes the segment takes of the sequence space
reg  [15:0]  u_sport = 16'd0, u_dport = 16'd0, u_dns_id = 16'd0;
reg  [31:0]  u_seq = 32'd0, u_seq1 = 32'd0, u_ack = 32'd0;
reg  [31:0]  u_src = 32'd0, u_dst = 32'd0;
reg  [15:0]  u_id = 16'd0, u_len = 16'd0;
reg  [7:0]   u_class = 8'd0;
reg  [63:0]  u_ts = 64'd0;
wire [15:0]  d_sport = {l4b(d_l4, 0), l4b(d_l4, 1)};
wire [15:0]  d_dport = {l4b(d_l4, 2), l4b(d_l4, 3)};
wire [31:0]  d_seq = {l4b(d_l4, 4), l4b(d_l4, 5), l4b(d_l4, 6), l4b(d_l4, 7)};
wire         d_dns = d_whole && d_payload >= 16'd20;
always @(posedge clock) begin
    u_valid <= d_valid && !reset;
    {u_err, u_code, u_proto} <= {d_err, d_code, d_proto};
    u_tcp <= !d_err && d_first && d_proto == 8'd6;
    u_udp <= !d_err && d_first && d_proto == 8'd17;
    // RST, or a fragment that is not the whole datagram: no role.
    u_live <= !flags[2] && d_whole;
    u_syn <= flags[1];
    u_ackf <= flags[4];
    u_dns_query <= d_dns && d_dport == 16'd53 && !l4b10[7];
    u_dns_reply <= d_dns && d_sport == 16'd53 && l4b10[7];
    u_tcp_short <= d_payload < 16'd20;
    u_doff_bad <= doff < 16'd20;
    u_doff_big <= doff > d_payload;
    u_data <= d_payload + {15'd0, fin} != doff;
    u_tcp_data <= {16'd0, d_payload - doff} + {31'd0, fin};
    u_udp_short <= d_payload < 16'd8;
    u_ulen_bad <= ulen < 16'd8;
    u_sport <= d_sport;
    u_dport <= d_dport;
    u_seq <= d_seq;
    u_seq1 <= d_seq + 32'd1;
    u_ack <= {l4b(d_l4, 8), l4b(d_l4, 9), l4b(d_l4, 10), l4b(d_l4, 11)};
    u_dns_id <= {l4b(d_l4, 8), l4b(d_l4, 9)};
    {u_src, u_dst, u_id, u_class, u_len, u_ts} <= {d_src, d_dst, d_id, d_class, d_len, d_ts};
end

// ---------------------------------------------------------------- E2: role, number, reason
// TCP: a SYN asks for seq + 1, data for seq + its length; a SYN-ACK or a
// bare ACK answers with its ack number. DNS: the query and response share the ID.
wire        tcp_ok = u_tcp && !u_tcp_short && !u_doff_bad && !u_doff_big;
wire        udp_ok = u_udp && !u_udp_short && !u_ulen_bad;
wire        tcp_syn = tcp_ok && u_live && u_syn && !u_ackf;
wire        tcp_data = tcp_ok && u_live && !u_syn && u_data;
wire        tcp_ack = tcp_ok && u_live && u_ackf && (u_syn || !u_data);
wire        dns_query = udp_ok && u_dns_query;
wire        dns_reply = udp_ok && u_dns_reply;
wire        response = tcp_ack || dns_reply;
reg         t_err;
reg  [2:0]  t_code;
reg  [1:0]  t_role;         // 0 none, 1 request, 2 response
reg  [31:0] t_number;
wire [15:0] t_sport = tcp_ok || udp_ok ? u_sport : 16'd0;
wire [15:0] t_dport = tcp_ok || udp_ok ? u_dport : 16'd0;
always @(*) begin
    {t_err, t_code} = {u_err, u_code};
    if (u_tcp) begin
        if (u_tcp_short) {t_err, t_code} = {1'b1, R_TRUNC};
        else if (u_doff_bad) {t_err, t_code} = {1'b1, R_BAD_L4};
        else if (u_doff_big) {t_err, t_code} = {1'b1, R_TRUNC};
    end else if (u_udp) begin
        if (u_udp_short) {t_err, t_code} = {1'b1, R_TRUNC};
        else if (u_ulen_bad) {t_err, t_code} = {1'b1, R_BAD_L4};
    end
    t_role = response ? 2'd2 : tcp_syn || tcp_data || dns_query ? 2'd1 : 2'd0;
    case (1'b1)
        tcp_syn: t_number = u_seq1;
        tcp_data: t_number = u_seq + u_tcp_data;
        tcp_ack: t_number = u_ack;
        dns_query, dns_reply: t_number = {16'd0, u_dns_id};
        default: t_number = 32'd0;
    endcase
end

reg          e_valid = 1'b0, e_err = 1'b0;
reg  [2:0]   e_code = 3'd0;
reg  [119:0] e_key = 120'd0;
reg  [127:0] e_match_in = 128'd0;
reg  [1:0]   e_role = 2'd0;
reg  [7:0]   e_class = 8'd0;
reg  [15:0]  e_len = 16'd0;
reg  [63:0]  e_ts = 64'd0;
always @(posedge clock) begin
    e_valid <= u_valid && !reset;
    {e_err, e_code, e_role} <= {t_err, t_code, t_role};
    e_key <= {u_src, u_dst, t_sport, t_dport, u_proto, u_id};
    // A request names {requester, responder, their ports, number}; a response the reverse.
    e_match_in <= response ? {u_dst, u_src, t_dport, t_sport, t_number}
                                 : {u_src, u_dst, t_sport, t_dport, t_number};
    {e_class, e_len, e_ts} <= {u_class, u_len, u_ts};
end

// ---------------------------------------------------------------- F: H3 hashes, outputs
wire [103:0] flow_key = e_key[119:16];
reg  [31:0]  flow_h, match_h;
always @(*) begin
    for (i = 0; i < 32; i = i + 1) begin
        flow_h[i] = ^(flow_key & FLOW_Q[104 * i +: 104]);
        match_h[i] = ^(e_match_in & MATCH_Q[128 * i +: 128]);
    end
end

reg f_valid = 1'b0, f_err = 1'b0;
reg [2:0] f_code = 3'd0;
always @(posedge clock) begin
    f_valid <= e_valid && !reset;
    {f_err, f_code} <= {e_err, e_code};
    m_ts <= e_ts;
    m_len <= e_len;
    m_key <= e_key;
    m_flow <= flow_h;
    m_class <= e_class;
    m_role <= e_role;
    m_match <= e_role == 2'd0 ? 32'd0 : match_h;
end
initial begin
    m_ts = 64'd0;
    m_len = 16'd0;
    m_key = 120'd0;
    m_flow = 32'd0;
    m_class = 8'd0;
    m_role = 2'd0;
    m_match = 32'd0;
end
always @(*) begin
    m_valid = f_valid && !f_err;
    stat_valid = f_valid;
    stat_reason = f_valid && f_err ? {1'b0, f_code} + 4'd1 : 4'd0;
    stat_dropped = f_valid && !f_err && !m_ready;
end

// What no field needs: the other timestamp source, the reserved flag and
// fragment bits, the IPv6 version, the low nibbles of the TCP data offset and
// DNS flags byte, the bits of offsets that are multiples of 4.
/* verilator lint_off UNUSEDSIGNAL */
wire unused_bits = ^{time_ns, s_axis_tuser, v4_frag[15:14], v6_word[31:28], e1_frag[2:1], e2_frag[2:1],
                     flags[7:5], flags[3], l4b12[3:0], l4b10[6:0], u_tcp_data[31:17], p_at[11:7], p_at1[11:7], b_pos[1:0], q_pos[1:0], e2_pos[1:0],
                     e2_more[15:7]};
/* verilator lint_on UNUSEDSIGNAL */

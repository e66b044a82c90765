// SPDX-License-Identifier: Apache-2.0
//
// ip_front — the shared header front end: Ethernet (up to two VLAN tags) and the outer IPv4 or
// IPv6 header of each frame, parsed in registered stages into a tap of fields that the
// per-protocol classifiers (GRE, and later VXLAN, Geneve, RSS) read.
//
//  Ethernet (+ up to two tags)            outer IPv4 (IHL*4 bytes) / IPv6 (40 bytes)       L4
//  0     6     12    14   16   18   20  L2  +1  +2   +4  +6    +8 +9 +10  +12  +16  +20  G
//  +-----+-----+-----+----+----+----+---+---+---+----+---+-----+--+--+----+----+----+..+----
//  | dst | src |TPID?|TCI |TPID?|TCI| ET|V/I|TOS|TLEN|ID |FL/OF|TT|PR|CSUM|SRC |DST |op| ...
//  +-----+-----+-----+----+----+----+---+---+---+----+---+-----+--+--+----+----+----+..+----
//  IPv6: L2+0 version/TC, L2+1 TC[3:0]/flow (ECN = bits 5:4), L2+4 payload length,
//        L2+6 next header, G = L2 + 40.
//
// Stages (each ends in registers):
//   capture  hdr_capture: the first HDR_BYTES bytes by beat position; the two TPID checks,
//            and the EtherType and IHL decoded for each tag count, as their beats pass
//   S1       VLAN tags -> L2; the IPv4 fixed header's 20 bytes selected by the tag count; the
//            bytes from 34 on copied unshifted beside u = (G - 34) / 4; the 17 word pairs at
//            14 + 4m summed raw, each with an enable (inside the IP header for this tag count
//            and IHL): a tag moves the header by one pair, so the adders need no L2 selection
//   S2       IP fields; the enabled pairs summed three by three; the L4 window taken from
//            the copy by 16-byte steps of u; payload length
//   S3       six sums to two, three by three; the L4 window shifted by 4-byte steps of u; G;
//            what the frame holds from L3 and from G (a count, and a bit per L4 byte shifted
//            with the bytes)
//   S4       the last sum and the checksum verdict (tap_csum_ok), one cycle after the tap
// tap_valid is high 5 cycles after the beat that completes the window (or ends the frame);
// tap_csum_ok is valid in the cycle after tap_valid.
//
// "Frame ends before N" checks compare with the bytes the window holds (`have`, the frame
// length when tap_whole); every offset a classifier needs lies inside the window, so a frame
// longer than the window passes all of them.

`default_nettype none

module ip_front
    import parse_pkg::*;
    import stream_pkg::*;
#(
    // Width of the data bus in bits: 64, 128, 256 or 512.
    parameter int DATA_W = 256,
    // Bytes captured per frame (a multiple of DATA_W/8, at least 128: the offsets the
    // classifiers read).
    parameter int HDR_BYTES = 128,
    // Bytes of the L4 window handed on, from G (the first byte after the IP header).
    parameter int L4_BYTES = 32
) (
    input  wire logic                   clk,
    input  wire logic                   rst,

    input  wire logic [DATA_W-1:0]      s_tdata,
    input  wire logic [DATA_W/8-1:0]    s_tkeep,
    input  wire logic                   s_hs,
    input  wire logic                   s_tlast,
    input  wire logic                   s_tuser,

    output      logic                   tap_valid,
    output      logic [7:0]             tap_have,        // window bytes in the frame
    output      logic                   tap_whole,       // frame length = tap_have
    output      logic                   tap_rx_err,      // MAC error on the last beat (whole only)
    output      logic [22*8-1:0]        tap_l2_bytes,    // window bytes 0..21
    output      logic [4:0]             tap_l2_len,      // 14, 18 or 22
    output      logic                   tap_l2_short,    // ends inside the L2 header
    output      logic [15:0]            tap_et,          // EtherType after the tags
    output      logic                   tap_ipv4,        // et = 0x0800
    output      logic                   tap_ipv6,        // et = 0x86DD
    output      logic                   tap_short_proto, // ends before the protocol byte
    output      logic [7:0]             tap_ip_proto,    // IPv4 protocol / IPv6 next header
    output      logic                   tap_short_fixed, // ends before L2+20 (v4) / L2+40 (v6)
    output      logic                   tap_ip_ver_bad,  // v4: version != 4 or IHL < 5; v6: != 6
    output      logic                   tap_short_opts,  // v4: ends before L2 + IHL*4
    output      logic                   tap_ip_frag,     // v4: MF or fragment offset != 0
    output      logic                   tap_ip_frag_off, // v4: fragment offset != 0 (MF apart)
    output      logic signed [16:0]     tap_ip_pl,       // bytes from G to the IP end
    output      logic [1:0]             tap_ip_ecn,      // outer ECN
    output      logic [31:0]            tap_ip_src,      // IPv4 source
    output      logic [31:0]            tap_ip_dst,      // IPv4 destination
    // The same pair three cycles before tap_valid, in the cycle the window is complete (for a
    // block-RAM table lookup of three cycles whose answer the classifier registers)
    output      logic [31:0]            early_ip_src,
    output      logic [31:0]            early_ip_dst,
    output      logic [7:0]             tap_g,           // G = L2 + IP header length
    output      logic signed [8:0]      tap_have_l4,     // window bytes from G (may be < 0)
    output      logic [L4_BYTES*8-1:0]  tap_l4,          // bytes G .. G + L4_BYTES - 1
    // Bit i: the window holds tap_l4's byte i (i < tap_have_l4), for an IP header of a valid
    // length: "frame ends before G + c" checks read one bit, no compare
    output      logic [L4_BYTES-1:0]    tap_l4_ok,
    output      logic                   tap_csum_ok      // cycle after tap_valid: v4 sum ok
);

    localparam int KEEP_W  = DATA_W / 8;
    localparam int L3_BYTES = 20;                // IP fields read: the IPv4 fixed header
    // G - 34 = 4 * (tags + IHL - 5) (IPv6: IHL taken as 10) = 4 * u, u = 0..12: the L4 window
    // is window bytes 34 + 4u .. + L4_BYTES - 1, inside the L4_SPAN bytes from 34 on.
    localparam int L4_BASE  = 34;
    localparam int L4_SPAN  = 4 * 12 + L4_BYTES;
    localparam int PAIRS    = 17;                // raw pairs at 14 + 4m: IHL 15 after 2 tags
    localparam int L4_COARSE = L4_BYTES + 12;    // after the 16-byte step, before the 4-byte

    if (HDR_BYTES < 128 || HDR_BYTES % KEEP_W != 0 || HDR_BYTES > 255) begin : g_check_hdr
        $error("ip_front: HDR_BYTES must be a multiple of DATA_W/8 in 128..255");
    end
    if (L4_BYTES < 4 || L4_BYTES > 64 || L4_BYTES % 4 != 0
        || L4_BASE + L4_SPAN > HDR_BYTES) begin : g_check_l4
        $error("ip_front: L4_BYTES must be a multiple of 4 in 4..64, inside the window");
    end

    // ---- capture ------------------------------------------------------------------------
    logic                   c_valid, c_whole, c_rx_err;
    logic [HDR_BYTES*8-1:0] c_win;
    logic [7:0]             c_beat;
    logic [KEEP_W-1:0]      c_keep;

    // Window byte i. The window is read here, not passed in: Verilator copies a 1024-bit
    // argument at every call, every cycle.
    function automatic logic [7:0] win_byte(input int i);
        win_byte = (i < HDR_BYTES) ? c_win[8*i +: 8] : 8'h00;
    endfunction

    localparam int HDR_BEATS = HDR_BYTES / KEEP_W;
    logic [DATA_W-1:0]      c_beat_tdata;
    logic [HDR_BEATS-1:0]   c_beat_wen;

    hdr_capture #(
        .DATA_W(DATA_W),
        .HDR_BYTES(HDR_BYTES)
    ) capture (
        .clk(clk), .rst(rst),
        .s_tdata(s_tdata), .s_tkeep(s_tkeep), .s_hs(s_hs), .s_tlast(s_tlast), .s_tuser(s_tuser),
        .beat_tdata(c_beat_tdata), .beat_wen(c_beat_wen),
        .hdr_valid(c_valid), .hdr_q(c_win), .hdr_beat(c_beat), .hdr_keep(c_keep),
        .hdr_whole(c_whole), .hdr_rx_err(c_rx_err)
    );

    // ---- S1: L2 walk, L3 window, raw pair sums ----------------------------------------------
    logic                   s1_valid_q, s1_whole_q, s1_rx_err_q;
    logic [7:0]             s1_have_q;
    logic [1:0]             s1_tags_q;
    logic [15:0]            s1_et_q;
    logic                   s1_v4_q, s1_v6_q;
    logic [3:0]             s1_u_q;         // (G - L4_BASE) / 4
    logic [L4_SPAN*8-1:0]   s1_span_q;      // window bytes L4_BASE .. (unshifted)
    logic [L4_SPAN-1:0]     s1_span_ok_q;   // the window holds that byte
    logic [22*8-1:0]        s1_l2_q;
    logic [L3_BYTES*8-1:0]  s1_l3_q;
    logic [PAIRS-1:0][16:0] s1_pair_q;      // raw pair m: window bytes 14 + 4m .. 17 + 4m
    logic [PAIRS-1:0]       s1_pair_on_q;   // raw pair m lies in the IP header
    // "The window ends before L2 + c" for each tag count t (L2 = 14 + 4t), for the c that S2
    // checks: 0 (L2), 7 / 10 (IPv6 / IPv4 protocol byte), 40 / 20 (fixed header).
    logic [2:0]             s1_lt_l2_q, s1_lt_pr6_q, s1_lt_pr4_q, s1_lt_fx6_q, s1_lt_fx4_q;

    // The window holds fewer than n bytes (n a constant): decoded from the last beat's index
    // and one tkeep bit (tkeep is contiguous from lane 0), no adder and no carry chain.
    function automatic logic window_below(input int n);
        window_below = 1'b0;
        for (int b = 0; b < HDR_BEATS; b++) begin
            // beat b holds bytes b*KEEP_W .. b*KEEP_W + (1..KEEP_W) - 1
            if (int'(c_beat) == b) begin
                if ((b + 1) * KEEP_W < n)  window_below = 1'b1;
                else if (b * KEEP_W < n)   window_below = !c_keep[n - b * KEEP_W - 1];
            end
        end
    endfunction

    logic [PAIRS-1:0][16:0] raw_pair;
    always_comb begin
        for (int m = 0; m < PAIRS; m++) begin
            raw_pair[m] = 17'({win_byte(14 + 4*m), win_byte(15 + 4*m)})
                        + 17'({win_byte(16 + 4*m), win_byte(17 + 4*m)});
        end
    end

    // The VLAN tags, captured by beat position as their beats pass (like the window): the L2
    // walk is two registers by the time the window is complete, and S1's shift has a
    // registered select.
    function automatic logic [7:0] beat_byte(input int i);
        beat_byte = c_beat_tdata[8 * (i % KEEP_W) +: 8];
    endfunction

    // And for each tag count t the EtherType and the IP version/IHL byte at 12 + 4t .. 14 + 4t
    // (always inside one beat), decoded as their beat passes: S1 then only selects by the tag
    // count, and the window's wide register feeds no compare.
    // The EtherType compares are made on the stream's beat itself, into registers loaded
    // every cycle beside the capture's input register (hdr_capture's in_data_q): they hold
    // the compares of the beat the capture registered, so the per-beat step below starts
    // from one flip-flop, not from a 16-bit compare across the die.
    function automatic logic [15:0] s_et(input int t);
        s_et = {s_tdata[8 * ((12 + 4*t) % KEEP_W) +: 8], s_tdata[8 * ((13 + 4*t) % KEEP_W) +: 8]};
    endfunction
    logic [2:0] pre_v4_q, pre_v6_q;
    always_ff @(posedge clk) begin
        for (int t = 0; t < 3; t++) begin
            pre_v4_q[t] <= s_et(t) == 16'h0800;
            pre_v6_q[t] <= s_et(t) == 16'h86DD;
        end
    end

    logic                  c_tpid1_q, c_tpid2_q;
    logic [2:0]            c_v4_q, c_v6_q;
    logic [2:0][3:0]       c_u_q;      // u for each tag count
    logic [2:0][PAIRS-1:0] c_on_q;     // raw pair m lies in the IP header, for each tag count
    always_ff @(posedge clk) begin
        logic [3:0]  ihl, step;
        if (c_beat_wen[12 / KEEP_W]) begin
            c_tpid1_q <= is_tpid({beat_byte(12), beat_byte(13)});
        end
        if (c_beat_wen[16 / KEEP_W]) begin
            c_tpid2_q <= is_tpid({beat_byte(16), beat_byte(17)});
        end
        for (int t = 0; t < 3; t++) begin
            if (c_beat_wen[(12 + 4*t) / KEEP_W]) begin
                ihl = beat_byte(14 + 4*t)[3:0];
                c_v4_q[t] <= pre_v4_q[t];
                c_v6_q[t] <= pre_v6_q[t];
                // (IP header length - 20) / 4: 0..10; IPv6 5 (40 bytes)
                step       = pre_v6_q[t] ? 4'd5 : (ihl < 4'd5 ? 4'd0 : ihl - 4'd5);
                c_u_q[t]  <= step + 4'(t);
                // Raw pair m is pair m - t of the header: in it when 0 <= m - t < IHL.
                for (int m = 0; m < PAIRS; m++) c_on_q[t][m] <= m >= t && m - t < int'(ihl);
            end
        end
    end

    // The tag count, from the two TPID checks.
    logic [1:0]             s1_tags;
    assign s1_tags = !c_tpid1_q ? 2'd0 : !c_tpid2_q ? 2'd1 : 2'd2;

    // Bytes of the window's last beat in the frame: stream_pkg::keep_bytes (a log-depth tree);
    // under Verilator the same number as ceil(log2(tkeep + 1)) (the highest set bit + 1, 0 for
    // none: 2**h <= tkeep < 2**(h+1)), since keep_bytes' arrays cost a verilated model every cycle.
    function automatic logic [6:0] last_bytes(input logic [KEEP_W-1:0] keep);
`ifdef VERILATOR
        last_bytes = 7'($clog2({1'b0, keep} + (KEEP_W+1)'(1)));
`else
        last_bytes = keep_bytes(64'(keep));
`endif
    endfunction

    // S1's and S2's data registers load in every cycle, with no enable: the next stage reads
    // them only under the valid beside them, and a valid that enabled a few hundred bits
    // would be a net across the front end (and zero fills a reset behind it).
    always_ff @(posedge clk) begin
        s1_valid_q <= c_valid;
        begin
            s1_whole_q  <= c_whole;
            s1_rx_err_q <= c_rx_err;
            s1_have_q   <= 8'(int'(c_beat) * KEEP_W) + 8'(last_bytes(c_keep));
            for (int t = 0; t < 3; t++) begin
                s1_lt_l2_q[t]  <= window_below(14 + 4*t);
                s1_lt_pr6_q[t] <= window_below(14 + 4*t + 7);
                s1_lt_pr4_q[t] <= window_below(14 + 4*t + 10);
                s1_lt_fx6_q[t] <= window_below(14 + 4*t + 40);
                s1_lt_fx4_q[t] <= window_below(14 + 4*t + 20);
            end
            s1_tags_q   <= s1_tags;
            s1_v4_q     <= c_v4_q[s1_tags];
            s1_v6_q     <= c_v6_q[s1_tags];
            s1_u_q      <= c_u_q[s1_tags];
            // Whole slices, not byte loops: the same wires, and Verilator copies words.
            s1_span_q   <= c_win[8*L4_BASE +: 8*L4_SPAN];
            for (int j = 0; j < L4_SPAN; j++) s1_span_ok_q[j] <= !window_below(L4_BASE + j + 1);
            // Constant byte indices under a select (no index arithmetic on the window).
            case (s1_tags)
                2'd0:    s1_et_q <= {win_byte(12), win_byte(13)};
                2'd1:    s1_et_q <= {win_byte(16), win_byte(17)};
                2'd2:    s1_et_q <= {win_byte(20), win_byte(21)};
                default: s1_et_q <= {win_byte(24), win_byte(25)};
            endcase
            s1_l2_q     <= c_win[0 +: 22*8];
            case (s1_tags)
                2'd0:    s1_l3_q <= c_win[8*14 +: 8*L3_BYTES];
                2'd1:    s1_l3_q <= c_win[8*18 +: 8*L3_BYTES];
                default: s1_l3_q <= c_win[8*22 +: 8*L3_BYTES];
            endcase
            // The pairs unshifted, each with its own enable: a mask per pair, not a select.
            s1_pair_q    <= raw_pair;
            s1_pair_on_q <= c_on_q[s1_tags];
        end
        if (rst) s1_valid_q <= 1'b0;
    end

    // ---- S2: IP fields, masked pair sums in four groups, coarse L4 shift -------------------
    function automatic logic [7:0] l3_byte(input int i);
        l3_byte = (i < L3_BYTES) ? s1_l3_q[8*i +: 8] : 8'h00;
    endfunction
    // The span with zero bytes after it, up to the last byte the coarse shift reads.
    localparam int SPAN_EXT = 48 + L4_COARSE;
    logic [8*SPAN_EXT-1:0] span_ext;
    assign span_ext = (8*SPAN_EXT)'(s1_span_q);

    logic                    s2_valid_q, s2_whole_q, s2_rx_err_q;
    logic [7:0]              s2_have_q, s2_have_l3_q;
    logic [4:0]              s2_l2_len_q;
    logic                    s2_l2_short_q;
    logic [22*8-1:0]         s2_l2_q;
    logic [15:0]             s2_et_q;
    logic                    s2_v4_q, s2_v6_q, s2_short_proto_q, s2_short_fixed_q, s2_ver_bad_q;
    logic                    s2_frag_q, s2_off_q;
    logic [7:0]              s2_proto_q;
    logic [6:0]              s2_hl_q;
    logic signed [16:0]      s2_pl_q;
    logic [1:0]              s2_ecn_q;
    logic [31:0]             s2_src_q, s2_dst_q;
    logic [5:0][18:0]        s2_sum_q;
    logic [1:0]              s2_fine_q;           // the 4-byte steps left for S3
    logic [L4_COARSE*8-1:0]  s2_l4_q;
    logic [L4_COARSE-1:0]    s2_l4_ok_q;
    logic [SPAN_EXT-1:0]     span_ok_ext;
    assign span_ok_ext = SPAN_EXT'(s1_span_ok_q);

    // a + b + c as one carry chain behind a carry-save layer (one LUT a bit), where a
    // three-operand `+` is two chains in series. The header's sums fit in 21 bits.
    function automatic logic [20:0] add3(input logic [20:0] a, input logic [20:0] b,
                                         input logic [20:0] c);
        logic [19:0] k;   // the carries into bits 1..20
        k    = (a[19:0] & b[19:0]) | (a[19:0] & c[19:0]) | (b[19:0] & c[19:0]);
        add3 = (a ^ b ^ c) + {k, 1'b0};
    endfunction

    // The tag count selects S1's "ends before L2 + c" flags.
    function automatic logic by_tags(input logic [2:0] lt);
        by_tags = (s1_tags_q == 2'd0) ? lt[0] : (s1_tags_q == 2'd1) ? lt[1] : lt[2];
    endfunction

    always_ff @(posedge clk) begin
        logic        v4, v6;
        logic [3:0]  ihl;
        logic [6:0]  hl;
        logic [16:0] pick [PAIRS];
        logic [7:0]  l2;
        s2_valid_q <= s1_valid_q;
        begin
            v4  = s1_v4_q;
            v6  = s1_v6_q;
            ihl = l3_byte(0)[3:0];
            hl  = v6 ? 7'd40 : {1'b0, ihl, 2'b00};
            l2  = 8'(14 + 4 * int'(s1_tags_q));
            s2_whole_q    <= s1_whole_q;
            s2_rx_err_q   <= s1_rx_err_q;
            s2_have_q     <= s1_have_q;
            s2_have_l3_q  <= s1_have_q - l2;
            s2_l2_len_q   <= 5'(l2);
            s2_l2_short_q <= by_tags(s1_lt_l2_q);
            s2_l2_q       <= s1_l2_q;
            s2_et_q       <= s1_et_q;
            s2_v4_q       <= v4;
            s2_v6_q       <= v6;
            s2_short_proto_q <= v6 ? by_tags(s1_lt_pr6_q) : by_tags(s1_lt_pr4_q);
            s2_short_fixed_q <= v6 ? by_tags(s1_lt_fx6_q) : by_tags(s1_lt_fx4_q);
            s2_ver_bad_q  <= v6 ? l3_byte(0)[7:4] != 4'd6
                                : (l3_byte(0)[7:4] != 4'd4 || ihl < 4'd5);
            s2_frag_q     <= l3_byte(6)[5] || {l3_byte(6)[4:0], l3_byte(7)} != 13'd0;
            s2_off_q      <= {l3_byte(6)[4:0], l3_byte(7)} != 13'd0;
            s2_proto_q    <= v6 ? l3_byte(6) : l3_byte(9);
            s2_hl_q       <= hl;
            s2_pl_q       <= v6 ? 17'({l3_byte(4), l3_byte(5)})
                                : 17'({l3_byte(2), l3_byte(3)}) - 17'(hl);
            s2_ecn_q      <= v6 ? l3_byte(1)[5:4] : l3_byte(1)[1:0];
            s2_src_q      <= {l3_byte(12), l3_byte(13), l3_byte(14), l3_byte(15)};
            s2_dst_q      <= {l3_byte(16), l3_byte(17), l3_byte(18), l3_byte(19)};
            for (int m = 0; m < PAIRS; m++) pick[m] = s1_pair_on_q[m] ? s1_pair_q[m] : 17'd0;
            for (int k = 0; k < 5; k++) begin
                s2_sum_q[k] <= 19'(add3(21'(pick[3*k]), 21'(pick[3*k + 1]), 21'(pick[3*k + 2])));
            end
            s2_sum_q[5] <= 19'(pick[15]) + 19'(pick[16]);
            // L4 window from span byte 16 * (u / 4); S3 adds 4 * (u % 4).
            s2_fine_q <= s1_u_q[1:0];
            case (s1_u_q[3:2])
                2'd0:    s2_l4_q <= span_ext[8*0  +: 8*L4_COARSE];
                2'd1:    s2_l4_q <= span_ext[8*16 +: 8*L4_COARSE];
                2'd2:    s2_l4_q <= span_ext[8*32 +: 8*L4_COARSE];
                default: s2_l4_q <= span_ext[8*48 +: 8*L4_COARSE];
            endcase
            s2_l4_ok_q <= L4_COARSE'(span_ok_ext >> (16 * int'(s1_u_q[3:2])));
        end
        if (rst) s2_valid_q <= 1'b0;
    end

    // (each address one concatenation: a verilated model builds it in one expression, where
    // byte-by-byte assignments each mask and merge)
    function automatic logic [31:0] win_word(input int i);
        win_word = {win_byte(i), win_byte(i + 1), win_byte(i + 2), win_byte(i + 3)};
    endfunction
    always_comb begin
        case (s1_tags)
            2'd0: begin
                early_ip_src = win_word(26);
                early_ip_dst = win_word(30);
            end
            2'd1: begin
                early_ip_src = win_word(30);
                early_ip_dst = win_word(34);
            end
            default: begin
                early_ip_src = win_word(34);
                early_ip_dst = win_word(38);
            end
        endcase
    end

    // ---- S3: header sums, fine L4 shift, G --------------------------------------------------
    logic [1:0][20:0] s3_sum_q;
    logic             s3_v4_q;
    always_ff @(posedge clk) begin
        tap_valid <= s2_valid_q;
        if (s2_valid_q) begin
            tap_have        <= s2_have_q;
            tap_whole       <= s2_whole_q;
            tap_rx_err      <= s2_rx_err_q;
            tap_l2_bytes    <= s2_l2_q;
            tap_l2_len      <= s2_l2_len_q;
            tap_l2_short    <= s2_l2_short_q;
            tap_et          <= s2_et_q;
            tap_ipv4        <= s2_v4_q;
            tap_ipv6        <= s2_v6_q;
            tap_short_proto <= s2_short_proto_q;
            tap_ip_proto    <= s2_proto_q;
            tap_short_fixed <= s2_short_fixed_q;
            tap_ip_ver_bad  <= s2_ver_bad_q;
            tap_short_opts  <= s2_v4_q && s2_have_l3_q < 8'(s2_hl_q);
            tap_ip_frag     <= s2_v4_q && s2_frag_q;
            tap_ip_frag_off <= s2_v4_q && s2_off_q;
            tap_ip_pl       <= s2_pl_q;
            tap_ip_ecn      <= s2_ecn_q;
            tap_ip_src      <= s2_src_q;
            tap_ip_dst      <= s2_dst_q;
            tap_g           <= 8'(s2_l2_len_q) + 8'(s2_hl_q);
            tap_have_l4     <= 9'(s2_have_l3_q) - 9'(s2_hl_q);
            case (s2_fine_q)
                2'd0:    tap_l4 <= s2_l4_q[8*0  +: 8*L4_BYTES];
                2'd1:    tap_l4 <= s2_l4_q[8*4  +: 8*L4_BYTES];
                2'd2:    tap_l4 <= s2_l4_q[8*8  +: 8*L4_BYTES];
                default: tap_l4 <= s2_l4_q[8*12 +: 8*L4_BYTES];
            endcase
            tap_l4_ok <= L4_BYTES'(s2_l4_ok_q >> (4 * int'(s2_fine_q)));
            s3_sum_q[0] <= add3(21'(s2_sum_q[0]), 21'(s2_sum_q[1]), 21'(s2_sum_q[2]));
            s3_sum_q[1] <= add3(21'(s2_sum_q[3]), 21'(s2_sum_q[4]), 21'(s2_sum_q[5]));
            s3_v4_q  <= s2_v4_q;
        end
        if (rst) tap_valid <= 1'b0;
    end

    // ---- S4: the last sum, the checksum verdict ----------------------------------------------
    always_ff @(posedge clk) begin
        tap_csum_ok <= !s3_v4_q || oc_sum_is_ones(32'(s3_sum_q[0]) + 32'(s3_sum_q[1]));
    end

endmodule

`default_nettype wire

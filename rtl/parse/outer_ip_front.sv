// SPDX-License-Identifier: Apache-2.0
//
// outer_ip_front — the first stages every tunnel parser shares: the header window, a
// snapshot of the stream (cut 0), then the L2 walk and the outer IP header's bytes (cut S),
// then the one's-complement word sums a parser needs of them (cut 1). gre_classify's and
// vxlan_classify's decision stages follow it (their "Pipelining" comments).
//
// Headers read (offsets from the start of the frame; L2 ∈ {14, 18, 22}):
//
//   0        6        12           L2-2   L2
//   | dst    | src    | tags (0-2) | type | outer IPv4 (IHL*4 bytes) or IPv6 (40 bytes)
//
//   IPv4 at L2:  +0 |ver|ihl| TOS | total length | +4 | id | flags/offset | +8 | TTL | proto |
//                checksum | +12 source | +16 destination | +20 options
//   IPv6 at L2:  +0 |ver| TC | flow | +4 payload length | next | hop | +8 source | +24 destination
//
//   window ─[cut 0]─► L2 walk, outer IP bytes ─[cut S]─► word sums ─[cut 1]─► the parser's stages
//
// Cut S (CUTS bit 2) exists because the two halves are each about as deep as a whole
// decision stage: the L2 walk selects the IP header's bytes (TPID compares, a 3-way select),
// and the sums are adder trees five deep over those bytes; routed in one cycle they were the
// longest path of the pipelined GRE parser (17.3 ns on ECP5).
//
// The header after the outer IP header starts at L4 = L2 + IHL*4 (IPv4) or L2 + 40 (IPv6):
// one of 13 offsets, 34, 38, ... 82. Its first L4_BYTES bytes are selected here from those 13
// candidates (a 13-way multiplexer per byte), so the next stage reads the UDP or GRE header
// and what follows it at fixed positions rather than through a 128-way byte multiplexer
// whose select it computes itself.
//
// Sums (not folded; each an adder tree, parse_pkg::word_sum): the IPv4 header's IHL*2 words
// (checked against 0xFFFF by the parser), an IPv6 header's 20 words, the words of [0, L2):
// with one of the first two, the bytes before an L4 or tunnel header that starts right after
// the IP header. And the pseudo-header addresses: IPv4 source and destination (words 6-9),
// IPv6 source and destination (words 4-19).
//
// In a parser without cuts the window sums a checksum region itself (region_* hooks, from
// the parser's decision in the same cycle); a pipelined parser sums the region from the
// beats leaving its last cut (region_sum_pipe) and ties the hooks off.

`default_nettype none

module outer_ip_front
    import parse_pkg::*;
#(
    // Width of the data bus in bits: 64, 128, 256 or 512.
    parameter int DATA_W = 256,
    // Bytes per beat.
    parameter int KEEP_W = DATA_W / 8,
    // Bytes of each frame kept for parsing (a multiple of KEEP_W, at most 128).
    parameter int HDR_BYTES = 128,
    // Width of byte positions (saturating).
    parameter int POS_W = 24,
    // Largest region_start the parser gives the window (bytes summed out of its region).
    parameter int HEAD_MAX = 82,
    // Bit 0: register after the window (cut 0); bit 1: after the sums (cut 1); bit 2: between
    // the L2 walk with the byte selects and the sums (cut S). Each set bit is a cycle.
    parameter int CUTS = 0,
    // Bytes of the header after the IP header selected (l4h).
    parameter int L4_BYTES = 42
) (
    input  wire logic                       clk,
    input  wire logic                       rst,

    // The stream, observed.
    input  wire logic [DATA_W-1:0]          s_tdata,
    input  wire logic [KEEP_W-1:0]          s_tkeep,
    input  wire logic                       s_hs,
    input  wire logic                       s_tlast,
    input  wire logic                       s_tuser,

    // Checksum region hooks of the window (used without cut 0).
    input  wire logic                       region_known,
    input  wire logic                       region_decide,
    input  wire logic [6:0]                 region_start,
    input  wire logic [16:0]                region_end,
    output      logic [15:0]                region_sum,

    // After cut 1: the snapshot's header bytes and beat ...
    output      logic [HDR_BYTES-1:0][7:0]  view,
    output      logic [POS_W-1:0]           have,     // bytes of the frame up to the beat's end
    output      logic [$clog2(KEEP_W):0]    beat_len, // bytes of the frame in the beat
    output      logic [DATA_W-1:0]          tdata,
    output      logic                       tlast,
    output      logic                       tuser,
    output      logic                       hs,
    // ... the L2 walk (l2_parse) ...
    output      logic [6:0]                 l2,
    output      logic [15:0]                et,
    output      logic                       l2_wait,
    output      logic                       tags3,
    // ... and the outer IP header's bytes and sums.
    output      logic [59:0][7:0]           iph,
    output      logic [31:0]                iph_sum,  // the IHL*2 words of an IPv4 header
    output      logic [31:0]                ip6_sum,  // the 20 words of an IPv6 header
    output      logic [31:0]                eth_sum,  // the words of [0, L2)
    output      logic [31:0]                ps4_sum,  // IPv4 source and destination
    output      logic [31:0]                ps6_sum,  // IPv6 source and destination
    // ... and the header after it.
    output      logic [6:0]                 l4,       // its offset (valid for IPv4 / IPv6)
    output      logic [L4_BYTES-1:0][7:0]   l4h       // bytes [l4, l4 + L4_BYTES)
);

    localparam int LEN_BITS = $clog2(KEEP_W) + 1;

    if (CUTS < 0 || CUTS > 7) begin : g_param_check_1
        $error("outer_ip_front: CUTS is a 3-bit mask (0..7)");
    end
    if (HDR_BYTES < 82) begin : g_param_check_2
        $error("outer_ip_front: HDR_BYTES must hold 22 bytes of L2 and 60 of IP header");
    end
    if (L4_BYTES < 1 || 82 + L4_BYTES > HDR_BYTES) begin : g_param_check_3
        $error("outer_ip_front: L4_BYTES from offset 82 must lie in the window");
    end

    // The beat a snapshot belongs to; `hs` is the lowest bit so pipe_reg can reset it.
    typedef struct packed {
        logic [POS_W-1:0]    have;
        logic [LEN_BITS-1:0] len;
        logic [DATA_W-1:0]   tdata;
        logic                tlast;
        logic                tuser;
        logic                hs;
    } beat_t;

    typedef logic [HDR_BYTES-1:0][7:0] view_t;

    // ------------------------------------------------------------------ header window
    logic [7:0]          win_view [HDR_BYTES];
    logic [POS_W-1:0]    win_have;
    logic [LEN_BITS-1:0] win_len;

    hdr_window #(
        .DATA_W(DATA_W), .HDR_BYTES(HDR_BYTES), .POS_W(POS_W), .HEAD_MAX(HEAD_MAX)
    ) window (
        .clk, .rst,
        .s_tdata, .s_tkeep, .s_hs, .s_tlast,
        .view(win_view), .have(win_have), .beat_len(win_len),
        .region_known, .region_decide, .region_start, .region_end, .region_sum
    );

    // ------------------------------------------------------------------ snapshot (cut 0)
    typedef struct packed {
        view_t view;
        beat_t beat;
    } s0_t;
    s0_t s0_d, s0_q;

    always_comb begin
        for (int i = 0; i < HDR_BYTES; i++) s0_d.view[i] = win_view[i];
        s0_d.beat = '{have: win_have, len: win_len, tdata: s_tdata, tlast: s_tlast,
                      tuser: s_tuser, hs: s_hs};
    end

    pipe_reg #(.W($bits(s0_t)), .EN(CUTS[0]), .RST_BITS(1))
        cut0 (.clk, .rst, .d(s0_d), .q(s0_q));

    // ------------------------------------------------------------------ L2 and outer IP bytes
    typedef struct packed {
        view_t            view;
        logic [59:0][7:0] iph;
        logic [L4_BYTES-1:0][7:0] l4h;
        logic [6:0]       l4;
        logic [6:0]       l2;
        logic [15:0]      et;
        logic             l2_wait;
        logic             tags3;
        beat_t            beat;      // last: its lowest bit is hs, which pipe_reg resets
    } sa_t;
    sa_t sa_d, sa_q;

    logic [7:0] s1_view [HDR_BYTES];
    logic [7:0] s1_iph [60];
    always_comb for (int i = 0; i < HDR_BYTES; i++) s1_view[i] = s0_q.view[i];

    l2_parse #(
        .HDR_BYTES(HDR_BYTES),
        .POS_W(POS_W)
    ) l2p (
        .view(s1_view), .have(s0_q.beat.have),
        .l2(sa_d.l2), .et(sa_d.et), .wait_more(sa_d.l2_wait), .too_many_tags(sa_d.tags3),
        .iph(s1_iph)
    );

    always_comb begin : stage1_bytes
        logic [3:0]  ihl;
        logic [12:0] l4_hit;
        sa_d.view = s0_q.view;
        sa_d.beat = s0_q.beat;
        for (int i = 0; i < 60; i++) sa_d.iph[i] = s1_iph[i];
        ihl = s1_iph[0][3:0];
        // The header after the IP header: l4 = L2 + 4 * step, step = 10 (IPv6) or IHL, is
        // candidate c = (L2 - 14) / 4 + step - 5 of the 13 offsets 34 + 4c. Decoded one-hot
        // from each L2's own EtherType and IHL byte, so the select waits for no addition.
        sa_d.l4 = sa_d.l2 + ((sa_d.et == 16'h86DD) ? 7'd40 : 7'({ihl, 2'b00}));
        l4_hit = '0;
        for (int k = 0; k < 3; k++) begin
            logic [3:0] step;
            step = ({s0_q.view[12 + 4*k], s0_q.view[13 + 4*k]} == 16'h86DD) ? 4'd10
                 : s0_q.view[14 + 4*k][3:0];
            for (int c = 0; c < 13; c++)
                if (c + 5 - k >= 0 && c + 5 - k <= 15 && sa_d.l2 == 7'(14 + 4*k)
                    && step == 4'(c + 5 - k))
                    l4_hit[c] = 1'b1;
        end
        sa_d.l4h = '0;
        for (int c = 0; c < 13; c++)
            if (l4_hit[c])
                for (int i = 0; i < L4_BYTES; i++) sa_d.l4h[i] = s0_q.view[34 + 4*c + i];
    end

    pipe_reg #(.W($bits(sa_t)), .EN(CUTS[2]), .RST_BITS(1))
        cut_s (.clk, .rst, .d(sa_d), .q(sa_q));

    // ------------------------------------------------------------------ word sums
    typedef struct packed {
        logic [31:0]      iph_sum;
        logic [31:0]      ip6_sum;
        logic [31:0]      eth_sum;
        logic [31:0]      ps4_sum;
        logic [31:0]      ps6_sum;
        sa_t              sa;        // last: its lowest bit is the beat's hs (RST_BITS)
    } s1_t;
    s1_t s1_d, s1_q;

    always_comb begin : stage1_sums
        logic [3:0] ihl;
        logic [63:0][15:0] iph_w, ip6_w, eth_w, ps4_w, ps6_w;
        s1_d.sa = sa_q;
        ihl = sa_q.iph[0][3:0];
        // Masked word by word into adder trees (a loop of additions would be 30 in series).
        iph_w = '0; ip6_w = '0; eth_w = '0; ps4_w = '0; ps6_w = '0;
        for (int w = 0; w < 30; w++)
            if (5'(w) < {ihl, 1'b0}) iph_w[w] = {sa_q.iph[2*w], sa_q.iph[2*w+1]};
        s1_d.iph_sum = word_sum(iph_w);
        for (int w = 0; w < 20; w++) ip6_w[w] = {sa_q.iph[2*w], sa_q.iph[2*w+1]};
        s1_d.ip6_sum = word_sum(ip6_w);
        for (int w = 0; w < 11; w++)
            if (7'(2*w) < sa_q.l2) eth_w[w] = {sa_q.view[2*w], sa_q.view[2*w+1]};
        s1_d.eth_sum = word_sum(eth_w);
        for (int w = 6; w < 10; w++) ps4_w[w] = {sa_q.iph[2*w], sa_q.iph[2*w+1]};
        s1_d.ps4_sum = word_sum(ps4_w);
        for (int w = 4; w < 20; w++) ps6_w[w] = {sa_q.iph[2*w], sa_q.iph[2*w+1]};
        s1_d.ps6_sum = word_sum(ps6_w);
    end

    pipe_reg #(.W($bits(s1_t)), .EN(CUTS[1]), .RST_BITS(1))
        cut1 (.clk, .rst, .d(s1_d), .q(s1_q));

    assign view     = s1_q.sa.view;
    assign have     = s1_q.sa.beat.have;
    assign beat_len = s1_q.sa.beat.len;
    assign tdata    = s1_q.sa.beat.tdata;
    assign tlast    = s1_q.sa.beat.tlast;
    assign tuser    = s1_q.sa.beat.tuser;
    assign hs       = s1_q.sa.beat.hs;
    assign l2       = s1_q.sa.l2;
    assign et       = s1_q.sa.et;
    assign l2_wait  = s1_q.sa.l2_wait;
    assign tags3    = s1_q.sa.tags3;
    assign iph      = s1_q.sa.iph;
    assign iph_sum  = s1_q.iph_sum;
    assign ip6_sum  = s1_q.ip6_sum;
    assign eth_sum  = s1_q.eth_sum;
    assign ps4_sum  = s1_q.ps4_sum;
    assign ps6_sum  = s1_q.ps6_sum;
    assign l4       = s1_q.sa.l4;
    assign l4h      = s1_q.sa.l4h;

endmodule

`default_nettype wire

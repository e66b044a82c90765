// SPDX-License-Identifier: Apache-2.0
//
// geneve_decap_classify — the Geneve decision (docs/geneve.md, steps 1-11) from the header
// front end's tap and a second window of the frame at the inner header, in registered stages,
// ending in one edit descriptor per frame for axis_edit (through the decap shell's queue).
//
//  U = G (the first byte after the outer IP header); tap_l4 = [U, U+16)
//  U  +2    +4    +6    +8          +9        +10    +12  +15 +16            K = U+16+4*OptLen
//  +-----+-----+-----+-----+----------+---------+------+-----+---+---- ~ ----+-------------------
//  |sport|dport|ulen |csum |Ver|OptLen|O|C|rsvd |proto | VNI |rsv| options   | inner window
//  +-----+-----+-----+-----+----------+---------+------+-----+---+---- ~ ----+-------------------
//   UDP (8)                 Geneve (8)                          0..252 bytes   [K, K+26)
//
//  inner window [K, K+26), read as bytes 0..15 and 24..25 of it:
//   0x6558 (inner Ethernet)  K: dst(6) src(6) et(2) | v/ihl TOS ... | K+24: IPv4 header checksum
//   0x0800 / 0x86DD (IP)     K: v/ihl TOS(ECN) len ... K+10: IPv4 header checksum
//
// K takes 64 values per G (G + 16 .. G + 268) and the window can end at byte 375, past the
// front end's 128-byte capture. The inner window unit (A0..A4) finds K itself, on the input
// stream: the candidates for the TPIDs, the IP version/IHL and the Opt Len byte (byte G + 8,
// G = 34 + 4u for u = 0..12) are captured by beat position as their beats pass, with K / 4
// for each candidate G (A1), G is formed from the captured candidates and K taken from G's
// (A2), K is chosen from the beat of byte G + 8 on and held for the frame (A3); the inner
// window's bytes are then captured by beat position keyed on K (A4), from the stream delayed
// by the same stages: every byte the window reads lies at or after byte G + 8, so it reaches
// A4 no earlier than K, whatever the idle cycles. One record per frame leaves A4 at the beat
// holding byte K + 25, or at the frame's last beat.
//
// Stages, tap side (tap_valid = cycle T; the VNI looked up from the tap in cycle T and answered
// by hash_table (LOOKUP_LATENCY 5) in cycle T+5):
//   V1 (T)    UDP/Geneve fields and every "frame ends before" and length check as a flag
//   V2 (T+1)  steps 1-8 with the VNI taken as a hit, but for the first two checks (not
//             Geneve; the IPv4 checksum verdict, arriving now), registered as flags;
//             whether the frame reaches step 9 and waits for the inner window; offsets
//   V3 (T+2)  the first two checks put first; offsets and lengths of both push variants;
//             the pseudo-header sum's first fold;
//             step 9's choices as one-hot flags (which length limit; the protocol type with
//             the outer ECN), ip_end - K against each limit
//   V4 (T+3)  the sum's second fold; ip_end - K against the limit chosen
//   W  (T+4)  V4's word held while the table answers
//   V5 (T+5)  the VNI table's answer: unknown VNI, the push and its VLAN ID; the record is
//             queued (T+6)
// Stream side (input handshake of a beat = cycle t):
//   A0 (t) the beat registered (tkeep and tuser before the guard), its index in the frame
//   (a count and a one-hot), the IPv6 EtherType compares; A1 (t+1) candidates
//   captured (G for each count of tags), tkeep's 4-byte groups; A2 (t+2) G by the captured
//   tags and G's K, the beat's bytes and the guard's hole; A3 (t+3) K held for the frame,
//   with A4's byte enables as registers (the beat's position after K's beat, each window
//   byte's beat after it), the inner EtherType's compares on each lane it may lie in and
//   n - K (for K taken and K held);
//   A4 (t+4) the window captured, n - K against each of step 9's limits; the record queued
//   (t+5) with one flag per case of step 9's choices (each limit; the inner ECN under each
//   protocol type)
// Queues: each record is written into a sync_fifo without bypass and is on its output two
// cycles later, so the join reads registers only. The fields only J3/J4 read (the tap's
// descriptor fields, the window's inner MACs) go into a second queue beside each, popped a
// cycle after it by a register (J1's valid; the window pop registered) and loaded by J2 from
// its head: the join's pop drives the output enables of the narrow queues only.
// Join: the tap record of a frame that reaches step 9 waits for its window record; the others
// go on at once (their window records are discarded when they come). Then:
//   J1        the records registered; step 9's length checks (n - K and ip_end - K against the
//             bytes it reads) and RFC 6040's drop and rewrite, each an AND-OR of the tap
//             record's one-hot choice with the window record's flag for it; RX error, short
//   J2        the outcome's priority, the policy, early drops, the action; the RFC 1624 sum
//   J3        the RFC 1624 fold; where the inner IP header lies in the output (s); the
//             head's layout selects, the action folded in
//   J4        the output head (constant byte positions under selects) and the descriptor
// desc_valid is high for one cycle 4 cycles after the join. The join is in cycle T+7 (= the
// window's trigger + 12: the tap comes 5 cycles after the beat completing the 128-byte window)
// or, for a frame that reaches step 9, max(T+7, t+7) with t the handshake of the beat holding
// byte K + 25 (or the frame's last beat when it ends first). Latency in cycles, beat to
// descriptor: 16 from the window's trigger, 11 from the beat holding byte K + 25.
//
// Late checks are the engine's: MAC RX error, a frame shorter than ip_end (min_len), the UDP
// checksum (over [U, ip_end) seeded with the IPv4 pseudo-header; for IPv6 over [L2+8, ip_end),
// the addresses lying just before U, seeded with the length and 17).

`default_nettype none

module geneve_decap_classify
    import parse_pkg::*;
    import stream_pkg::*;
    import geneve_decap_pkg::*;
#(
    // Width of the data bus in bits: 64, 128, 256 or 512 (the stream watched for the window).
    parameter int DATA_W = 256,
    // Bytes of the output head a descriptor may overlay: the outer Ethernet header (2 tags),
    // a pushed tag and an inner IPv4 header to its checksum (22 + 4 + 12 bytes, to a word).
    parameter int HEAD_BYTES = 40,
    // Frame length bits.
    parameter int LEN_W = 17,
    // Bytes of the front end's L4 window from U (UDP 8 + Geneve's fixed 8).
    parameter int L4_BYTES = 16
) (
    input  wire logic                      clk,
    input  wire logic                      rst,

    // The beats the shell's front end sees: its handshake, the data and tlast, but tkeep and
    // tuser as they enter the block, before the tkeep guard (A1 applies the guard's rule to
    // its own registers, so no input reaches A0 through the guard's logic)
    input  wire logic [DATA_W-1:0]         s_tdata,
    input  wire logic [DATA_W/8-1:0]       s_tkeep,
    input  wire logic                      s_hs,
    input  wire logic                      s_tlast,
    input  wire logic                      s_tuser,

    // From ip_front (see there)
    input  wire logic                      tap_valid,
    input  wire logic                      tap_whole,
    input  wire logic                      tap_rx_err,
    input  wire logic                      tap_l2_short,
    input  wire logic [22*8-1:0]           tap_l2_bytes,
    input  wire logic [4:0]                tap_l2_len,
    input  wire logic                      tap_ipv4,
    input  wire logic                      tap_ipv6,
    input  wire logic [7:0]                tap_ip_proto,
    input  wire logic                      tap_short_fixed,
    input  wire logic                      tap_ip_ver_bad,
    input  wire logic                      tap_ip_frag,
    input  wire logic                      tap_ip_frag_off,
    input  wire logic signed [16:0]        tap_ip_pl,
    input  wire logic [1:0]                tap_ip_ecn,
    input  wire logic [31:0]               tap_ip_src,
    input  wire logic [31:0]               tap_ip_dst,
    input  wire logic [7:0]                tap_g,
    input  wire logic signed [8:0]         tap_have_l4,
    input  wire logic [L4_BYTES*8-1:0]     tap_l4,
    input  wire logic                      tap_csum_ok,     // cycle T+1

    // CONTROL, PORT
    input  wire logic                      ctrl_vni_enable,
    input  wire logic                      ctrl_critical_punt,
    input  wire logic                      ctrl_drop_punt,
    input  wire logic                      ctrl_drop_pass,
    input  wire logic [15:0]               ctrl_port,

    // VNI table (hash_table, LOOKUP_LATENCY 5): key = VNI; value = {push, VLAN ID}
    output      logic                      lk_valid,
    output      logic [23:0]               lk_key,
    input  wire logic                      rs_valid,
    input  wire logic                      rs_hit,
    input  wire logic [12:0]               rs_value,

    output      logic                      desc_valid,
    output      logic                      desc_drop,
    output      logic signed [LEN_W:0]     desc_shift,
    output      logic [HEAD_BYTES*8-1:0]   desc_head,
    output      logic [HEAD_BYTES-1:0]     desc_head_en,
    output      logic [LEN_W-1:0]          desc_out_len,
    output      logic [LEN_W-1:0]          desc_min_len,
    output      logic                      desc_sum_en,
    output      logic [LEN_W-1:0]          desc_sum_start,
    output      logic [LEN_W-1:0]          desc_sum_end,
    output      logic [15:0]               desc_sum_seed,
    output      outcome_e                  desc_outcome,
    output      logic [24:0]               desc_tvni        // {decapsulated, VNI}
);

    localparam int KW      = DATA_W / 8;
    localparam int KW_LOG  = $clog2(KW);
    localparam int IDX_W   = 6;                    // beat index in the frame, saturating at 63
    localparam int NB_W    = IDX_W + KW_LOG + 1;   // bytes of the frame through a beat
    localparam int K_W     = 9;                    // K <= 82 + 16 + 252 = 350
    localparam int NCAND   = 16;                   // G = 34 + 4u, u = 0..12 (13..15 unused)
    localparam int IW_N    = 18;                   // window bytes kept: 0..15, 24, 25
    localparam int IW_LAST = 25;                   // the window's last byte (K + 25)
    // Beats after K's beat a window byte can lie in: (K % KW + 25) / KW, K % KW <= KW - 2.
    localparam int REL_N   = (KW - 2 + IW_LAST) / KW + 1;
    localparam int GN      = KW / 4;               // groups of 4 tkeep bits
    localparam int KQ_N    = KW / 4;               // values of K % KW / 4 (K = 4k + 2)

    if (DATA_W != 64 && DATA_W != 128 && DATA_W != 256 && DATA_W != 512) begin : g_check_w
        $error("geneve_decap_classify: DATA_W must be 64, 128, 256 or 512");
    end
    if (HEAD_BYTES < 38 || HEAD_BYTES % 8 != 0) begin : g_check_head
        $error("geneve_decap_classify: HEAD_BYTES must be a multiple of 8, at least 38");
    end
    if (LEN_W != 17) begin : g_check_len
        $error("geneve_decap_classify: LEN_W must be 17 (L2 + an IP length)");
    end
    if (L4_BYTES < 16 || L4_BYTES % 4 != 0) begin : g_check_l4
        $error("geneve_decap_classify: L4_BYTES must be a multiple of 4, at least 16");
    end

    localparam logic [7:0]  IPPROTO_UDP = 8'd17;
    localparam logic [15:0] ET_IPV4 = 16'h0800;
    localparam logic [15:0] ET_IPV6 = 16'h86DD;
    localparam logic [15:0] ET_TEB  = 16'h6558;

    // Window byte kept at m (0..IW_N-1): its offset from K
    // The lengths step 9 compares with, from K: the inner Ethernet header (14) and an inner
    // IPv4 (+12) / IPv6 (+2) header's bytes RFC 6040 reads.
    localparam int LT_C [6] = '{0, 2, 12, 14, 16, 26};

    function automatic int iw_off(input int m);
        iw_off = (m < 16) ? m : m + 8;
    endfunction

    // The beat after K's beat (0, 1, ..) holding byte K + j when K % KW = 4q + 2 (constants only)
    function automatic int iw_rel(input int q, input int j);
        iw_rel = (4*q + 2 + j) / KW;
    endfunction

    // =======================================================================================
    // The inner window unit (stream side)
    // =======================================================================================

    // ---- A0: the beat registered, with its index in the frame ------------------------------
    // The index is the count of the frame's beats before the one in A0, stepped by A0's own
    // registered handshake: the input handshake (combinational in the shell) reaches one
    // register only.
    logic [DATA_W-1:0] a0_data_q;
    logic [KW-1:0]     a0_keep_q;
    logic              a0_hs_q, a0_last_q, a0_user_q;
    logic [IDX_W-1:0]  a0_idx_q;
    // The index as a one-hot of the beats A1's candidates lie in (bytes 12 .. 102), stepped
    // beside a0_idx_q: A1's capture enables are then an AND of two registers, not a compare
    // of the index (which synthesis would fold into the captures' set/reset).
    localparam int OH_N = 102 / KW + 1;
    logic [OH_N-1:0]   a0_oh_q;        // a0_oh_q[b]: a0_idx_q == b
    // The EtherType at 12 + 4t (t tags) is IPv6, compared on the input beat (as the front
    // end's own registers do), so A1's u starts from one flip-flop, not a 16-bit compare
    logic [2:0]        a0_v6_q;

    function automatic logic [15:0] s_et(input int t);
        s_et = {s_tdata[8 * ((12 + 4*t) % KW) +: 8], s_tdata[8 * ((13 + 4*t) % KW) +: 8]};
    endfunction

    always_ff @(posedge clk) begin
        a0_data_q <= s_tdata;
        a0_keep_q <= s_tkeep;
        a0_hs_q   <= s_hs;
        a0_last_q <= s_tlast;
        a0_user_q <= s_tuser;
        for (int t = 0; t < 3; t++) a0_v6_q[t] <= s_et(t) == ET_IPV6;
        if (a0_hs_q) a0_idx_q <= a0_last_q ? '0 : (a0_idx_q == '1 ? a0_idx_q : a0_idx_q + 1'b1);
        // (all zero from index OH_N on; the index saturates at 63 > OH_N)
        if (a0_hs_q) a0_oh_q <= a0_last_q ? OH_N'(1) : a0_oh_q << 1;
        if (rst) begin
            a0_idx_q <= '0;
            a0_oh_q  <= OH_N'(1);
            a0_hs_q  <= 1'b0;
        end
    end

    // ---- A1: the candidates captured by beat position --------------------------------------
    function automatic logic [7:0] a0_byte(input int i);
        a0_byte = a0_data_q[8 * (i % KW) +: 8];
    endfunction
    function automatic logic a0_at(input int i);
        a0_at = a0_hs_q && a0_oh_q[i / KW];
    endfunction

    logic                   cap_tpid1_q, cap_tpid2_q;   // a TPID at byte 12 / 16
    logic [NCAND-1:0][6:0]  cap_kw_q;           // K / 4 if G = 34 + 4u: 12 + u + Opt Len
                                                //   (Opt Len at byte 42 + 4u)
    logic [DATA_W-1:0]      a1_data_q;
    logic                   a1_hs_q, a1_last_q, a1_user_q;
    logic [IDX_W-1:0]       a1_idx_q;
    // The tkeep guard's rule in two steps, 4-byte groups in A1, the beat in A2
    logic [GN-1:0]          a1_any_q;           // group g has a tkeep bit set
    logic [GN-1:0]          a1_all_q;           //   ... all its bits
    logic [GN-1:0]          a1_up_q;            //   ... a clear bit right below a set one
    logic [GN-1:0][KW_LOG:0] a1_c_q;            // 4g + 1 + the index of its top set bit
    logic [GN-1:0]          a1_top_q;           // group g holds the beat's top set bit
    logic                   a1_none_q;          // no tkeep bit set
    logic                   a1_whole_q;         // not the last beat, or its top byte is kept
    logic [REL_N-1:0][IDX_W:0] a1_idx_m_q;      // idx - r, for A2's compares with K / KW
    logic                   hole_q;             // a tkeep hole on an earlier beat of the frame

    // The tkeep guard's rule (axis_keep_check, as the shell applies it to the beats it sees):
    // the beat's bytes are the tkeep filled down from its highest set bit (all of them before
    // the last beat, at least byte 0 on it), and a hole (a clear bit before the last beat, a
    // clear bit below a set one or no byte on it) makes the frame's last beat tuser = 1.
    // A1 reduces each group of 4 tkeep bits (one LUT per flag) and finds the top group, A2
    // the groups.
    always_ff @(posedge clk) begin
        for (int g = 0; g < GN; g++) begin
            logic [4:0] k;
            k = {(g < GN - 1) ? a0_keep_q[4*g + 4] : 1'b0, a0_keep_q[4*g +: 4]};
            a1_top_q[g] <= |k[3:0] && !(|(a0_keep_q >> (4*g + 4)));
            a1_any_q[g] <= |k[3:0];
            a1_all_q[g] <= &k[3:0];
            a1_up_q[g]  <= |(~k[3:0] & k[4:1]);
            a1_c_q[g]   <= (KW_LOG+1)'(4*g) + (k[3] ? (KW_LOG+1)'(4) : k[2] ? (KW_LOG+1)'(3)
                                               : k[1] ? (KW_LOG+1)'(2) : (KW_LOG+1)'(1));
        end
        a1_none_q  <= !(|a0_keep_q);
        a1_whole_q <= !a0_last_q || a0_keep_q[KW-1];
    end

    // G = 34 + 4u from the tags, the IP version and the IHL: u = tags + (IP header length
    // - 20) / 4; IPv6: 5 (40 bytes); IHL < 5: 0 (the tap says PASS). As an AND-OR of the three
    // cases: with a constant on a select's input the capture would take the case's condition
    // as a synchronous set/reset, A0's enable in it.
    function automatic logic [3:0] u_sum(input logic v6, input logic [3:0] ihl, input int t);
        logic ge5;
        ge5 = ihl >= 4'd5;
        u_sum = ({4{v6}} & 4'(5 + t)) | ({4{!v6 && ge5}} & (ihl - 4'd5 + 4'(t)))
              | ({4{!v6 && !ge5}} & 4'(t));
    endfunction

    // For each count of tags t, u and the beat holding byte G + 8, captured with the version
    // and IHL they read (bytes 12 + 4t .. 14 + 4t lie in one beat at every width). A1 decides
    // nothing from the beat it captures from: A2 picks by the captured TPIDs, so no path runs
    // from a beat's bytes through a capture's select into the choice of u (at 512 bits all of
    // bytes 12..22 lie in the beat that can hold byte G + 8).
    // cap_g8b_q resets to the least value it takes (42 / KW, above the beat of byte 22), so
    // that before a frame's first captures no beat is taken for byte G + 8's.
    logic [2:0][3:0]       cap_u_q;
    logic [2:0][IDX_W-1:0] cap_g8b_q;           // (42 + 4u) / KW

    always_ff @(posedge clk) begin
        if (a0_at(12)) cap_tpid1_q <= is_tpid({a0_byte(12), a0_byte(13)});
        if (a0_at(16)) cap_tpid2_q <= is_tpid({a0_byte(16), a0_byte(17)});
        for (int t = 0; t < 3; t++) begin
            if (a0_at(12 + 4*t)) begin
                logic [3:0] u;
                u = u_sum(a0_v6_q[t], a0_byte(14 + 4*t)[3:0], t);
                cap_u_q[t]   <= u;
                cap_g8b_q[t] <= IDX_W'((7'd42 + {1'b0, u, 2'b00}) >> KW_LOG);
            end
        end
        for (int u = 0; u < NCAND; u++) begin
            if (a0_at(42 + 4*u)) cap_kw_q[u] <= 7'(12 + u) + 7'(a0_byte(42 + 4*u)[5:0]);
        end
        if (rst) cap_g8b_q <= {3{IDX_W'(42 / KW)}};
        a1_data_q <= a0_data_q;
        a1_hs_q   <= a0_hs_q;
        a1_last_q <= a0_last_q;
        a1_idx_q  <= a0_idx_q;
        a1_user_q <= a0_user_q;
        for (int r = 0; r < REL_N; r++) a1_idx_m_q[r] <= (IDX_W+1)'(a0_idx_q) - (IDX_W+1)'(r);
        if (rst) a1_hs_q <= 1'b0;
    end

    // ---- A2: u from the captured tags, its K; byte G + 8's beat -----------------------------
    // The captures in this cycle hold the frame's beats through this one. The bytes u depends
    // on (12..22) lie in this beat or an earlier one whenever the beat can hold byte G + 8
    // (42 / KW <= the beat's index), so u and K are the frame's on any beat K is taken at; on
    // an earlier beat a2_g8_q is clear whatever u is read.
    logic [K_W-1:0]             a2_k_q;         // K = 4 * cap_kw_q[u] + 2
    logic                       a2_g8_q;        // the beat is byte G + 8's beat or a later one
    logic [DATA_W-1:0]          a2_data_q;
    logic                       a2_hs_q, a2_last_q, a2_user_q;
    logic                       a2_first_q;     // the frame's first beat (index 0)
    logic [NB_W-1:0]            a2_nb_q;
    logic [REL_N-1:0][IDX_W:0]  a2_idx_m_q;     // idx - r, for A3's compares with K / KW

    always_ff @(posedge clk) begin
        logic [NB_W-1:0] nb, cnt;
        logic            hole;
        logic [1:0]      tags;
        logic [3:0]      u;
        logic [2:0]      g8;
        // the frame's bytes through this beat: idx * KW + the count, read from the top group
        // with a byte (1 with none); no carry unless the beat is whole
        cnt = NB_W'(a1_none_q);
        for (int g = 0; g < GN; g++) cnt = cnt | (NB_W'(a1_c_q[g]) & {NB_W{a1_top_q[g]}});
        nb = a1_whole_q ? NB_W'({7'(a1_idx_q) + 7'd1, KW_LOG'(0)})
                        : NB_W'({a1_idx_q, KW_LOG'(0)}) | cnt;
        hole = a1_last_q ? (|a1_up_q) || !(|a1_any_q) : !(&a1_all_q);
        a2_user_q <= a1_user_q || (a1_last_q && (hole_q || hole));
        if (a1_hs_q) hole_q <= !a1_last_q && (hole_q || hole);
        if (rst) hole_q <= 1'b0;
        a2_idx_m_q <= a1_idx_m_q;
        // (u by the tags, then K's select; each count of tags' compare made, then the tags
        // choose)
        tags = !cap_tpid1_q ? 2'd0 : !cap_tpid2_q ? 2'd1 : 2'd2;
        u    = cap_u_q[tags];
        for (int t = 0; t < 3; t++) g8[t] = a1_idx_q >= cap_g8b_q[t];
        a2_k_q  <= {cap_kw_q[u], 2'b10};
        a2_g8_q <= g8[tags];
        a2_data_q <= a1_data_q;
        a2_hs_q   <= a1_hs_q;
        a2_last_q <= a1_last_q;
        a2_first_q <= a1_idx_q == '0;
        a2_nb_q   <= nb;
        if (rst) a2_hs_q <= 1'b0;
    end

    // ---- A3: K chosen at byte G + 8's beat, held to the frame's end -------------------------
    logic [K_W-1:0]     a3_k_q;
    logic               a3_kv_q;
    logic [DATA_W-1:0]  a3_data_q;
    logic               a3_hs_q, a3_last_q, a3_user_q;
    // A4's byte enables are one LUT of registers: a3_relv_q (the beat is a handshake, K is
    // valid and the beat is r beats after K's beat: idx - K / KW == r) and a3_pick_q (window
    // byte m lies r beats after K's beat, from K % KW), both registered beside K.
    logic [REL_N-1:0]            a3_relv_q;
    logic [IW_N-1:0][REL_N-1:0]  a3_pick_q;
    logic [REL_N-1:0]            a3_pick_last_q;   // ... for window byte IW_LAST
    // K % KW / 4 for A4's byte selects: one kept copy per window byte (fan-out)
    logic [IW_N-1:0][KW_LOG-3:0] a3_kq_q;
    // The inner EtherType's compares, made on the lanes before A4 selects them: window byte
    // 12 (13) when K % KW = 4q + 2 is 0x08 / 0x86 (0x00 / 0xDD)
    logic [KQ_N-1:0][1:0] a3_e12_q, a3_e13_q;
    // n - K for A4, subtracted here from each register a3_k_d selects (K taken on this beat:
    // a3_dn_q; K held: a3_dh_q), the select registered as a3_dsel_q: neither subtract waits
    // for K's select, and A4's length compares are a carry chain and one LUT of registers.
    logic signed [NB_W:0] a3_dn_q, a3_dh_q;
    logic                 a3_dsel_q;

    logic             a3_held;     // K is held (a beat after the first with K valid)
    logic [K_W-1:0]   a3_k_d;
    assign a3_held = !a2_first_q && a3_kv_q;
    assign a3_k_d  = (a2_hs_q && !a3_held) ? a2_k_q : a3_k_q;

    always_ff @(posedge clk) begin
        logic             kv;
        logic [REL_N-1:0] rel;
        // K is taken from byte G + 8's beat on (its Opt Len captured). A frame that reaches
        // step 9 holds byte G + 16, so that beat holds byte G + 8 whatever its fill; the
        // window record of any other frame is not read (nor are window bytes it loads).
        kv = a3_held || a2_g8_q;
        if (a2_hs_q) begin
            a3_kv_q <= kv;
        end
        a3_k_q    <= a3_k_d;
        a3_dn_q   <= $signed({1'b0, a2_nb_q}) - $signed((NB_W+1)'(a2_k_q));
        a3_dh_q   <= $signed({1'b0, a2_nb_q}) - $signed((NB_W+1)'(a3_k_q));
        a3_dsel_q <= a2_hs_q && !a3_held;
        // (both compares made, then the K chosen)
        for (int r = 0; r < REL_N; r++) begin
            rel[r] = (a2_hs_q && !a3_held) ? a2_idx_m_q[r] == (IDX_W+1)'(a2_k_q[K_W-1:KW_LOG])
                                           : a2_idx_m_q[r] == (IDX_W+1)'(a3_k_q[K_W-1:KW_LOG]);
        end
        a3_relv_q <= {REL_N{a2_hs_q && kv}} & rel;
        for (int r = 0; r < REL_N; r++) begin
            for (int m = 0; m < IW_N; m++) begin
                logic p;
                p = 1'b0;
                for (int q = 0; q < KQ_N; q++) begin
                    if (iw_rel(q, iw_off(m)) == r && a3_k_d[KW_LOG-1:2] == (KW_LOG-2)'(q)) p = 1'b1;
                end
                a3_pick_q[m][r] <= p;
            end
            begin
                logic p;
                p = 1'b0;
                for (int q = 0; q < KQ_N; q++) begin
                    if (iw_rel(q, IW_LAST) == r && a3_k_d[KW_LOG-1:2] == (KW_LOG-2)'(q)) p = 1'b1;
                end
                a3_pick_last_q[r] <= p;
            end
        end
        for (int q = 0; q < KQ_N; q++) begin
            logic [7:0] b12, b13;
            b12 = a2_data_q[8 * ((4*q + 2 + 12) % KW) +: 8];
            b13 = a2_data_q[8 * ((4*q + 2 + 13) % KW) +: 8];
            a3_e12_q[q] <= {b12 == ET_IPV6[15:8], b12 == ET_IPV4[15:8]};
            a3_e13_q[q] <= {b13 == ET_IPV6[7:0], b13 == ET_IPV4[7:0]};
        end
        a3_data_q <= a2_data_q;
        a3_hs_q   <= a2_hs_q;
        a3_last_q <= a2_last_q;
        a3_user_q <= a2_user_q;
        if (rst) begin
            a3_hs_q   <= 1'b0;
            a3_kv_q   <= 1'b0;
            a3_relv_q <= '0;
        end
    end

    (* keep *) always_ff @(posedge clk) begin
        for (int m = 0; m < IW_N; m++) a3_kq_q[m] <= a3_k_d[KW_LOG-1:2];
    end

    // ---- A4: the window captured by beat position keyed on K; one record per frame ---------
    // K = 4k + 2: byte K + j is lane (K % KW + j) % KW of beat K / KW + (K % KW + j) / KW.
    // Each window byte's lane for every K % KW, then one select by K % KW (a balanced
    // multiplexer on the byte's own copy of it). The byte loads when the beat it lies in is
    // the one A3 flagged (one LUT of a3_pick_q and a3_relv_q).
    logic [KQ_N-1:0][IW_N-1:0][7:0] a4_byte_c;
    always_comb begin
        for (int q = 0; q < KQ_N; q++) begin
            for (int m = 0; m < IW_N; m++) begin
                a4_byte_c[q][m] = a3_data_q[8 * ((4*q + 2 + iw_off(m)) % KW) +: 8];
            end
        end
    end

    logic [IW_N-1:0]      a4_hit;
    logic [IW_N-1:0][7:0] a4_byte;
    logic                 a4_done;
    always_comb begin
        for (int m = 0; m < IW_N; m++) begin
            a4_hit[m]  = |(a3_pick_q[m] & a3_relv_q);
            a4_byte[m] = a4_byte_c[a3_kq_q[m]][m];
        end
        a4_done = |(a3_pick_last_q & a3_relv_q);
    end

    logic                 em_q;                  // this frame's record has left
    logic                 a4_emit_q, a4_ended_q;
    logic                 a4_rx_end_q;           // ended, with tuser
    logic signed [NB_W:0] a4_d_q;                // n - K (the frame's length past K)
    logic [5:0]           a4_dlt_q;              // ended, n - K < LT_C[c]
    logic [K_W-1:0]       a4_k_q;
    logic [IW_N-1:0][7:0] iw_q;                  // (bytes 12, 13 read as iw_e12_q, iw_e13_q)
    logic [1:0]           iw_e12_q, iw_e13_q;    // byte 12 is 0x08 / 0x86, 13 is 0x00 / 0xDD

    // d < lim (lim >= 0) as the sign of d - lim, one bit wider (no overflow): the carry
    // chain's top sum bit, with no LUT behind it
    function automatic logic lt_c(input logic signed [NB_W:0] d, input logic [NB_W+1:0] lim);
        logic [NB_W+1:0] x;
        x = {d[NB_W], d} - lim;
        lt_c = x[NB_W+1];
    endfunction

    always_ff @(posedge clk) begin
        // (a4_hit and a4_done imply a3_hs_q and a3_kv_q)
        a4_emit_q <= a3_hs_q && !em_q && (a4_done || a3_last_q);
        if (a3_hs_q) em_q <= a3_last_q ? 1'b0 : (em_q || a4_done);
        for (int m = 0; m < IW_N; m++) begin
            if (a4_hit[m]) iw_q[m] <= a4_byte[m];
        end
        if (a4_hit[12]) iw_e12_q <= a3_e12_q[a3_kq_q[12]];
        if (a4_hit[13]) iw_e13_q <= a3_e13_q[a3_kq_q[13]];
        a4_ended_q  <= a3_last_q;
        a4_rx_end_q <= a3_last_q && a3_user_q;
        // n - K from A3's differences: each compare made on both, then the one of the K A3
        // took chosen (a carry chain and one LUT)
        a4_d_q      <= a3_dsel_q ? a3_dn_q : a3_dh_q;
        for (int c = 0; c < 6; c++) begin
            a4_dlt_q[c] <= a3_last_q && (a3_dsel_q ? lt_c(a3_dn_q, (NB_W+2)'(LT_C[c]))
                                                   : lt_c(a3_dh_q, (NB_W+2)'(LT_C[c])));
        end
        a4_k_q     <= a3_k_q;
        if (rst) begin
            em_q      <= 1'b0;
            a4_emit_q <= 1'b0;
        end
    end

    // The window's record in two queues: what J1 reads (the joined queue, popped by the
    // join), and the inner MACs, which only J4's head reads (popped a cycle later by a
    // register, so the join's pop reaches no enable of theirs).
    typedef struct packed {
        logic [7:0]        b0;       // window bytes 0, 1, 14, 15
        logic [7:0]        b1;
        logic [7:0]        b14;
        logic [7:0]        b15;
        logic              ended;    // the frame ended at or before byte K + 25
        logic [NB_W:0]     d;        // its length - K (ended)
        // Step 9's length checks, one flag per limit the tap record may choose (trec_t.lim):
        logic [3:0]        dl;       // ended and d < 0, 2, 12, 14
        logic              dl_te;    // ended and d < the limit of 0x6558 under RFC 6040:
                                     //   26 (inner IPv4), 16 (IPv6), 14 (neither)
        logic              et_v4;    // window bytes 12, 13 (the inner EtherType, TEB): IPv4
        logic              et_v6;    //   ... IPv6
        // The inner IP header's ECN under each protocol type (bit 0: 0x0800, byte 1 [1:0];
        // bit 1: 0x86DD, byte 1 [5:4]; bit 2: 0x6558, byte 15 of an inner IPv4 / IPv6 header,
        // all clear when the inner EtherType is neither)
        logic [2:0]        nect;     // Not-ECT (00)
        logic [2:0]        ne_ce;    // not CE (11)
        logic [2:0]        ect0;     // ECT(0) (10)
        logic [16:0]       hs_teb;   // ~HC + ~m (RFC 1624), the inner IPv4 header at 14 (0x6558)
        logic [16:0]       hs_l3;    //   ... at 0 (0x0800)
        logic              rx_end;   // ended, its last beat's tuser set
        logic [K_W-1:0]    k;        // the K the window was taken at
    } irec_t;

    // Words in the RAM of each of the join's queues (iw_fifo, tap_fifo), which the join mirrors.
    localparam int JQ_DEPTH = 8;

    irec_t i_in, i_out;
    logic  i_s_ready, i_valid, i_pop_m_q;
    // The compares J1 needs are made here, before the queue, so that J1 reads only flags: one
    // per case of the tap record's choice, which J1 ANDs with it. Each is two LUTs of A4's
    // registers at most (the EtherType compared in A3, the lengths in A4).
    always_comb begin
        logic [1:0] e_v4, e_v6;          // the ECN bits under an inner IPv4 / IPv6 header
        i_in.b0     = iw_q[0];
        i_in.b1     = iw_q[1];
        i_in.b14    = iw_q[14];
        i_in.b15    = iw_q[15];
        i_in.ended  = a4_ended_q;
        i_in.d      = a4_d_q;
        i_in.et_v4  = iw_e12_q[0] && iw_e13_q[0];
        i_in.et_v6  = iw_e12_q[1] && iw_e13_q[1];
        // (the limits rise with c, so d < 14 implies d < 16 and d < 26)
        i_in.dl     = a4_dlt_q[3:0];
        i_in.dl_te  = a4_dlt_q[3] || (i_in.et_v6 && a4_dlt_q[4]) || (i_in.et_v4 && a4_dlt_q[5]);
        e_v4 = iw_q[15][1:0];
        e_v6 = iw_q[15][5:4];
        i_in.nect   = {(i_in.et_v4 && e_v4 == 2'b00) || (i_in.et_v6 && e_v6 == 2'b00),
                       iw_q[1][5:4] == 2'b00, iw_q[1][1:0] == 2'b00};
        i_in.ne_ce  = {(i_in.et_v4 && e_v4 != 2'b11) || (i_in.et_v6 && e_v6 != 2'b11),
                       iw_q[1][5:4] != 2'b11, iw_q[1][1:0] != 2'b11};
        i_in.ect0   = {(i_in.et_v4 && e_v4 == 2'b10) || (i_in.et_v6 && e_v6 == 2'b10),
                       iw_q[1][5:4] == 2'b10, iw_q[1][1:0] == 2'b10};
        i_in.hs_teb   = 17'(~{iw_q[IW_N-2], iw_q[IW_N-1]}) + 17'(~{iw_q[14], iw_q[15]});
        i_in.hs_l3    = 17'(~{iw_q[10], iw_q[11]}) + 17'(~{iw_q[0], iw_q[1]});
        i_in.rx_end = a4_rx_end_q;
        i_in.k      = a4_k_q;
    end

    sync_fifo #(
        .WIDTH($bits(irec_t)),
        .DEPTH(JQ_DEPTH),
        .BYPASS(1'b0)
    ) iw_fifo (
        .clk(clk), .rst(rst),
        .s_data(i_in), .s_valid(a4_emit_q), .s_ready(i_s_ready),
        .m_data(i_out), .m_valid(i_valid), .m_ready(i_pop_m_q)
    );

    // The inner MACs (window bytes 0..11), written with the record above and popped by
    // iw_pop_q (i_pop_q registered): the word popped from iw_fifo in cycle c is at this
    // queue's head in cycle c + 1. It holds one word more than iw_fifo at most (the one
    // popped there and not yet here): 16 words.
    logic [12*8-1:0] iw_macs_out;
    logic            iw_macs_s_ready, iw_macs_valid, iw_pop_q;

    sync_fifo #(
        .WIDTH(12*8),
        .DEPTH(16),
        .BYPASS(1'b0)
    ) iw_macs_fifo (
        .clk(clk), .rst(rst),
        .s_data(iw_q[11:0]), .s_valid(a4_emit_q), .s_ready(iw_macs_s_ready),
        .m_data(iw_macs_out), .m_valid(iw_macs_valid), .m_ready(iw_pop_q)
    );

    // =======================================================================================
    // Tap side
    // =======================================================================================
    function automatic logic [7:0] l4b(input int i);
        l4b = tap_l4[8*i +: 8];
    endfunction

    // The VNI is looked up from the tap: every frame, the answer used only where it decides.
    assign lk_valid = tap_valid;
    assign lk_key   = {l4b(12), l4b(13), l4b(14)};

    // ---- V1: fields and flags ----------------------------------------------------------------
    logic               v1_valid_q, v1_whole_q, v1_rx_err_q, v1_v6_q;
    logic               v1_pass_ip_q, v1_short4_q, v1_port_ok_q;
    logic               v1_mf_q, v1_pl_lt16_q, v1_short8_q, v1_ulen_bad_q, v1_short16_q;
    logic               v1_ver_bad_q, v1_o_q, v1_c_q, v1_len_short_q, v1_csum_nz_q;
    logic [5:0]         v1_optlen_q;
    logic [15:0]        v1_proto_q;
    logic               v1_p_teb_q, v1_p_ip_q, v1_p_v6_q;   // the protocol type's compares
    logic [1:0]         v1_oecn_q;
    logic [23:0]        v1_vni_q;
    logic [7:0]         v1_u_q;
    logic [LEN_W-1:0]   v1_pl_q;
    logic signed [LEN_W:0] v1_ilen_q;        // ip_end - K
    logic [15:0]        v1_ulen_q;
    logic [17:0]        v1_addr_sum_q;
    logic [4:0]         v1_l2_len_q;
    logic [20*8-1:0]    v1_l2_q;             // outer bytes 0..19 (up to L2 - 2 with two tags)

    always_ff @(posedge clk) begin
        logic [15:0] dport, ulen;
        v1_valid_q <= tap_valid;
        if (tap_valid) begin
            dport = {l4b(2), l4b(3)};
            ulen  = {l4b(4), l4b(5)};
            v1_whole_q     <= tap_whole;
            v1_rx_err_q    <= tap_rx_err;
            v1_v6_q        <= tap_ipv6;
            v1_pass_ip_q   <= tap_l2_short || !(tap_ipv4 || tap_ipv6) || tap_short_fixed
                              || tap_ip_ver_bad || tap_ip_proto != IPPROTO_UDP || tap_ip_frag_off;
            v1_short4_q    <= tap_have_l4 < 9'sd4;
            v1_port_ok_q   <= dport == ctrl_port;
            v1_mf_q        <= tap_ip_frag;
            v1_pl_lt16_q   <= tap_ip_pl < 17'sd16;
            v1_short8_q    <= tap_have_l4 < 9'sd8;
            v1_ulen_bad_q  <= $signed({1'b0, ulen}) != tap_ip_pl;
            v1_short16_q   <= tap_have_l4 < 9'sd16;
            v1_ver_bad_q   <= l4b(8)[7:6] != 2'd0;
            v1_optlen_q    <= l4b(8)[5:0];
            v1_o_q         <= l4b(9)[7];
            v1_c_q         <= l4b(9)[6];
            v1_proto_q     <= {l4b(10), l4b(11)};
            v1_p_teb_q     <= {l4b(10), l4b(11)} == ET_TEB;
            v1_p_ip_q      <= {l4b(10), l4b(11)} == ET_IPV4 || {l4b(10), l4b(11)} == ET_IPV6;
            v1_p_v6_q      <= {l4b(10), l4b(11)} == ET_IPV6;
            v1_vni_q       <= {l4b(12), l4b(13), l4b(14)};
            v1_len_short_q <= tap_whole && $signed({{8{tap_have_l4[8]}}, tap_have_l4}) < tap_ip_pl;
            v1_csum_nz_q   <= {l4b(6), l4b(7)} != 16'h0000;
            v1_oecn_q      <= tap_ip_ecn;
            v1_u_q         <= tap_g;
            v1_pl_q        <= LEN_W'(tap_ip_pl);
            v1_ilen_q      <= (LEN_W+1)'(tap_ip_pl) - (LEN_W+1)'({7'(l4b(8)[5:0]) + 7'd4, 2'b00});
            v1_ulen_q      <= ulen;
            v1_addr_sum_q  <= tap_ipv4 ? (18'(tap_ip_src[31:16]) + 18'(tap_ip_src[15:0]))
                                       + (18'(tap_ip_dst[31:16]) + 18'(tap_ip_dst[15:0])) : '0;
            v1_l2_len_q    <= tap_l2_len;
            v1_l2_q        <= tap_l2_bytes[0 +: 20*8];
        end
        if (rst) v1_valid_q <= 1'b0;
    end

    // ---- V2: steps 1-8, the VNI taken as a hit -----------------------------------------------
    // The outcome of the checks after the first two; those two (not Geneve: PASS; the IPv4
    // checksum verdict, arriving now) are registered as flags and put first in V3.
    outcome_e v2_outcome;
    logic     v2_hdr_ok;       // steps 1-5 passed but for the first two checks
    logic     v2_wait;         // steps 1-8 passed but for the first two checks
    always_comb begin
        logic p_teb, p_ip;
        p_teb     = v1_p_teb_q;
        p_ip      = v1_p_ip_q;
        v2_hdr_ok = 1'b0;
        v2_wait   = 1'b0;
        if (v1_mf_q)                                   v2_outcome = OUT_DROP_FRAGMENT;
        else if (v1_pl_lt16_q)                         v2_outcome = OUT_DROP_IP_HEADER;
        else if (v1_short8_q)                          v2_outcome = OUT_DROP_TRUNCATED;
        else if (v1_ulen_bad_q)                        v2_outcome = OUT_DROP_IP_HEADER;
        else if (v1_short16_q)                         v2_outcome = OUT_DROP_TRUNCATED;
        else if (v1_ver_bad_q)                         v2_outcome = OUT_DROP_VERSION;
        else if ($signed(v1_ilen_q) < $signed((LEN_W+1)'(0)))                      v2_outcome = OUT_DROP_IP_HEADER;
        else begin
            v2_hdr_ok = 1'b1;
            if (v1_o_q)                                v2_outcome = OUT_PUNT_OAM;
            else if (v1_c_q)                           v2_outcome = ctrl_critical_punt
                                                                    ? OUT_PUNT : OUT_DROP_CRITICAL;
            else if (p_teb)                            {v2_wait, v2_outcome} = {1'b1, OUT_DECAP_TEB};
            else if (p_ip)                             {v2_wait, v2_outcome} = {1'b1, OUT_DECAP_L3};
            else                                       v2_outcome = OUT_PUNT;
        end
    end

    logic                  v2_valid_q, v2_hdr_ok_q, v2_wait_q, v2_whole_q, v2_rx_err_q;
    logic                  v2_len_short_q, v2_csum_nz_q, v2_l3v6_q;
    outcome_e              v2_outcome_q;       // (the two first checks apart:)
    logic                  v2_pass_q;          //   not Geneve
    logic                  v2_csum_bad_q;      //   the IPv4 header checksum wrong
    logic [1:0]            v2_oecn_q;
    logic [23:0]           v2_vni_q;
    logic [K_W-1:0]        v2_k_q;
    logic signed [LEN_W:0] v2_ilen_q;
    logic [LEN_W-1:0]      v2_ip_end_q, v2_sum_start_q;
    logic [18:0]           v2_seed_q;
    logic [4:0]            v2_l2_len_q;
    logic [20*8-1:0]       v2_l2_q;
    logic [15:0]           v2_proto_q;

    always_ff @(posedge clk) begin
        v2_valid_q <= v1_valid_q;
        if (v1_valid_q) begin
            v2_outcome_q   <= v2_outcome;
            v2_hdr_ok_q    <= v2_hdr_ok;
            v2_wait_q      <= v2_wait;
            v2_pass_q      <= v1_pass_ip_q || v1_short4_q || !v1_port_ok_q;
            v2_csum_bad_q  <= !tap_csum_ok;
            v2_whole_q     <= v1_whole_q;
            v2_rx_err_q    <= v1_rx_err_q;
            v2_len_short_q <= v1_len_short_q;
            v2_csum_nz_q   <= v1_csum_nz_q;
            v2_l3v6_q      <= v1_p_v6_q;
            v2_oecn_q      <= v1_oecn_q;
            v2_vni_q       <= v1_vni_q;
            v2_k_q         <= K_W'(v1_u_q) + K_W'({7'(v1_optlen_q) + 7'd4, 2'b00});
            v2_ilen_q      <= v1_ilen_q;
            v2_ip_end_q    <= LEN_W'(v1_u_q) + v1_pl_q;
            // IPv6: the addresses lie just before U, in the summed region
            v2_sum_start_q <= LEN_W'(v1_v6_q ? 8'(v1_u_q - 8'd32) : v1_u_q);
            v2_seed_q      <= 19'(v1_addr_sum_q) + 19'(v1_ulen_q) + 19'(IPPROTO_UDP);
            v2_l2_len_q    <= v1_l2_len_q;
            v2_l2_q        <= v1_l2_q;
            v2_proto_q     <= v1_proto_q;
        end
        if (rst) v2_valid_q <= 1'b0;
    end

    // ---- V3: shift and output length of both push variants; the seed's first fold ------------
    // DECAP_TEB: frame[K, ip_end) (shift K); DECAP_L3: the outer header to L2 - 2, the protocol
    // type, frame[K, ip_end) (shift K - L2). A pushed tag: 4 bytes more, shift 4 less.
    logic                  v3_valid_q, v3_hdr_ok_q, v3_wait_q, v3_whole_q, v3_rx_err_q;
    logic                  v3_len_short_q, v3_csum_nz_q, v3_l3v6_q;
    outcome_e              v3_outcome_q;
    logic [1:0]            v3_oecn_q;
    logic [23:0]           v3_vni_q;
    logic [K_W-1:0]        v3_k_q;
    logic signed [LEN_W:0] v3_ilen_q;
    logic [LEN_W-1:0]      v3_ip_end_q, v3_sum_start_q;
    logic [16:0]           v3_seed_q;
    logic [4:0]            v3_l2_len_q;
    logic [20*8-1:0]       v3_l2_q;
    logic [15:0]           v3_proto_q;
    logic [LEN_W:0]        v3_shift_q;
    logic [LEN_W-1:0]      v3_out_len_q;
    // Step 9's choices for J1, as the protocol type and the outer ECN give them (read for
    // DECAP_* frames only). lim: the limit of n - K and ip_end - K, one-hot: LT_C[c] for
    // c = 0..3 (0x0800 / 0x86DD: 0, or 12 / 2 under RFC 6040; 0x6558: 14), or 0x6558 under
    // RFC 6040 (4: the window's inner EtherType chooses 14, 16 or 26). ce / e1: the protocol
    // type (bit 0: 0x0800, 1: 0x86DD, 2: 0x6558) with an outer CE / ECT(1).
    logic [4:0]            v3_lim_q;
    logic [2:0]            v3_ce_q, v3_e1_q;
    logic [5:0]            v3_ilen_lt_q;       // ilen < LT_C[c]

    always_ff @(posedge clk) begin
        logic       teb, oe;
        logic [2:0] pt;
        v3_valid_q <= v2_valid_q;
        if (v2_valid_q) begin
            // (the values that teb and what follows choose are read for DECAP_* frames only)
            teb = v2_outcome_q == OUT_DECAP_TEB;
            oe  = v2_oecn_q[0];
            pt  = {teb, !teb && v2_l3v6_q, !teb && !v2_l3v6_q};
            v3_lim_q       <= {teb && oe, teb && !oe, pt[0] && oe, pt[1] && oe, !teb && !oe};
            v3_ce_q        <= pt & {3{v2_oecn_q == 2'b11}};
            v3_e1_q        <= pt & {3{v2_oecn_q == 2'b01}};
            for (int c = 0; c < 6; c++) v3_ilen_lt_q[c] <= $signed(v2_ilen_q) < $signed((LEN_W+1)'(LT_C[c]));
            v3_outcome_q   <= v2_pass_q ? OUT_PASS
                            : v2_csum_bad_q ? OUT_DROP_IP_CHECKSUM : v2_outcome_q;
            v3_hdr_ok_q    <= !v2_pass_q && !v2_csum_bad_q && v2_hdr_ok_q;
            v3_wait_q      <= !v2_pass_q && !v2_csum_bad_q && v2_wait_q;
            v3_whole_q     <= v2_whole_q;
            v3_rx_err_q    <= v2_rx_err_q;
            v3_len_short_q <= v2_len_short_q;
            v3_csum_nz_q   <= v2_csum_nz_q;
            v3_l3v6_q      <= v2_l3v6_q;
            v3_oecn_q      <= v2_oecn_q;
            v3_vni_q       <= v2_vni_q;
            v3_k_q         <= v2_k_q;
            v3_ilen_q      <= v2_ilen_q;
            v3_ip_end_q    <= v2_ip_end_q;
            v3_sum_start_q <= v2_sum_start_q;
            v3_seed_q      <= 17'(v2_seed_q[15:0]) + 17'(v2_seed_q[18:16]);
            v3_l2_len_q    <= v2_l2_len_q;
            v3_l2_q        <= v2_l2_q;
            v3_proto_q     <= v2_proto_q;
            v3_shift_q     <= (LEN_W+1)'(v2_k_q) - (teb ? '0 : (LEN_W+1)'(v2_l2_len_q));
            v3_out_len_q   <= LEN_W'(v2_ilen_q) + (teb ? '0 : LEN_W'(v2_l2_len_q));
        end
        if (rst) v3_valid_q <= 1'b0;
    end

    // ---- V4: the seed's second fold ----------------------------------------------------------
    logic                  v4_valid_q, v4_hdr_ok_q, v4_wait_q, v4_whole_q, v4_rx_err_q;
    logic                  v4_len_short_q, v4_csum_nz_q, v4_l3v6_q;
    outcome_e              v4_outcome_q;
    logic [1:0]            v4_oecn_q;
    logic [23:0]           v4_vni_q;
    logic [K_W-1:0]        v4_k_q;
    logic signed [LEN_W:0] v4_ilen_q;
    // ilen against the limit lim chooses (the TEB limit's 14 under RFC 6040), and under RFC
    // 6040 with 0x6558 against 16 and 26 (the window's inner EtherType takes one of them)
    logic [2:0]            v4_ilen_lt_q;
    logic [4:0]            v4_lim_q;
    logic [2:0]            v4_ce_q, v4_e1_q;
    logic [LEN_W-1:0]      v4_ip_end_q, v4_sum_start_q;
    logic [15:0]           v4_seed_q;
    logic [4:0]            v4_l2_len_q;
    logic [20*8-1:0]       v4_l2_q;
    logic [15:0]           v4_proto_q;
    logic [LEN_W:0]        v4_shift_q, v4_shift_p_q;
    logic [LEN_W-1:0]      v4_out_len_q, v4_out_len_p_q;

    always_ff @(posedge clk) begin
        v4_valid_q <= v3_valid_q;
        if (v3_valid_q) begin
            v4_outcome_q   <= v3_outcome_q;
            v4_hdr_ok_q    <= v3_hdr_ok_q;
            v4_wait_q      <= v3_wait_q;
            v4_whole_q     <= v3_whole_q;
            v4_rx_err_q    <= v3_rx_err_q;
            v4_len_short_q <= v3_len_short_q;
            v4_csum_nz_q   <= v3_csum_nz_q;
            v4_l3v6_q      <= v3_l3v6_q;
            v4_oecn_q      <= v3_oecn_q;
            v4_vni_q       <= v3_vni_q;
            v4_k_q         <= v3_k_q;
            v4_ilen_q      <= v3_ilen_q;
            v4_ilen_lt_q[0] <= |(v3_lim_q[3:0] & v3_ilen_lt_q[3:0]) || (v3_lim_q[4] && v3_ilen_lt_q[3]);
            v4_ilen_lt_q[1] <= v3_lim_q[4] && v3_ilen_lt_q[4];
            v4_ilen_lt_q[2] <= v3_lim_q[4] && v3_ilen_lt_q[5];
            v4_lim_q        <= v3_lim_q;
            v4_ce_q         <= v3_ce_q;
            v4_e1_q         <= v3_e1_q;
            v4_ip_end_q    <= v3_ip_end_q;
            v4_sum_start_q <= v3_sum_start_q;
            v4_seed_q      <= v3_seed_q[15:0] + 16'(v3_seed_q[16]);
            v4_l2_len_q    <= v3_l2_len_q;
            v4_l2_q        <= v3_l2_q;
            v4_proto_q     <= v3_proto_q;
            v4_shift_q     <= v3_shift_q;
            v4_shift_p_q   <= v3_shift_q - (LEN_W+1)'(4);
            v4_out_len_q   <= v3_out_len_q;
            v4_out_len_p_q <= v3_out_len_q + LEN_W'(4);
        end
        if (rst) v4_valid_q <= 1'b0;
    end

    // ---- W (T+4): V4's word held a cycle while the VNI table answers (LOOKUP_LATENCY 5) ----
    logic                  w5_valid_q, w5_hdr_ok_q, w5_wait_q, w5_whole_q, w5_rx_err_q;
    logic                  w5_len_short_q, w5_csum_nz_q, w5_l3v6_q;
    outcome_e              w5_outcome_q;
    logic [1:0]            w5_oecn_q;
    logic [23:0]           w5_vni_q;
    logic [K_W-1:0]        w5_k_q;
    logic signed [LEN_W:0] w5_ilen_q;
    logic [2:0]            w5_ilen_lt_q;
    logic [4:0]            w5_lim_q;
    logic [2:0]            w5_ce_q, w5_e1_q;
    logic [LEN_W-1:0]      w5_ip_end_q, w5_sum_start_q;
    logic [15:0]           w5_seed_q;
    logic [4:0]            w5_l2_len_q;
    logic [20*8-1:0]       w5_l2_q;
    logic [15:0]           w5_proto_q;
    logic [LEN_W:0]        w5_shift_q, w5_shift_p_q;
    logic [LEN_W-1:0]      w5_out_len_q, w5_out_len_p_q;

    localparam int V4_WORD_W = $bits({
        v4_lim_q, v4_ce_q, v4_e1_q, v4_out_len_p_q, v4_out_len_q, v4_shift_p_q, v4_shift_q, v4_proto_q, v4_l2_q, v4_l2_len_q,
        v4_seed_q, v4_sum_start_q, v4_ip_end_q, v4_ilen_lt_q, v4_ilen_q, v4_k_q, v4_vni_q,
        v4_oecn_q, v4_outcome_q, v4_l3v6_q, v4_csum_nz_q, v4_len_short_q, v4_rx_err_q, v4_whole_q,
        v4_wait_q, v4_hdr_ok_q, v4_valid_q});

    pipe_reg #(
        .W(V4_WORD_W),
        .EN(1'b1),
        .RST_BITS(1)
    ) v4_hold (
        .clk(clk), .rst(rst),
        .d({
            v4_lim_q, v4_ce_q, v4_e1_q, v4_out_len_p_q, v4_out_len_q, v4_shift_p_q, v4_shift_q, v4_proto_q, v4_l2_q,
            v4_l2_len_q, v4_seed_q, v4_sum_start_q, v4_ip_end_q, v4_ilen_lt_q, v4_ilen_q, v4_k_q,
            v4_vni_q, v4_oecn_q, v4_outcome_q, v4_l3v6_q, v4_csum_nz_q, v4_len_short_q, v4_rx_err_q,
            v4_whole_q, v4_wait_q, v4_hdr_ok_q, v4_valid_q}),
        .q({
            w5_lim_q, w5_ce_q, w5_e1_q, w5_out_len_p_q, w5_out_len_q, w5_shift_p_q, w5_shift_q, w5_proto_q, w5_l2_q,
            w5_l2_len_q, w5_seed_q, w5_sum_start_q, w5_ip_end_q, w5_ilen_lt_q, w5_ilen_q, w5_k_q,
            w5_vni_q, w5_oecn_q, w5_outcome_q, w5_l3v6_q, w5_csum_nz_q, w5_len_short_q, w5_rx_err_q,
            w5_whole_q, w5_wait_q, w5_hdr_ok_q, w5_valid_q})
    );

    // ---- V5: the VNI table's answer; the record queued -----------------------------------------
    // The tap's record in two queues: what the join and J1/J2 read (trec_t, the joined
    // queue), and the descriptor's fields, which only J3/J4 read (twide_t, popped a cycle
    // later by J1's valid register, so the join's pop reaches no enable of theirs).
    typedef struct packed {
        outcome_e              outcome;    // steps 1-8 and the VNI (DECAP_*: step 9 decides)
        logic                  wait_iw;    // reaches step 9: joins its window record
        logic                  teb;        // outcome is DECAP_TEB
        logic                  decap;      // outcome is DECAP_TEB or DECAP_L3
        logic                  fwd;        // outcome is PASS, PUNT or PUNT_OAM
        logic                  pass;       // outcome is PASS
        logic                  rx_whole;   // the frame ended inside the 128-byte window, its
                                           //   last beat's tuser set
        logic                  short_whole; // ... ended inside it, before ip_end
        logic                  wait_open;  // wait_iw, not ended inside it: the window record
                                           //   tells the end and the RX error
        logic                  l3v6;       // protocol type 0x86DD
        logic [1:0]            oecn;
        logic [K_W-1:0]        k;
        logic signed [LEN_W:0] ilen;       // ip_end - K
        // step 9's choices (V3, V4; read for DECAP_* frames only)
        logic [4:0]            lim;        // the limit, one-hot (irec_t.dl, dl_te)
        logic [2:0]            ilen_lt;    // ilen < the limit; 0x6558 under RFC 6040: < 16, < 26
        logic [2:0]            ce, e1;     // the protocol type (irec_t.nect ...) and the outer ECN
    } trec_t;

    typedef struct packed {
        logic                  csum_nz;
        logic                  push;
        logic [11:0]           vid;
        logic [23:0]           vni;
        logic [LEN_W-1:0]      ip_end;
        logic [LEN_W:0]        shift;      // the push variant chosen
        logic [LEN_W-1:0]      out_len;
        logic [4:0]            l2_len;
        logic [20*8-1:0]       l2;
        logic [15:0]           proto;
        logic [LEN_W-1:0]      sum_start;
        logic [15:0]           seed;
    } twide_t;

    trec_t  v5_q;
    twide_t v5_w_q;
    logic   v5_valid_q;

    always_ff @(posedge clk) begin
        logic unknown, push;
        v5_valid_q <= w5_valid_q;
        if (w5_valid_q) begin
            unknown = w5_hdr_ok_q && ctrl_vni_enable && !rs_hit;
            push    = ctrl_vni_enable && rs_hit && rs_value[12];
            v5_q.outcome   <= unknown ? OUT_DROP_UNKNOWN_VNI : w5_outcome_q;
            v5_q.wait_iw   <= w5_wait_q;
            v5_q.teb       <= !unknown && w5_outcome_q == OUT_DECAP_TEB;
            v5_q.decap     <= !unknown && (w5_outcome_q == OUT_DECAP_TEB
                                           || w5_outcome_q == OUT_DECAP_L3);
            v5_q.fwd       <= !unknown && (w5_outcome_q == OUT_PASS || w5_outcome_q == OUT_PUNT
                                           || w5_outcome_q == OUT_PUNT_OAM);
            v5_q.pass      <= w5_outcome_q == OUT_PASS;
            v5_q.rx_whole  <= w5_whole_q && w5_rx_err_q;
            v5_q.short_whole <= w5_whole_q && w5_len_short_q;
            v5_q.wait_open <= w5_wait_q && !w5_whole_q;
            v5_q.l3v6      <= w5_l3v6_q;
            v5_q.oecn      <= w5_oecn_q;
            v5_w_q.csum_nz <= w5_csum_nz_q;
            v5_w_q.push    <= push;
            v5_w_q.vid     <= rs_value[11:0];
            v5_w_q.vni     <= w5_vni_q;
            v5_q.k         <= w5_k_q;
            v5_q.ilen      <= w5_ilen_q;
            v5_q.ilen_lt   <= w5_ilen_lt_q;
            v5_q.lim       <= w5_lim_q;
            v5_q.ce        <= w5_ce_q;
            v5_q.e1        <= w5_e1_q;
            v5_w_q.ip_end  <= w5_ip_end_q;
            v5_w_q.shift   <= push ? w5_shift_p_q : w5_shift_q;
            v5_w_q.out_len <= push ? w5_out_len_p_q : w5_out_len_q;
            v5_w_q.l2_len  <= w5_l2_len_q;
            v5_w_q.l2      <= w5_l2_q;
            v5_w_q.proto   <= w5_proto_q;
            v5_w_q.sum_start <= w5_sum_start_q;
            v5_w_q.seed    <= w5_seed_q;
        end
        if (rst) v5_valid_q <= 1'b0;
    end

    trec_t  t_out;
    twide_t tw_out;
    logic   t_s_ready, t_valid, t_pop_m_q, tw_s_ready, tw_valid;
    logic   j1_valid_q;     // J1 holds a record (t_pop_q registered)

    sync_fifo #(
        .WIDTH($bits(trec_t)),
        .DEPTH(JQ_DEPTH),
        .BYPASS(1'b0)
    ) tap_fifo (
        .clk(clk), .rst(rst),
        .s_data(v5_q), .s_valid(v5_valid_q), .s_ready(t_s_ready),
        .m_data(t_out), .m_valid(t_valid), .m_ready(t_pop_m_q)
    );

    // Written with the record above and popped by j1_valid_q (t_pop_q registered): the word
    // popped from tap_fifo in cycle c is at this queue's head in cycle c + 1, when J2 loads
    // it. It holds one word more than tap_fifo at most: 16 words.
    sync_fifo #(
        .WIDTH($bits(twide_t)),
        .DEPTH(16),
        .BYPASS(1'b0)
    ) tap_wide_fifo (
        .clk(clk), .rst(rst),
        .s_data(v5_w_q), .s_valid(v5_valid_q), .s_ready(tw_s_ready),
        .m_data(tw_out), .m_valid(tw_valid), .m_ready(j1_valid_q)
    );

    // =======================================================================================
    // The join: a frame that reaches step 9 takes its window record; the others go on and
    // their window records are discarded as they come (skip_q of them still to come, or in
    // the queue ahead of the next frame's). The pops drive the queues' output enables, so
    // they are registers, decided a cycle ahead from a mirror of the queues kept beside the
    // join: each queue's output valid and its RAM's empty and one-word flags (the same
    // updates as sync_fifo's), and the wait_iw bits of the tap queue's words (its output
    // register's, its RAM head's, the rest by slot). No queue output reaches a pop.
    // =======================================================================================
    localparam int JQ_PW = $clog2(JQ_DEPTH);

    logic t_pop_q, i_pop_q, joined_q;       // this cycle's pops; a pair joined
    logic t_pop_d, i_pop_d, joined_d;
    logic [3:0] skip_q;
    logic       skip_nz_q, skip_one_q;      // skip_q != 0, == 1
    logic       skip_nz_d;
    // the mirror (tm_: tap_fifo, im_: iw_fifo)
    logic              tm_valid_q, tm_empty_q, tm_one_q, im_valid_q, im_empty_q, im_one_q;
    logic [JQ_PW:0]    tm_cnt_q, im_cnt_q;  // words in the RAM
    logic              t_push, t_load, i_push, i_load;
    logic [JQ_DEPTH-1:0] wb_q;              // wait_iw of the tap queue's words, by RAM slot
    logic [JQ_PW-1:0]  wb_wr_q, wb_rd1_q;   // the slot written next; the RAM head's slot + 1
    logic              wb_head_q;           // wait_iw of the RAM's head
    logic              w_q;                 // wait_iw of the output register's word

    always_comb begin
        logic tv_d, w_d, iv_d;
        t_push = v5_valid_q && t_s_ready;
        i_push = a4_emit_q && i_s_ready;
        t_load = !tm_empty_q && (!tm_valid_q || t_pop_q);
        i_load = !im_empty_q && (!im_valid_q || i_pop_q);
        // each queue's m_valid and the tap head's wait_iw next cycle
        tv_d = t_load || (tm_valid_q && !t_pop_q);
        w_d  = t_load ? wb_head_q : w_q;
        iv_d = i_load || (im_valid_q && !i_pop_q);
        // skip_q moves by t_pop - i_pop (a joined pair pops both and moves it by neither)
        skip_nz_d = (t_pop_q && !i_pop_q) || (t_pop_q == i_pop_q && skip_nz_q)
                    || (!t_pop_q && i_pop_q && !skip_one_q);
        // With skips pending, window records are discarded and only a tap record that does
        // not wait goes on; else the heads pair up, or a tap record that does not wait goes
        // on alone (its window record to be skipped).
        t_pop_d  = tv_d && (!w_d || (!skip_nz_d && iv_d));
        i_pop_d  = iv_d && (skip_nz_d || tv_d);
        joined_d = !skip_nz_d && tv_d && iv_d;
    end

    always_ff @(posedge clk) begin
        joined_q   <= joined_d;
        skip_q     <= skip_q + 4'(t_pop_q) - 4'(i_pop_q);
        skip_nz_q  <= skip_nz_d;
        skip_one_q <= (t_pop_q && !i_pop_q) ? skip_q == 4'd0
                    : (!t_pop_q && i_pop_q) ? skip_q == 4'd2 : skip_q == 4'd1;
        if (rst) begin
            joined_q   <= 1'b0;
            skip_q     <= '0;
            skip_nz_q  <= 1'b0;
            skip_one_q <= 1'b0;
        end
    end

    // The pops twice: one copy for the mirror, skip_q and J1, one for the queue, so the
    // queue's enables are a net of their own (each copy in a block of its own, or synthesis
    // merges them).
    (* keep *) always_ff @(posedge clk) begin
        t_pop_q <= t_pop_d;
        if (rst) t_pop_q <= 1'b0;
    end
    (* keep *) always_ff @(posedge clk) begin
        i_pop_q <= i_pop_d;
        if (rst) i_pop_q <= 1'b0;
    end
    (* keep *) always_ff @(posedge clk) begin
        t_pop_m_q <= t_pop_d;
        if (rst) t_pop_m_q <= 1'b0;
    end
    (* keep *) always_ff @(posedge clk) begin
        i_pop_m_q <= i_pop_d;
        if (rst) i_pop_m_q <= 1'b0;
    end

    always_ff @(posedge clk) begin
        tm_cnt_q   <= tm_cnt_q + (JQ_PW+1)'(t_push) - (JQ_PW+1)'(t_load);
        tm_one_q   <= (t_push && !t_load) ? tm_cnt_q == (JQ_PW+1)'(0)
                    : (t_load && !t_push) ? tm_cnt_q == (JQ_PW+1)'(2) : tm_cnt_q == (JQ_PW+1)'(1);
        tm_empty_q <= !t_push && (tm_empty_q || (tm_one_q && t_load));
        if (t_load)       tm_valid_q <= 1'b1;
        else if (t_pop_q) tm_valid_q <= 1'b0;
        im_cnt_q   <= im_cnt_q + (JQ_PW+1)'(i_push) - (JQ_PW+1)'(i_load);
        im_one_q   <= (i_push && !i_load) ? im_cnt_q == (JQ_PW+1)'(0)
                    : (i_load && !i_push) ? im_cnt_q == (JQ_PW+1)'(2) : im_cnt_q == (JQ_PW+1)'(1);
        im_empty_q <= !i_push && (im_empty_q || (im_one_q && i_load));
        if (i_load)       im_valid_q <= 1'b1;
        else if (i_pop_q) im_valid_q <= 1'b0;
        // The RAM holds at most JQ_DEPTH words, so no push overwrites a slot still to be read;
        // a word pushed while the RAM's head is its last one becomes the head at once.
        if (t_push) begin
            wb_q[wb_wr_q] <= v5_q.wait_iw;
            wb_wr_q       <= wb_wr_q + 1'b1;
        end
        if (t_load) wb_rd1_q <= wb_rd1_q + 1'b1;
        if (tm_empty_q || (t_load && tm_one_q)) wb_head_q <= v5_q.wait_iw;
        else if (t_load)                        wb_head_q <= wb_q[wb_rd1_q];
        if (t_load) w_q <= wb_head_q;
        if (rst) begin
            tm_cnt_q   <= '0;
            tm_one_q   <= 1'b0;
            tm_empty_q <= 1'b1;
            tm_valid_q <= 1'b0;
            im_cnt_q   <= '0;
            im_one_q   <= 1'b0;
            im_empty_q <= 1'b1;
            im_valid_q <= 1'b0;
            wb_wr_q    <= '0;
            wb_rd1_q   <= JQ_PW'(1);
        end
    end

    // ---- J1: the records; the inner fields; the lengths as flags -----------------------------
    trec_t                 j1_t_q;
    logic                  j1_teb_q, j1_decap_q;
    logic                  j1_trunc_q;             // step 9: the frame or ip_end ends too soon
    logic                  j1_rx_bad_q;            // known whole with an RX error
    logic                  j1_len_short_q, j1_ecn_drop_q;
    logic                  j1_ecn_set_q, j1_in_v4_q;
    logic [7:0]            j1_b0_q;                // inner IP byte 0
    logic [7:0]            j1_tos_q;               // inner IP byte 1, its ECN rewritten
    logic [16:0]           j1_hc_part_q;           // ~HC + ~m (RFC 1624), m = bytes 0, 1

    // J1's fields load every cycle from the queues' output registers (J2 takes them only
    // with j1_valid_q), and no pop enable fans out to J1. Each check is an AND-OR of the tap
    // record's choice (lim, ce, e1: one-hot by protocol type and outer ECN) with the window
    // record's flag for that choice. A popped record that waits for its window is always
    // joined; the window's flags are read through the tap's choice flags, which are read for
    // DECAP_* frames only (these wait), or through wait_open.
    always_ff @(posedge clk) begin
        logic       teb, in_v4;
        logic [7:0] tos;
        j1_valid_q <= t_pop_q;
        iw_pop_q   <= i_pop_q;
        teb = t_out.teb;
        j1_t_q       <= t_out;
        j1_teb_q     <= teb;
        j1_decap_q   <= t_out.decap;
        // Step 9's lengths from K (inside ip_end and the frame): the inner Ethernet header,
        // and the inner IP header's ECN byte (IPv6) or checksum (IPv4) under RFC 6040.
        j1_trunc_q     <= |(t_out.lim & {i_out.dl_te, i_out.dl}) || t_out.ilen_lt[0]
                          || (t_out.ilen_lt[1] && i_out.et_v6) || (t_out.ilen_lt[2] && i_out.et_v4);
        // RFC 6040: outer CE over an inner Not-ECT packet
        j1_ecn_drop_q  <= |(t_out.ce & i_out.nect);
        // RFC 6040's rewrite of the inner ECN: outer CE over ECT(0) or ECT(1), or outer
        // ECT(1) over ECT(0); the new ECN is then the outer one
        j1_ecn_set_q   <= |(t_out.ce & i_out.ne_ce) || |(t_out.e1 & i_out.ect0);
        // (whole and an RX error: a frame known whole is whole in the tap or ended in the window)
        j1_rx_bad_q    <= t_out.rx_whole || (t_out.wait_open && i_out.rx_end);
        j1_len_short_q <= t_out.short_whole
                          || (t_out.wait_open && i_out.ended
                              && $signed((LEN_W+1)'($signed(i_out.d))) < $signed(t_out.ilen));
        // the inner ECN byte as rewritten (read only when it is), the RFC 1624 sum's first
        // two terms
        in_v4 = teb ? i_out.et_v4 : !t_out.l3v6;
        tos   = teb ? i_out.b15 : i_out.b1;
        j1_in_v4_q   <= in_v4;
        j1_b0_q      <= teb ? i_out.b14 : i_out.b0;
        j1_tos_q     <= in_v4 ? {tos[7:2], t_out.oecn} : {tos[7:6], t_out.oecn, tos[3:0]};
        j1_hc_part_q <= teb ? i_out.hs_teb : i_out.hs_l3;
        if (rst) begin
            j1_valid_q <= 1'b0;
            iw_pop_q   <= 1'b0;
        end
    end

    // ---- J2: step 9, the policy and the action; the RFC 1624 sum ------------------------------
    typedef enum logic [1:0] {
        ACT_DROP    = 2'd0,
        ACT_FORWARD = 2'd1,   // unchanged
        ACT_DECAP   = 2'd2
    } action_e;

    // The record's flags (fwd: PASS, PUNT, PUNT_OAM; decap: DECAP_*) stand for the outcome
    // compares; step 9's drops apply to DECAP_* only.
    action_e  j2_action;
    outcome_e j2_final;
    always_comb begin
        j2_final  = j1_t_q.outcome;
        j2_action = ACT_DROP;
        if (j1_decap_q && j1_trunc_q)          j2_final = OUT_DROP_TRUNCATED;
        else if (j1_decap_q && j1_ecn_drop_q)  j2_final = OUT_DROP_ECN;
        else if (j1_t_q.fwd) begin
            if (j1_t_q.pass ? ctrl_drop_pass : ctrl_drop_punt)    j2_final = OUT_DROP_POLICY;
            else if (j1_rx_bad_q)                               j2_final = OUT_DROP_RX_ERROR;
            else                                                j2_action = ACT_FORWARD;
        end else if (j1_decap_q) begin
            if (j1_rx_bad_q)                                    j2_final = OUT_DROP_RX_ERROR;
            else if (j1_len_short_q)                            j2_final = OUT_DROP_TRUNCATED;
            else                                                j2_action = ACT_DECAP;
        end
    end

    twide_t          j2_t_q;
    logic            j2_valid_q, j2_teb_q, j2_ecn_set_q, j2_in_v4_q;
    action_e         j2_action_q;
    outcome_e        j2_outcome_q;
    logic [7:0]      j2_tos_q;           // the inner ECN byte, rewritten
    logic [17:0]     j2_hc_sum_q;        // ~HC + ~m + m' (RFC 1624)
    logic [12*8-1:0] j2_macs_q;         // inner dst, src (0x6558)

    // The wide queues' heads load every cycle, with no enable (J3 takes them only with
    // j2_valid_q): in J1's cycle they hold the record J1 holds.
    always_ff @(posedge clk) begin
        j2_t_q    <= tw_out;
        j2_macs_q <= iw_macs_out;
    end

    always_ff @(posedge clk) begin
        j2_valid_q <= j1_valid_q;
        if (j1_valid_q) begin
            j2_teb_q     <= j1_teb_q;
            j2_action_q  <= j2_action;
            j2_outcome_q <= j2_final;
            j2_ecn_set_q <= j1_ecn_set_q;
            j2_in_v4_q   <= j1_in_v4_q;
            j2_tos_q     <= j1_tos_q;
            j2_hc_sum_q  <= 18'(j1_hc_part_q) + {2'b00, j1_b0_q, j1_tos_q};
        end
        if (rst) j2_valid_q <= 1'b0;
    end

    // ---- J3: the RFC 1624 fold; where the inner IP header lies in the output ------------------
    // The inner IP header at output byte 14 + 4s: s = tags (DECAP_L3; 0 for DECAP_TEB) + push.
    // The head's layout selects are registered here with the action folded in (all clear
    // unless the frame is decapsulated), so J4's head needs no "decap" gate of its own.
    twide_t          j3_t_q;
    logic            j3_valid_q, j3_decap_q, j3_drop_q, j3_in_v4_q;
    outcome_e        j3_outcome_q;
    logic [7:0]      j3_tos_q;
    logic [15:0]     j3_hc_q;
    logic            j3_sel_mac_q;       // DECAP_TEB with a push: the inner MACs at 0..11
    logic [2:0]      j3_sel_l2_q;        // DECAP_L3 with t tags: the outer header and type
    logic            j3_push_q;          // a pushed tag at 12..15
    logic [3:0]      j3_sel_ecn_q;       // the inner ECN byte rewritten, inner IP at 14 + 4k
    logic [12*8-1:0] j3_macs_q;

    // (no enable: J4 takes them only with j3_valid_q)
    always_ff @(posedge clk) begin
        j3_t_q    <= j2_t_q;
        j3_macs_q <= j2_macs_q;
    end

    always_ff @(posedge clk) begin
        logic [16:0] f1;
        logic [1:0]  tags, s;
        logic        decap;
        j3_valid_q <= j2_valid_q;
        if (j2_valid_q) begin
            f1    = 17'(j2_hc_sum_q[15:0]) + 17'(j2_hc_sum_q[17:16]);
            tags  = j2_t_q.l2_len[4:2] == 3'd3 ? 2'd0 : j2_t_q.l2_len[4:2] == 3'd4 ? 2'd1 : 2'd2;
            s     = (j2_teb_q ? 2'd0 : tags) + 2'(j2_t_q.push);
            decap = j2_action_q == ACT_DECAP;
            j3_decap_q   <= decap;
            j3_drop_q    <= j2_action_q == ACT_DROP;
            j3_outcome_q <= j2_outcome_q;
            j3_in_v4_q   <= j2_in_v4_q;
            j3_tos_q     <= j2_tos_q;
            j3_hc_q      <= ~(f1[15:0] + 16'(f1[16]));
            j3_sel_mac_q <= decap && j2_teb_q && j2_t_q.push;
            for (int t = 0; t < 3; t++) j3_sel_l2_q[t] <= decap && !j2_teb_q && tags == 2'(t);
            j3_push_q    <= decap && j2_t_q.push;
            for (int k = 0; k < 4; k++) j3_sel_ecn_q[k] <= decap && j2_ecn_set_q && s == 2'(k);
        end
        if (rst) j3_valid_q <= 1'b0;
    end

    // ---- J4: the output head and the descriptor --------------------------------------------------
    // DECAP_TEB: [0, 12) inner MACs, 81 00 TCI with a push; DECAP_L3: the outer header to
    // L2 - 2 (a tag after byte 12 with a push), the protocol type. Both: the inner ECN byte at
    // 15 + 4s, the IPv4 checksum at 24 + 4s. Constant byte positions under J3's selects only
    // (all clear, so the head and its enables zero, when the frame is not decapsulated).
    logic [HEAD_BYTES-1:0][7:0] j4_head;
    logic [HEAD_BYTES-1:0]      j4_head_en;
    always_comb begin
        j4_head    = '0;
        j4_head_en = '0;
        if (j3_sel_mac_q) begin
            for (int i = 0; i < 12; i++) j4_head[i] = j3_macs_q[8*i +: 8];
            j4_head_en[15:0] = 16'hFFFF;
        end
        for (int t = 0; t < 3; t++) begin
            if (j3_sel_l2_q[t]) begin
                for (int i = 0; i < 12; i++) j4_head[i] = j3_t_q.l2[8*i +: 8];
                if (j3_t_q.push) begin
                    for (int i = 12; i < 12 + 4*t; i++) j4_head[i + 4] = j3_t_q.l2[8*i +: 8];
                    j4_head[16 + 4*t] = j3_t_q.proto[15:8];
                    j4_head[17 + 4*t] = j3_t_q.proto[7:0];
                    for (int i = 0; i < 18 + 4*t; i++) j4_head_en[i] = 1'b1;
                end else begin
                    for (int i = 12; i < 12 + 4*t; i++) j4_head[i] = j3_t_q.l2[8*i +: 8];
                    j4_head[12 + 4*t] = j3_t_q.proto[15:8];
                    j4_head[13 + 4*t] = j3_t_q.proto[7:0];
                    for (int i = 0; i < 14 + 4*t; i++) j4_head_en[i] = 1'b1;
                end
            end
        end
        if (j3_push_q) begin
            j4_head[12] = 8'h81;
            j4_head[13] = 8'h00;
            j4_head[14] = {4'h0, j3_t_q.vid[11:8]};
            j4_head[15] = j3_t_q.vid[7:0];
        end
        for (int k = 0; k < 4; k++) begin
            if (j3_sel_ecn_q[k]) begin
                j4_head[15 + 4*k]    = j3_tos_q;
                j4_head_en[15 + 4*k] = 1'b1;
                if (j3_in_v4_q) begin
                    j4_head[24 + 4*k]    = j3_hc_q[15:8];
                    j4_head[25 + 4*k]    = j3_hc_q[7:0];
                    j4_head_en[24 + 4*k] = 1'b1;
                    j4_head_en[25 + 4*k] = 1'b1;
                end
            end
        end
    end

    always_ff @(posedge clk) begin
        desc_valid <= j3_valid_q;
        if (j3_valid_q) begin
            desc_drop      <= j3_drop_q;
            desc_outcome   <= j3_outcome_q;
            desc_shift     <= j3_decap_q ? $signed(j3_t_q.shift) : '0;
            desc_out_len   <= j3_decap_q ? j3_t_q.out_len : '1;
            desc_min_len   <= j3_decap_q ? j3_t_q.ip_end : '0;
            desc_head      <= j4_head;
            desc_head_en   <= j4_head_en;
            desc_sum_en    <= j3_decap_q && j3_t_q.csum_nz;
            desc_sum_start <= j3_t_q.sum_start;
            desc_sum_end   <= j3_t_q.ip_end;
            desc_sum_seed  <= j3_t_q.seed;
            desc_tvni      <= {j3_decap_q, j3_t_q.vni};
        end
        if (rst) desc_valid <= 1'b0;
    end

    logic unused;   // the answer's strobe (checked against V5 in simulation), the queues'
                    // room and the wide queues' valid (checked in simulation), the window's K
                    // (checked), its bytes 12 and 13 (read as compares), the outer bytes after L2 - 2, the record's fields J1 has
                    // already used and those J4 does not read
    assign unused = ^{rs_valid, i_s_ready, t_s_ready, iw_macs_s_ready, iw_macs_valid, tw_s_ready,
                      tw_valid, i_out.k, iw_q[13:12], tap_l2_bytes[22*8-1:20*8], j1_t_q, j3_t_q};

`ifndef SYNTHESIS
    always_ff @(posedge clk) begin
        if (!rst) begin
            if (a0_oh_q != OH_N'(1) << a0_idx_q)
                $error("geneve_decap_classify: the beat's one-hot index disagrees with its count");
            if (rs_valid != w5_valid_q)
                $error("geneve_decap_classify: the VNI table's answer is not aligned with V5");
            if (a4_emit_q && !i_s_ready)
                $error("geneve_decap_classify: the window queue overflows");
            if (v5_valid_q && !t_s_ready)
                $error("geneve_decap_classify: the tap queue overflows");
            if (a4_emit_q && !iw_macs_s_ready)
                $error("geneve_decap_classify: the window MACs queue overflows");
            if (v5_valid_q && !tw_s_ready)
                $error("geneve_decap_classify: the tap wide queue overflows");
            if (j1_valid_q && !tw_valid)
                $error("geneve_decap_classify: the tap wide queue is empty at J1");
            if (iw_pop_q && !iw_macs_valid)
                $error("geneve_decap_classify: the window MACs queue is empty after a pop");
            if (tm_valid_q != t_valid || im_valid_q != i_valid
                || (t_valid && w_q != t_out.wait_iw) || skip_nz_q != (skip_q != 4'd0)
                || skip_one_q != (skip_q == 4'd1))
                $error("geneve_decap_classify: the join's mirror disagrees with the queues");
            // the pops as decided from the queues' outputs in the cycle itself
            if (t_pop_q != (t_valid && (!t_out.wait_iw || (!skip_nz_q && i_valid)))
                || i_pop_q != (i_valid && (skip_nz_q || t_valid))
                || joined_q != (!skip_nz_q && t_valid && i_valid)
                || t_pop_m_q != t_pop_q || i_pop_m_q != i_pop_q)
                $error("geneve_decap_classify: the join's pops disagree with the queues' heads");
            if (joined_q && t_out.wait_iw && i_out.k != t_out.k)
                $error("geneve_decap_classify: window K %0d != tap K %0d", i_out.k, t_out.k);
        end
    end
`endif

endmodule

`default_nettype wire

// SPDX-License-Identifier: Apache-2.0
//
// axis_splice — the shared byte-shifting engine of wirespeed.
//
// Every frame is rewritten as three segments, then byte patches:
//
//     output = frame[SEG1_OFF .. SEG1_OFF+SEG1_LEN)  ++  INS[0 .. INS_LEN)  ++  frame[SEG2_OFF .. )
//              \____ kept part of the header ____/      \_ inserted bytes _/     \__ the rest __/
//
// optionally cut to exactly OUT_LEN bytes (trailing Ethernet padding is discarded), or dropped.
// Stripping a tunnel header (GRE, VXLAN decap: SEG2_OFF past the tunnel headers), keeping the
// outer Ethernet header (SEG1 = [0, L2)), pushing a VLAN tag (INS = 4 bytes after the inner
// MAC addresses) and adding a tunnel (INS = outer headers, SEG2_OFF = 0) are all this one edit,
// so every protocol shares this engine. Segments must be in order: SEG1_OFF+SEG1_LEN <= SEG2_OFF.
//
//   s_axis ──► beat buffer (BUF_BEATS registers, indexed by absolute beat number)
//                 │  plan of output beat j (from the frame's record): SEG1 bytes come
//                 │  funnel-shifted from beats j+q1, j+q1+1, INS bytes from the descriptor,
//                 │  SEG2 bytes from beats j+q2, j+q2+1 (q2 may be negative: inserted bytes
//                 │  push the frame later); patches; tkeep, tlast, tuser
//                 ▼  [plan register, OUT_PIPE = 1]
//              data: buffer read, funnel shifts, byte select ──► output register ──► m_axis
//
// Descriptors arrive in frame order on their own strobe, one per frame, at any time from the
// cycle of the frame's first beat on (a parser that needs a table lookup may answer after the
// frame has ended). Cut-through: output beat j leaves as soon as the input beats it reads have
// arrived; the beat arriving in this cycle is used directly, so a frame whose descriptor comes
// with the beat completing its headers starts leaving one cycle later. A beat that ends
// exactly where SEG1 + INS end also waits for SEG2's first byte (or the frame's end): if SEG2
// turns out empty, it is the last beat (never followed by an empty one). The last output beat
// of a frame always waits for the input's last beat, so a verdict known only at the end
// (eof_bad, or a frame shorter than OUT_LEN) aborts the frame: its last beat has tuser = 1.
// With LATE_EOF = 1 the verdict need not come with the last beat: verdicts arrive in frame
// order on their own strobe (eof_valid), in or after the cycle of the frame's last beat, and
// the frame's last output beat waits for its verdict (a pipelined parser's verdict is late).
//
// s_axis_tready is a register: it falls only when the buffer could be overrun (a descriptor
// later than BUF_BEATS beats, output backpressure, or inserted bytes outpacing the input).
//
// Plan and data: each cycle the engine decides what the next output beat is and plans it:
// which buffer beats its bytes come from, the two funnel shifts, and for every byte whether
// it is a SEG1 byte, a SEG2 byte or one given outright (inserted or patched), and its tkeep.
// The data path then only reads the buffer, shifts and selects. With OUT_PIPE = 1 the plan is
// registered in between: every frame leaves one cycle later, the beat arriving in a cycle is
// read from the buffer the cycle after (no bypass), and the buffer keeps the beats a planned
// beat reads until the data path has read them (BUF_BEATS must cover one beat more).
//
// Descriptor: what the decision needs of it besides the raw fields (the end of SEG1 + INS and
// SEG2's source offset relative to the output, shift2) is computed as it arrives and kept in
// the frame's record, so a stored record costs the decision no addition. With DESC_PIPE = 1
// the descriptor is also registered before the engine sees it: a descriptor used in the cycle
// it arrives no longer puts those additions in series with the decision, and every frame
// whose output waits for its descriptor leaves one cycle later (BUF_BEATS: one beat more).
//
// Output frame's record: the decision reads the output frame's descriptor, start, length and
// verdict from registers (cur_*), loaded for the next frame in the cycle a frame leaves (from
// the per-frame arrays, or from what arrives in that cycle) and from the arrivals while the
// frame waits for them, never through an array indexed by out_seq: out_seq, the record and the
// decision that advances out_seq are no longer one loop.
//
// Live input: with END_PIPE = 0 the beat arriving in a cycle counts in that cycle's decision
// (a frame's last output beat can be decided as its last input beat arrives). Its tkeep then
// starts the engine's longest path at 512 bits (byte count -> frame length -> the last beat's
// decision). With END_PIPE = 1 a beat counts from the cycle after it arrives.
//
// Assumptions: tkeep is all ones on every beat but the last; on the last beat the frame ends
// after its highest set tkeep bit.

`default_nettype none

module axis_splice
    import stream_pkg::*;
#(
    // Width of the data bus in bits: 64, 128, 256 or 512.
    parameter int DATA_W = 256,
    // Bytes per beat.
    parameter int KEEP_W = DATA_W / 8,
    // Beats the buffer holds; a power of two. Must cover the descriptor's lag plus two (plus
    // three with OUT_PIPE).
    parameter int BUF_BEATS = 8,
    // Frames that may be between input and output at once; a power of two.
    parameter int FRAMES = 8,
    // Largest number of bytes a descriptor may insert (>= 1; 1 when nothing is inserted).
    parameter int INS_MAX = 4,
    // Number of byte patches a descriptor carries; patch positions are output byte offsets < 256.
    parameter int PATCHES = 6,
    // Width of the OUT_LEN field in bits.
    parameter int LEN_W = 17,
    // Width of per-frame metadata carried from the descriptor to every output beat (m_axis_tmeta).
    parameter int META_W = 1,
    // 0: eof_bad is sampled with each frame's last beat (eof_valid unused). 1: verdicts come
    // on the eof_valid strobe, in frame order, no earlier than the frame's last beat.
    parameter bit LATE_EOF = 1'b0,
    // 0: an output beat's bytes are selected in the cycle its plan is made. 1: the plan (beat
    // numbers, shifts, per-byte selects, inserted and patched bytes, tkeep) is registered and
    // the bytes are selected a cycle later: one cycle more latency on every frame, the record
    // arithmetic no longer in series with the data multiplexers ("Plan and data" below).
    parameter bit OUT_PIPE = 1'b0,
    // 0: a descriptor is used in the cycle it arrives. 1: it is registered first (its derived
    // fields computed before the register): one cycle more latency on every frame whose output
    // waits for its descriptor ("Descriptor" above).
    parameter bit DESC_PIPE = 1'b0,
    // 0: the beat arriving in a cycle takes part in that cycle's decision (its tkeep gives the
    // frame's length, its handshake the beats written). 1: the engine plans only from beats
    // that arrived before this cycle: no input port is in series with the decision; every
    // frame leaves one cycle later ("Live input" above; BUF_BEATS: one beat more).
    parameter bit END_PIPE = 1'b0
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic [DATA_W-1:0]     s_axis_tdata,
    input  wire logic [KEEP_W-1:0]     s_axis_tkeep,
    input  wire logic                  s_axis_tvalid,
    output      logic                  s_axis_tready,
    input  wire logic                  s_axis_tlast,
    input  wire logic                  s_axis_tuser,

    // Edit descriptor: one per frame, in frame order, never before the frame's first beat.
    input  wire logic                  desc_valid,
    input  wire logic                  desc_drop,
    input  wire logic [7:0]            desc_seg1_off,
    input  wire logic [7:0]            desc_seg1_len,
    input  wire logic [7:0]            desc_ins_len,
    input  wire logic [INS_MAX*8-1:0]  desc_ins_data,   // byte i in bits [8i+7:8i]
    input  wire logic [7:0]            desc_seg2_off,
    input  wire logic                  desc_len_valid,
    input  wire logic [LEN_W-1:0]      desc_out_len,
    input  wire logic [PATCHES-1:0]    desc_patch_en,
    input  wire logic [PATCHES*8-1:0]  desc_patch_pos,
    input  wire logic [PATCHES*8-1:0]  desc_patch_val,
    input  wire logic [META_W-1:0]     desc_meta,
    // Late verdict: abort the frame's output. Sampled with each frame's last beat handshake
    // (LATE_EOF = 0), or whenever eof_valid is high (LATE_EOF = 1).
    input  wire logic                  eof_valid,
    input  wire logic                  eof_bad,

    output      logic [DATA_W-1:0]     m_axis_tdata,
    output      logic [KEEP_W-1:0]     m_axis_tkeep,
    output      logic                  m_axis_tvalid,
    input  wire logic                  m_axis_tready,
    output      logic                  m_axis_tlast,
    output      logic                  m_axis_tuser,
    output      logic [META_W-1:0]     m_axis_tmeta
);

    localparam int BYTE_SH = $clog2(KEEP_W);
    localparam int BUF_AW  = $clog2(BUF_BEATS);
    localparam int FR_AW   = $clog2(FRAMES);
    // Absolute beat numbers; frames up to 2^(ABS_W-2) beats long.
    localparam int ABS_W   = 22;
    // Byte positions within a frame (signed arithmetic where noted).
    localparam int POS_W   = ABS_W + BYTE_SH;

    if (DATA_W != 64 && DATA_W != 128 && DATA_W != 256 && DATA_W != 512) begin : g_param_check_1
        $error("axis_splice: DATA_W must be 64, 128, 256 or 512");
    end
    if (KEEP_W * 8 != DATA_W) begin : g_param_check_2
        $error("axis_splice: KEEP_W must be DATA_W/8");
    end
    if (BUF_BEATS < 4 || (1 << BUF_AW) != BUF_BEATS) begin : g_param_check_3
        $error("axis_splice: BUF_BEATS must be a power of two >= 4");
    end
    if (FRAMES < 2 || (1 << FR_AW) != FRAMES) begin : g_param_check_4
        $error("axis_splice: FRAMES must be a power of two >= 2");
    end
    if (INS_MAX < 1 || INS_MAX > 128) begin : g_param_check_5
        $error("axis_splice: INS_MAX must be 1..128");
    end

    // ------------------------------------------------------------------ input side
    logic [DATA_W-1:0] buf_data [BUF_BEATS];
    logic [ABS_W-1:0]  wr_abs;          // absolute number of the next beat to arrive
    logic              in_first;        // next input beat starts a frame
    logic [ABS_W-1:0]  in_beats;        // beats of the entering frame before this cycle
    logic              live;            // output frame is the one still entering (registered)
    logic [FR_AW:0]    in_seq, out_seq, desc_seq;  // one extra bit for full/empty
    logic [FR_AW:0]    ver_seq;         // verdicts received (LATE_EOF)

    // ------------------------------------------------------------------ descriptor
    // A descriptor as the engine keeps it: the raw fields and the two derived ones the
    // decision needs (computed where the descriptor arrives, not where it is used).
    typedef struct packed {
        logic                 drop;
        logic [7:0]           s1off;
        logic [7:0]           s1len;
        logic [8:0]           ins_end;   // SEG1_LEN + INS_LEN: the output byte SEG2 starts at
        logic [INS_MAX*8-1:0] ins;
        logic [7:0]           s2off;
        logic signed [9:0]    shift2;    // SEG2_OFF - ins_end: SEG2 source minus output offset
        logic                 lenv;
        logic [LEN_W-1:0]     len;
        logic [PATCHES-1:0]   pen;
        logic [PATCHES*8-1:0] ppos;
        logic [PATCHES*8-1:0] pval;
        logic [META_W-1:0]    meta;
    } desc_t;

    desc_t desc_in;                     // the ports, with the derived fields
    desc_t dsc;                         // the descriptor the engine takes this cycle ...
    logic  dsc_valid;                   // ... if this is set

    always_comb begin
        desc_in.drop    = desc_drop;
        desc_in.s1off   = desc_seg1_off;
        desc_in.s1len   = desc_seg1_len;
        desc_in.ins_end = {1'b0, desc_seg1_len} + {1'b0, desc_ins_len};
        desc_in.ins     = desc_ins_data;
        desc_in.s2off   = desc_seg2_off;
        desc_in.shift2  = signed'({2'b00, desc_seg2_off}) - signed'({1'b0, desc_in.ins_end});
        desc_in.lenv    = desc_len_valid;
        desc_in.len     = desc_out_len;
        desc_in.pen     = desc_patch_en;
        desc_in.ppos    = desc_patch_pos;
        desc_in.pval    = desc_patch_val;
        desc_in.meta    = desc_meta;
    end

    if (DESC_PIPE) begin : g_desc_reg
        always_ff @(posedge clk) begin
            dsc_valid <= desc_valid;
            if (desc_valid) dsc <= desc_in;
            if (rst) dsc_valid <= 1'b0;
        end
    end else begin : g_desc_wire
        assign dsc_valid = desc_valid;
        assign dsc       = desc_in;
    end

    // Per-frame records, indexed by frame sequence number.
    logic [ABS_W-1:0]     fr_base     [FRAMES];
    logic [ABS_W-1:0]     fr_nbeats   [FRAMES];  // beats of the frame
    logic [POS_W-1:0]     fr_flen     [FRAMES];  // bytes of the frame
    logic                 fr_bad      [FRAMES];
    logic                 fr_vbad     [FRAMES];  // the late verdict (LATE_EOF)
    desc_t                fr_desc     [FRAMES];

    wire s_hs = s_axis_tvalid && s_axis_tready;

    // Bytes in the live beat: up to and including its highest set tkeep bit. A log-depth tree
    // (stream_pkg::keep_bytes): as a KEEP_W-deep priority chain it began the engine's longest
    // path at 512 bits (tkeep -> byte count -> frame length -> plan register, 19.1 ns on ECP5).
    logic [BYTE_SH:0] live_len;
    always_comb
        live_len = s_axis_tlast ? (BYTE_SH+1)'(keep_bytes(64'(s_axis_tkeep))) : (BYTE_SH+1)'(KEEP_W);

    wire [FR_AW-1:0] in_idx   = in_seq[FR_AW-1:0];
    wire [FR_AW-1:0] desc_idx = desc_seq[FR_AW-1:0];
    wire [FR_AW-1:0] ver_idx  = ver_seq[FR_AW-1:0];

    // ------------------------------------------------------------------ output side state
    logic [ABS_W-1:0]  ob;        // output beat index within the current output frame
    logic [ABS_W-1:0]  oldest;    // beats of the output frame below this are no longer needed
    logic              hold_v;    // the frame's last output beat is computed and waits for eof
    logic [DATA_W-1:0] hold_data;
    logic [KEEP_W-1:0] hold_keep;

    // The output frame's record ("Output frame's record" above), with the live input
    // (END_PIPE = 0) and a descriptor or verdict arriving this cycle bypassed in.
    logic              exists;
    logic [ABS_W-1:0]  base;
    logic              dv, eof, bad;
    logic              vok;        // the frame's verdict is known (always, when !LATE_EOF)
    desc_t             rec;        // the output frame's descriptor (valid when dv)
    logic [ABS_W-1:0]  written;    // beats of the output frame available now
    // rec's fields by their names
    logic              drop, lenv;
    logic [7:0]        s1off, s1len, s2off;
    logic [INS_MAX*8-1:0] ins;
    logic [LEN_W-1:0]  out_len;
    logic [PATCHES-1:0]   pen;
    logic [PATCHES*8-1:0] ppos, pval;
    logic [META_W-1:0] meta;

    // The registered record. cur_dv is desc_seq != out_seq and cur_vseen ver_seq != out_seq,
    // kept as registers; cur_base is valid once the frame's first beat has arrived, cur_nbeats,
    // cur_flen and cur_bad once its last has (!live).
    logic              cur_dv, cur_vseen, cur_vbad, cur_bad;
    desc_t             cur_desc;
    logic [ABS_W-1:0]  cur_base, cur_nbeats;
    logic [POS_W-1:0]  cur_flen;

    // What the beat arriving now tells of its frame, as the arrays keep it.
    logic [ABS_W-1:0]  in_nbeats;
    logic [POS_W-1:0]  in_flen;
    logic              in_bad;

    always_comb begin
        in_nbeats = in_beats + 1'b1;
        in_flen   = POS_W'({in_beats, {BYTE_SH{1'b0}}}) + POS_W'(live_len);
        in_bad    = (LATE_EOF ? 1'b0 : eof_bad) || s_axis_tuser;
    end

    always_comb begin
        exists = !live || !in_first || (!END_PIPE && s_hs);
        base   = (live && in_first) ? wr_abs : cur_base;
        // Descriptors come in frame order: the output frame's has come before, or comes now.
        dv  = cur_dv || dsc_valid;
        rec = cur_dv ? cur_desc : dsc;
        drop = rec.drop; s1off = rec.s1off; s1len = rec.s1len; ins = rec.ins;
        s2off = rec.s2off; lenv = rec.lenv; out_len = rec.len;
        pen = rec.pen; ppos = rec.ppos; pval = rec.pval; meta = rec.meta;
        // Lengths come from per-frame counters, not from absolute beat numbers, to keep
        // subtractions off the path to the output decision.
        if (live) begin
            eof      = !END_PIPE && s_hs && s_axis_tlast;
            bad      = in_bad;
            written  = in_beats + ABS_W'(!END_PIPE && s_hs);
        end else begin
            eof      = 1'b1;
            bad      = cur_bad;
            written  = cur_nbeats;
        end
        // Verdicts come in frame order and never before the frame has ended: the output
        // frame's has come before, or comes now.
        vok = 1'b1;
        if (LATE_EOF) begin
            vok = cur_vseen || eof_valid;
            bad = bad || (cur_vseen ? cur_vbad : eof_bad);
        end
    end

    // ------------------------------------------------------------------ output beat: plan
    // What the data path needs to build one output beat. Bytes given outright (inserted or
    // patched) travel in the plan; SEG1 and SEG2 bytes are read from the buffer.
    typedef struct packed {
        logic               beat;       // a beat for m_axis
        logic               from_hold;  // ... which is hold_data / hold_keep
        logic               to_hold;    // the beat is kept aside in hold_data, not sent
        logic               last;
        logic               user;
        logic [META_W-1:0]  meta;
        logic [ABS_W-1:0]   a1, a2;     // absolute numbers of the funnels' lower beats
        logic [BYTE_SH-1:0] r1, r2;     // funnel shifts in bytes
        logic [KEEP_W-1:0]  keep;
        logic [KEEP_W-1:0]  sel1;       // byte b is a SEG1 byte (else SEG2, unless given)
        logic [KEEP_W-1:0]  given;      // byte b is given_data's byte b
        logic [DATA_W-1:0]  given_data;
    } plan_t;

    plan_t              plan;           // made this cycle
    plan_t              pq;             // the one the data path builds this cycle
    logic               plan_ready;     // the data path takes a plan this cycle

    logic [ABS_W-1:0]   q1, q2;          // q2 is two's complement (inserted bytes: negative)
    logic signed [POS_W-1:0] shift2;     // SEG2 source offset minus output offset
    logic [POS_W-1:0]   ob_pos, ob_end, ins_end;
    logic               ob_hi;           // ob_pos >= 512: past every descriptor position
    logic [POS_W-1:0]   src_max;
    // Distances from this output beat's first byte (signed): to OUT_LEN, to the end of
    // SEG1 + INS, and to the output byte that SEG2 would take from the frame's end.
    logic signed [POS_W-1:0] d_len, d_ins, d_end;
    logic               is_last, need_ok, emit, trunc, any_src;
    logic               next_ok;        // the output has a byte after this beat, or may end here
    logic [ABS_W-1:0]   need_beat;
    logic               o_ready;
    logic               frame_done;     // the output frame leaves the engine this cycle

    assign o_ready = !m_axis_tvalid || m_axis_tready;

    // Output byte x is past the output's end when (lenv && x >= OUT_LEN), or, once the frame
    // has ended, when SEG1 + INS are behind it and SEG2 has nothing left for it:
    // x >= SEG1_LEN + INS_LEN && x + shift2 >= frame length. That is the same as
    // x >= min(OUT_LEN, SEG1_LEN + INS_LEN + max(0, frame length - SEG2_OFF)) (the model's
    // `avail`), written so that the frame length, which the live beat's tkeep gives, meets
    // one subtraction and small comparisons instead of the chain avail -> output length ->
    // comparison. The three distances from the beat's first byte are clamped to
    // 0 .. 2*KEEP_W-1 first: within a beat (x = ob_pos + b, b <= KEEP_W) only that range
    // tells bytes apart, and the per-byte comparisons then are (BYTE_SH+1)-bit ones.
    localparam int SMALL_W = BYTE_SH + 1;
    function automatic logic [SMALL_W-1:0] clamp_small(input logic signed [POS_W-1:0] d);
        if (d[POS_W-1])                  clamp_small = '0;
        else if (|d[POS_W-2:SMALL_W])    clamp_small = '1;
        else                             clamp_small = d[SMALL_W-1:0];
    endfunction

    logic [SMALL_W-1:0] c_len, c_ins, c_end;
    function automatic logic past_end(input logic [SMALL_W-1:0] b);
        past_end = (lenv && c_len <= b) || (eof && c_ins <= b && c_end <= b);
    endfunction

    always_comb begin
        q1      = ABS_W'(s1off >> BYTE_SH);
        ins_end = POS_W'(rec.ins_end);
        shift2  = {{(POS_W-10){rec.shift2[9]}}, rec.shift2};
        q2      = ABS_W'(shift2 >>> BYTE_SH);
        ob_pos  = POS_W'(ob) << BYTE_SH;
        ob_end  = ob_pos + POS_W'(KEEP_W);
        d_len   = signed'(POS_W'(out_len)) - signed'(ob_pos);
        d_ins   = signed'(ins_end) - signed'(ob_pos);
        // flen - (ob_pos + shift2); for the live frame flen = in_beats * KEEP_W + live_len,
        // so live_len is added last. (END_PIPE: the live frame has not ended for the decision.)
        if (live && !END_PIPE) d_end = signed'(POS_W'({in_beats, {BYTE_SH{1'b0}}}) - ob_pos - POS_W'(shift2))
                          + signed'(POS_W'(live_len));
        else                   d_end = signed'(cur_flen - ob_pos - POS_W'(shift2));
        c_len   = clamp_small(d_len);
        c_ins   = clamp_small(d_ins);
        c_end   = clamp_small(d_end);
        // The segments cannot supply OUT_LEN: d_len > d_ins && d_len > d_end.
        trunc   = eof && lenv && d_len > d_ins && d_len > d_end;
        is_last = past_end(SMALL_W'(KEEP_W));
        // Highest input byte this output beat reads (SEG2 bytes come after SEG1 bytes).
        any_src = 1'b1;
        if (ob_end > ins_end)
            src_max = POS_W'(signed'(ob_end - 1'b1) + shift2);
        else if (ob_pos < POS_W'(s1len))
            src_max = POS_W'(s1off) + ((ob_end < POS_W'(s1len)) ? ob_end : POS_W'(s1len)) - 1'b1;
        else begin
            src_max = '0; any_src = 1'b0;             // inserted bytes only
        end
        need_beat = ABS_W'(src_max >> BYTE_SH);
        need_ok = eof || !any_src || (need_beat < written);
        // A beat ending exactly where SEG1 + INS end is the frame's last when SEG2 turns out
        // empty (the frame ends at or before SEG2_OFF). It leaves as a beat that is not the
        // last only once SEG2's first byte is in the buffer (or the frame has ended, and
        // is_last knows): otherwise an empty last beat (tkeep = 0) would have to follow.
        next_ok = eof || ob_end != ins_end || (ABS_W'(s2off >> BYTE_SH) < written);

        plan = '0;
        plan.meta = meta;
        plan.a1   = base + ob + q1;
        plan.a2   = base + ob + q2;
        plan.r1   = s1off[BYTE_SH-1:0];
        plan.r2   = shift2[BYTE_SH-1:0];
        // Per byte b of the beat, output byte o = ob_pos + b is compared with SEG1_LEN (< 256),
        // the end of SEG1 + INS (< 512), SEG1_LEN + i (inserted byte i, < 383) and the patch
        // positions (< 256): all below 512, so only o's low 9 bits take part, and o >= 512 is
        // one flag per beat. The low bits are a concatenation (ob_pos is a multiple of KEEP_W,
        // b < KEEP_W): 9-bit comparisons with no addition, instead of POS_W-bit ones.
        // The inserted byte is indexed by o - SEG1_LEN (one 9-bit subtraction and a mux per
        // byte) rather than found by comparing o with SEG1_LEN + i for every i: the same
        // function (SEG1_LEN + i < 383 never wraps), without KEEP_W x INS_MAX comparators,
        // which also made every simulated cycle of the encap engine evaluate 2048 of them.
        ob_hi = |ob_pos[POS_W-1:9];
        for (int b = 0; b < KEEP_W; b++) begin
            logic [8:0] o9;
            logic [8:0] ins_i;
            logic [7:0] ins_byte;
            o9 = ob_pos[8:0] | 9'(b);
            ins_i = o9 - 9'(s1len);
            ins_byte = (!ob_hi && o9 >= 9'(s1len) && ins_i < 9'(INS_MAX))
                     ? ins[8*ins_i +: 8] : 8'h00;
            plan.sel1[b] = !ob_hi && o9 < 9'(s1len);
            plan.given[b] = !plan.sel1[b] && !ob_hi && o9 < ins_end[8:0];
            plan.given_data[8*b +: 8] = ins_byte;
            for (int p = 0; p < PATCHES; p++)
                if (pen[p] && !ob_hi && o9 == 9'(ppos[8*p +: 8])) begin
                    plan.given[b] = 1'b1;
                    plan.given_data[8*b +: 8] = pval[8*p +: 8];
                end
            plan.keep[b] = !past_end(SMALL_W'(b));
        end

        // Decide what leaves this cycle.
        frame_done = 1'b0; emit = 1'b0;
        if (exists && dv) begin
            if (drop) begin
                frame_done = eof && vok;
            end else if (hold_v) begin
                if (eof && vok) begin
                    // (A late verdict may also hold a frame found short: trunc.)
                    plan.beat = 1'b1; plan.from_hold = 1'b1;
                    plan.last = 1'b1; plan.user = bad || (LATE_EOF && trunc);
                    frame_done = plan_ready;
                end
            end else if (need_ok) begin
                if (!is_last) begin
                    if (next_ok) begin
                        plan.beat = 1'b1;
                        emit = plan_ready;
                    end
                end else if (eof && vok) begin
                    plan.beat = 1'b1; plan.last = 1'b1; plan.user = bad || trunc;
                    frame_done = plan_ready;
                end else if (!OUT_PIPE || plan_ready) begin
                    // Last beat of an OUT_LEN-cut frame whose padding is still arriving, or
                    // whose verdict is: keep it aside so later beats need no buffer space.
                    plan.to_hold = 1'b1;
                end
            end
        end
    end

    // ------------------------------------------------------------------ output beat: data
    // With OUT_PIPE = 0 the plan is used as it is made, and a beat arriving this cycle is
    // read from the input directly. With OUT_PIPE = 1 the plan is registered; every beat it
    // reads was written to the buffer by then. It moves on when the output register does, or
    // when it holds no beat for m_axis (a bubble or a beat kept aside).
    if (OUT_PIPE) begin : g_plan_reg
        plan_t pq_r;
        assign plan_ready = o_ready || !pq_r.beat;
        assign pq = pq_r;
        always_ff @(posedge clk) begin
            if (plan_ready) pq_r <= plan;
            if (rst) begin
                pq_r.beat    <= 1'b0;
                pq_r.to_hold <= 1'b0;
            end
        end
    end else begin : g_plan_wire
        assign plan_ready = o_ready;
        assign pq = plan;
    end

    function automatic logic [DATA_W-1:0] beat_at(input logic [ABS_W-1:0] a);
        // (Assignment to the function name, not `return`: Yosys's reader wants it so.)
        beat_at = (!OUT_PIPE && !END_PIPE && a == wr_abs) ? s_axis_tdata : buf_data[a[BUF_AW-1:0]];
    endfunction

    logic [2*DATA_W-1:0] funnel1, funnel2;
    logic [DATA_W-1:0]   seg1_bytes, seg2_bytes, o_data;
    logic [KEEP_W-1:0]   o_keep;

    always_comb begin
        funnel1 = {beat_at(pq.a1 + 1'b1), beat_at(pq.a1)};
        funnel2 = {beat_at(pq.a2 + 1'b1), beat_at(pq.a2)};
        seg1_bytes = funnel1[DATA_W-1 + 8*pq.r1 -: DATA_W];
        seg2_bytes = funnel2[DATA_W-1 + 8*pq.r2 -: DATA_W];
        for (int b = 0; b < KEEP_W; b++) begin
            if (!pq.keep[b])      o_data[8*b +: 8] = 8'h00;
            else if (pq.given[b]) o_data[8*b +: 8] = pq.given_data[8*b +: 8];
            else if (pq.sel1[b])  o_data[8*b +: 8] = seg1_bytes[8*b +: 8];
            else                  o_data[8*b +: 8] = seg2_bytes[8*b +: 8];
        end
        o_keep = pq.keep;
        if (pq.from_hold) begin
            o_data = hold_data; o_keep = hold_keep;
        end
    end

    // ------------------------------------------------------------------ buffer accounting
    // s_axis_tready is registered from the occupancy, and the occupancy is wr_abs minus the
    // oldest beat still needed. This cycle's output decision moves the oldest beat; to keep
    // that decision off the path to s_axis_tready, the oldest beat is registered as a sum
    // (oa_base + an offset) and the occupancy is taken from it one cycle later. The oldest
    // beat only moves forward, so the occupancy seen is never below the true one: the buffer
    // cannot be overrun, and it is reused one cycle later than it could be.
    logic [FR_AW:0]   in_seq_n, out_seq_n, out_seq_inc;
    logic [ABS_W-1:0] wr_abs_n, ob_n, oldest_n, src_next;
    logic [POS_W-1:0] next_pos, src_min;
    logic             in_first_n, hold_v_n, live_n;
    logic [ABS_W-1:0] base_next;        // the next frame's first beat, if this one leaves
    // The registered record's next state.
    logic             cur_dv_n, cur_vseen_n, cur_vbad_n, cur_bad_n;
    desc_t            cur_desc_n;
    logic [ABS_W-1:0] cur_base_n, cur_nbeats_n;
    logic [POS_W-1:0] cur_flen_n;
    logic             nxt_desc_stored, nxt_ver_stored, nxt_ended;
    logic [FR_AW-1:0] nxt_idx;
    logic [ABS_W-1:0] oa_base_n, oa_wr_n;
    logic             oa_clamp_n;
    // Registered halves of the oldest needed beat: oa_base + (oa_clamp ? min(oa_oldest, oa_wr)
    // : oa_wr), where oa_oldest is the registered oldest_n (OUT_PIPE = 0), or oa_old: the
    // oldest before the decision that made the registered plan (OUT_PIPE = 1).
    logic [ABS_W-1:0] oa_base, oa_wr, oa_old, oa_oldest;
    logic             oa_clamp;
    logic [ABS_W-1:0] oldest_abs, occ;

    always_comb begin
        wr_abs_n   = wr_abs + ABS_W'(s_hs);
        in_first_n = s_hs ? s_axis_tlast : in_first;
        in_seq_n   = in_seq + (FR_AW+1)'(s_hs && s_axis_tlast);
        out_seq_inc = out_seq + 1'b1;
        out_seq_n  = frame_done ? out_seq_inc : out_seq;
        // Compared both ways before the decision picks one.
        live_n     = frame_done ? (out_seq_inc == in_seq_n) : (out_seq == in_seq_n);
        // Lowest input byte the next output beat reads.
        next_pos = ob_end;
        if (next_pos < POS_W'(s1len)) src_min = POS_W'(s1off) + next_pos;
        else if (next_pos <= ins_end) src_min = POS_W'(s2off);
        else src_min = POS_W'(signed'(next_pos) + shift2);
        src_next = ABS_W'(src_min >> BYTE_SH);
        ob_n = ob; oldest_n = oldest; hold_v_n = hold_v;
        if (frame_done) begin
            ob_n = '0; oldest_n = '0; hold_v_n = 1'b0;
        end else if (emit) begin
            ob_n = ob + 1'b1;
            oldest_n = src_next;
        end else if (plan.to_hold) begin
            hold_v_n = 1'b1;
        end
        base_next = (out_seq_inc == in_seq) ? (in_first ? wr_abs : fr_base[in_idx])
                                            : fr_base[out_seq_inc[FR_AW-1:0]];

        // The record of the frame that is the output frame next cycle. When a frame leaves,
        // the next one's parts come from the arrays if they arrived before this cycle, else
        // from what arrives now (parts not arrived by then are loaded when they do). The
        // comparisons read registers only; frame_done just picks.
        nxt_idx         = out_seq_inc[FR_AW-1:0];
        nxt_desc_stored = cur_dv && (desc_seq != out_seq_inc);
        nxt_ver_stored  = cur_vseen && (ver_seq != out_seq_inc);
        nxt_ended       = in_seq != out_seq_inc;   // (garbage when live: the next one is live too)
        if (frame_done) begin
            cur_dv_n     = nxt_desc_stored || (cur_dv && dsc_valid);
            cur_desc_n   = nxt_desc_stored ? fr_desc[nxt_idx] : dsc;
            cur_vseen_n  = nxt_ver_stored || (cur_vseen && eof_valid);
            cur_vbad_n   = nxt_ver_stored ? fr_vbad[nxt_idx] : eof_bad;
            cur_base_n   = base_next;
            cur_nbeats_n = nxt_ended ? fr_nbeats[nxt_idx] : in_nbeats;
            cur_flen_n   = nxt_ended ? fr_flen[nxt_idx]   : in_flen;
            cur_bad_n    = nxt_ended ? fr_bad[nxt_idx]    : in_bad;
        end else begin
            cur_dv_n     = cur_dv || dsc_valid;
            cur_desc_n   = dsc;
            cur_vseen_n  = cur_vseen || eof_valid;
            cur_vbad_n   = cur_vseen ? cur_vbad : eof_bad;
            cur_base_n   = (live && in_first) ? wr_abs : cur_base;
            cur_nbeats_n = live ? in_nbeats : cur_nbeats;
            cur_flen_n   = live ? in_flen   : cur_flen;
            cur_bad_n    = live ? in_bad    : cur_bad;
        end
        if (!LATE_EOF) begin
            cur_vseen_n = 1'b0; cur_vbad_n = 1'b0;
        end

        // Oldest beat still needed after this cycle, in absolute numbers. With OUT_PIPE = 1 the
        // data path reads next cycle what this cycle plans: the state before the decision.
        oa_clamp_n = 1'b0;
        oa_wr_n    = '0;
        if (OUT_PIPE) begin
            oa_base_n  = base;
            oa_wr_n    = written;
            oa_clamp_n = !((exists && dv && drop) || hold_v);
        end else if (live_n && in_first_n) begin
            oa_base_n = wr_abs_n;                          // nothing in flight
        end else if (frame_done) begin
            oa_base_n = base_next;
        end else begin
            oa_base_n = base;
            oa_wr_n   = written;                           // dropped or held: none of it needed
            oa_clamp_n = !((exists && dv && drop) || hold_v_n);
        end
    end

    // The occupancy from last cycle's oldest beat and this cycle's writes.
    always_comb begin
        oa_oldest  = OUT_PIPE ? oa_old : oldest;
        oldest_abs = oa_base + ((oa_clamp && oa_oldest < oa_wr) ? oa_oldest : oa_wr);
        occ = wr_abs_n - oldest_abs;
        if (occ[ABS_W-1]) occ = '0;                        // needed beats not yet arrived
    end

    always_ff @(posedge clk) begin
        if (s_hs) begin
            buf_data[wr_abs[BUF_AW-1:0]] <= s_axis_tdata;
            if (in_first) begin
                fr_base[in_idx] <= wr_abs;
            end
            if (s_axis_tlast) begin
                fr_nbeats[in_idx]   <= in_nbeats;
                fr_flen[in_idx]     <= in_flen;
                fr_bad[in_idx]      <= in_bad;
            end
        end
        if (LATE_EOF && eof_valid) begin
            fr_vbad[ver_idx] <= eof_bad;
        end
        if (dsc_valid) begin
            fr_desc[desc_idx] <= dsc;
        end
        if (pq.to_hold) begin
            hold_data <= o_data;
            hold_keep <= o_keep;
        end
        if (pq.beat && o_ready) begin
            m_axis_tdata <= o_data;
            m_axis_tkeep <= o_keep;
            m_axis_tlast <= pq.last;
            m_axis_tuser <= pq.user;
            m_axis_tmeta <= pq.meta;
        end

        // (The live frame's end parts are loaded with each beat; the last one's stay.)
        cur_dv   <= cur_dv_n;
        cur_vseen <= cur_vseen_n;
        cur_vbad <= cur_vbad_n;
        // Loaded only with a new value, never with itself: a descriptor field a top ties to
        // a constant then stays one in synthesis (with cur_desc fed back through the load
        // multiplexer Yosys kept the register, and with it SEG1's per-byte comparisons in
        // vxlan_encap: 36,008 LUT4 against 18,470).
        if (frame_done || (dsc_valid && !cur_dv)) cur_desc <= cur_desc_n;
        if (frame_done || s_hs) begin
            cur_base   <= cur_base_n;
            cur_nbeats <= cur_nbeats_n;
            cur_flen   <= cur_flen_n;
            cur_bad    <= cur_bad_n;
        end
        wr_abs   <= wr_abs_n;
        in_first <= in_first_n;
        if (s_hs) in_beats <= s_axis_tlast ? '0 : in_beats + 1'b1;
        live     <= live_n;
        in_seq   <= in_seq_n;
        out_seq  <= out_seq_n;
        desc_seq <= desc_seq + (FR_AW+1)'(dsc_valid);
        ver_seq  <= ver_seq + (FR_AW+1)'(LATE_EOF && eof_valid);
        ob       <= ob_n;
        oldest   <= oldest_n;
        hold_v   <= hold_v_n;
        // (OUT_PIPE = 1: while the registered plan waits for the output, it keeps its beats.)
        if (plan_ready || !OUT_PIPE) begin
            oa_base  <= oa_base_n;
            oa_wr    <= oa_wr_n;
            oa_clamp <= oa_clamp_n;
            oa_old   <= oldest;
        end
        if (o_ready) m_axis_tvalid <= pq.beat;
        // Registered ready: room for one more beat, and a record for a new frame (counted
        // against last cycle's output frame, for the same reason as the occupancy).
        s_axis_tready <= (occ < ABS_W'(BUF_BEATS)) &&
                         (!in_first_n || (in_seq_n - out_seq) < (FR_AW+1)'(FRAMES));

        if (rst) begin
            wr_abs        <= '0;
            in_first      <= 1'b1;
            in_beats      <= '0;
            live          <= 1'b1;
            in_seq        <= '0;
            out_seq       <= '0;
            desc_seq      <= '0;
            ver_seq       <= '0;
            ob            <= '0;
            oldest        <= '0;
            cur_dv        <= 1'b0;
            cur_vseen     <= 1'b0;
            hold_v        <= 1'b0;
            oa_base       <= '0;
            oa_wr         <= '0;
            oa_clamp      <= 1'b0;
            oa_old        <= '0;
            m_axis_tvalid <= 1'b0;
            s_axis_tready <= 1'b0;
        end
    end

endmodule

`default_nettype wire

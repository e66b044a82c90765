// SPDX-License-Identifier: Apache-2.0
//
// axis_splice — the shared byte-shifting engine of wirespeed.
//
// Every frame is rewritten as
//
//     output = frame[0 .. KEEP_LEN)  ++  frame[KEEP_LEN + STRIP_LEN .. )      (then byte patches)
//              \___ kept prefix ___/     \___ the rest, shifted down ___/
//
// optionally cut to exactly OUT_LEN bytes (trailing Ethernet padding is discarded), or dropped.
// The edit is described once per frame by a descriptor from a parser that watches the same
// input beats; it may arrive on any beat of the frame up to and including the last one. A
// strip of a tunnel header (GRE, VXLAN decap) and a rewrite of a few header bytes (EtherType,
// ECN, checksums) are both expressed this way, so protocols share this one engine.
//
//   s_axis ──► beat buffer (BUF_BEATS registers, indexed by absolute beat number) ──►
//              output beat j = prefix bytes from beat j, the rest from beats j+q and
//              j+q+1 funnel-shifted by r bytes  (STRIP_LEN = q*KEEP_W + r) ──► m_axis
//
// Cut-through: output beat j leaves as soon as the input beats it needs have arrived; the
// input beat that completes it is used in the same cycle (no extra register stage), so the
// first output beat follows the descriptor by one cycle. The last output beat of a frame
// always waits for the input's last beat, so a verdict known only at the end (eof_bad, or a
// frame shorter than OUT_LEN) can abort the frame: its last beat carries m_axis_tuser = 1.
//
// s_axis_tready is a register: it is low only when the buffer could be overrun, which with
// an unstalled output happens only if a parser decides later than BUF_BEATS beats.
//
// Assumptions: tkeep is all ones on every beat but the last; on the last beat the frame ends
// after its highest set tkeep bit.

`default_nettype none

module axis_splice #(
    // Width of the data bus in bits: 64, 128, 256 or 512.
    parameter int DATA_W = 256,
    // Bytes per beat.
    parameter int KEEP_W = DATA_W / 8,
    // Beats the buffer holds; a power of two. Must cover the parser's decision depth plus two.
    parameter int BUF_BEATS = 8,
    // Frames that may be between input and output at once; a power of two.
    parameter int FRAMES = 8,
    // Largest KEEP_LEN and STRIP_LEN a descriptor may carry (bytes).
    parameter int PREFIX_MAX = 32,
    parameter int STRIP_MAX = 128,
    // Number of byte patches a descriptor carries; patch positions are output byte offsets < 256.
    parameter int PATCHES = 6,
    // Width of the OUT_LEN field in bits.
    parameter int LEN_W = 17
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic [DATA_W-1:0]     s_axis_tdata,
    input  wire logic [KEEP_W-1:0]     s_axis_tkeep,
    input  wire logic                  s_axis_tvalid,
    output      logic                  s_axis_tready,
    input  wire logic                  s_axis_tlast,
    input  wire logic                  s_axis_tuser,

    // Descriptor of the frame currently entering; valid for one cycle, only together with one of
    // that frame's beat handshakes (at the latest its last beat).
    input  wire logic                  desc_valid,
    input  wire logic                  desc_drop,
    input  wire logic [7:0]            desc_keep_len,
    input  wire logic [7:0]            desc_strip_len,
    input  wire logic                  desc_len_valid,
    input  wire logic [LEN_W-1:0]      desc_out_len,
    input  wire logic [PATCHES-1:0]    desc_patch_en,
    input  wire logic [PATCHES*8-1:0]  desc_patch_pos,
    input  wire logic [PATCHES*8-1:0]  desc_patch_val,
    // Late verdict, sampled with the frame's last beat handshake: abort its output.
    input  wire logic                  eof_bad,

    output      logic [DATA_W-1:0]     m_axis_tdata,
    output      logic [KEEP_W-1:0]     m_axis_tkeep,
    output      logic                  m_axis_tvalid,
    input  wire logic                  m_axis_tready,
    output      logic                  m_axis_tlast,
    output      logic                  m_axis_tuser
);

    localparam int BYTE_SH = $clog2(KEEP_W);
    localparam int BUF_AW  = $clog2(BUF_BEATS);
    localparam int FR_AW   = $clog2(FRAMES);
    // Absolute beat numbers; frames up to 2^(ABS_W-1) beats long.
    localparam int ABS_W   = 22;
    // Byte positions within a frame.
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
    if (PREFIX_MAX > 255 || STRIP_MAX > 255) begin : g_param_check_5
        $error("axis_splice: PREFIX_MAX and STRIP_MAX must fit in 8 bits");
    end

    // ------------------------------------------------------------------ input side
    logic [DATA_W-1:0] buf_data [BUF_BEATS];
    logic [ABS_W-1:0]  wr_abs;          // absolute number of the next beat to arrive
    logic              in_first;        // next input beat starts a frame
    logic [FR_AW:0]    in_seq, out_seq; // frame sequence numbers, one extra bit for full/empty

    // Per-frame records, indexed by frame sequence number.
    logic [ABS_W-1:0]     fr_base     [FRAMES];
    logic [ABS_W-1:0]     fr_end      [FRAMES];  // absolute number of the last beat
    logic [BYTE_SH:0]     fr_last_len [FRAMES];  // bytes in the last beat
    logic                 fr_bad      [FRAMES];
    logic                 fr_dv       [FRAMES];
    logic                 fr_drop     [FRAMES];
    logic [7:0]           fr_keep     [FRAMES];
    logic [7:0]           fr_strip    [FRAMES];
    logic                 fr_lenv     [FRAMES];
    logic [LEN_W-1:0]     fr_len      [FRAMES];
    logic [PATCHES-1:0]   fr_pen      [FRAMES];
    logic [PATCHES*8-1:0] fr_ppos     [FRAMES];
    logic [PATCHES*8-1:0] fr_pval     [FRAMES];

    wire s_hs = s_axis_tvalid && s_axis_tready;

    // Bytes in the live beat: up to and including its highest set tkeep bit.
    logic [BYTE_SH:0] live_len;
    always_comb begin
        live_len = '0;
        for (int b = 0; b < KEEP_W; b++)
            if (s_axis_tkeep[b]) live_len = (BYTE_SH+1)'(b + 1);
        if (!s_axis_tlast) live_len = (BYTE_SH+1)'(KEEP_W);
    end

    wire [FR_AW-1:0] in_idx  = in_seq[FR_AW-1:0];
    wire [FR_AW-1:0] out_idx = out_seq[FR_AW-1:0];

    // ------------------------------------------------------------------ output side state
    logic [ABS_W-1:0] ob;        // output beat index within the current output frame
    logic [ABS_W-1:0] oldest;    // beats of the output frame below this index are no longer needed
    logic             hold_v;    // the frame's last output beat is computed and waits for eof
    logic [DATA_W-1:0] hold_data;
    logic [KEEP_W-1:0] hold_keep;

    // The output frame's record, with the live input bypassed in.
    logic              live;       // output frame is the one still entering
    logic              exists;
    logic [ABS_W-1:0]  base;
    logic              dv, drop, lenv, eof, bad;
    logic [7:0]        keep_len, strip_len;
    logic [LEN_W-1:0]  out_len;
    logic [PATCHES-1:0]   pen;
    logic [PATCHES*8-1:0] ppos, pval;
    logic [ABS_W-1:0]  written;    // beats of the output frame available now (incl. live beat)
    logic [ABS_W-1:0]  nbeats;     // beats of the output frame (valid when eof)
    logic [BYTE_SH:0]  last_len;

    always_comb begin
        live   = (out_seq == in_seq);
        exists = !live || !in_first || s_hs;
        base   = (live && in_first) ? wr_abs : fr_base[out_idx];
        if (live && desc_valid) begin
            dv = 1'b1; drop = desc_drop; keep_len = desc_keep_len; strip_len = desc_strip_len;
            lenv = desc_len_valid; out_len = desc_out_len;
            pen = desc_patch_en; ppos = desc_patch_pos; pval = desc_patch_val;
        end else begin
            dv = fr_dv[out_idx] && !(live && in_first); drop = fr_drop[out_idx];
            keep_len = fr_keep[out_idx]; strip_len = fr_strip[out_idx];
            lenv = fr_lenv[out_idx]; out_len = fr_len[out_idx];
            pen = fr_pen[out_idx]; ppos = fr_ppos[out_idx]; pval = fr_pval[out_idx];
        end
        if (live) begin
            eof      = s_hs && s_axis_tlast;
            bad      = eof_bad || s_axis_tuser;
            written  = wr_abs - base + ABS_W'(s_hs);
            nbeats   = written;
            last_len = live_len;
        end else begin
            eof      = 1'b1;
            bad      = fr_bad[out_idx];
            nbeats   = fr_end[out_idx] - base + 1'b1;
            written  = nbeats;
            last_len = fr_last_len[out_idx];
        end
    end

    // A beat of the output frame by its index: the live input, or the buffer.
    function automatic logic [DATA_W-1:0] beat_at(input logic [ABS_W-1:0] idx);
        logic [ABS_W-1:0] a;
        a = base + idx;
        if (a == wr_abs) return s_axis_tdata;
        return buf_data[a[BUF_AW-1:0]];
    endfunction

    // ------------------------------------------------------------------ output beat
    logic [BYTE_SH-1:0] r;             // strip_len mod KEEP_W
    logic [ABS_W-1:0]   q;             // strip_len div KEEP_W
    logic [POS_W-1:0]   ob_pos;        // output byte offset of beat ob
    logic [POS_W-1:0]   flen, avail_out, total_out;
    logic               is_last, need_ok, emit, trunc;
    logic [ABS_W-1:0]   need_beat;
    logic [DATA_W-1:0]  beat_pre, beat_lo, beat_hi, shifted, o_data;
    logic [2*DATA_W-1:0] funnel;
    logic [KEEP_W-1:0]  o_keep;
    logic               o_valid, o_last, o_user, o_ready;
    logic               frame_done;     // the output frame leaves the engine this cycle
    logic               capture_hold;   // compute the last beat now, send it at eof

    assign o_ready = !m_axis_tvalid || m_axis_tready;

    always_comb begin
        r      = strip_len[BYTE_SH-1:0];
        q      = ABS_W'(strip_len >> BYTE_SH);
        ob_pos = POS_W'(ob) << BYTE_SH;
        flen   = ((POS_W'(nbeats) - 1'b1) << BYTE_SH) + POS_W'(last_len);
        // Bytes the kept prefix and shifted rest can supply.
        avail_out = (flen > POS_W'(strip_len)) ? flen - POS_W'(strip_len) : '0;
        if (lenv && (!eof || POS_W'(out_len) <= avail_out)) total_out = POS_W'(out_len);
        else if (eof) total_out = avail_out;
        else total_out = '1;
        trunc   = eof && lenv && (avail_out < POS_W'(out_len));
        is_last = (ob_pos + POS_W'(KEEP_W) >= total_out);
        // Highest input beat this output beat reads.
        if (ob_pos + POS_W'(KEEP_W) <= POS_W'(keep_len))
            need_beat = ob;
        else
            need_beat = ob + q + ABS_W'(r != '0);
        need_ok = eof || (need_beat < written);

        beat_pre = beat_at(ob);
        beat_lo  = beat_at(ob + q);
        beat_hi  = beat_at(ob + q + 1'b1);
        funnel   = {beat_hi, beat_lo};
        shifted  = funnel[DATA_W-1 + 8*r -: DATA_W];
        for (int b = 0; b < KEEP_W; b++) begin
            logic [POS_W-1:0] o;
            o = ob_pos + POS_W'(b);
            o_data[8*b +: 8] = (o < POS_W'(keep_len)) ? beat_pre[8*b +: 8] : shifted[8*b +: 8];
            for (int p = 0; p < PATCHES; p++)
                if (pen[p] && o == POS_W'(ppos[8*p +: 8])) o_data[8*b +: 8] = pval[8*p +: 8];
            o_keep[b] = (o < total_out);
            if (!o_keep[b]) o_data[8*b +: 8] = 8'h00;
        end

        // Decide what leaves this cycle.
        o_valid = 1'b0; o_last = 1'b0; o_user = 1'b0;
        frame_done = 1'b0; capture_hold = 1'b0;
        emit = 1'b0;
        if (exists && dv) begin
            if (drop) begin
                frame_done = eof;
            end else if (hold_v) begin
                if (eof) begin
                    o_valid = 1'b1; o_last = 1'b1; o_user = bad;
                    o_data = hold_data; o_keep = hold_keep;
                    frame_done = o_ready;
                end
            end else if (need_ok) begin
                if (!is_last) begin
                    o_valid = 1'b1;
                    emit = o_ready;
                end else if (eof) begin
                    o_valid = 1'b1; o_last = 1'b1; o_user = bad || trunc;
                    frame_done = o_ready;
                end else begin
                    // Last beat of an OUT_LEN-cut frame whose padding is still arriving:
                    // keep it aside so the padding beats need no buffer space.
                    capture_hold = 1'b1;
                end
            end
        end
    end

    // ------------------------------------------------------------------ buffer accounting
    logic [FR_AW:0]  in_seq_n, out_seq_n;
    logic [ABS_W-1:0] wr_abs_n, oldest_abs_n, occ_n;
    logic             in_first_n;
    logic [ABS_W-1:0] ob_n, oldest_n;
    logic             hold_v_n;

    always_comb begin
        wr_abs_n   = wr_abs + ABS_W'(s_hs);
        in_first_n = s_hs ? s_axis_tlast : in_first;
        in_seq_n   = in_seq + (FR_AW+1)'(s_hs && s_axis_tlast);
        out_seq_n  = out_seq + (FR_AW+1)'(frame_done);
        ob_n = ob; oldest_n = oldest; hold_v_n = hold_v;
        if (frame_done) begin
            ob_n = '0; oldest_n = '0; hold_v_n = 1'b0;
        end else if (emit) begin
            ob_n = ob + 1'b1;
            oldest_n = (((POS_W'(ob) + 1'b1) << BYTE_SH) < POS_W'(keep_len)) ? ob + 1'b1 : ob + 1'b1 + q;
        end else if (capture_hold) begin
            hold_v_n = 1'b1;
        end
        // Oldest beat still needed, in absolute numbers.
        if (out_seq_n == in_seq_n && in_first_n) begin
            oldest_abs_n = wr_abs_n;                       // nothing in flight
        end else if (frame_done) begin
            oldest_abs_n = (out_seq_n == in_seq) ? (in_first ? wr_abs : fr_base[in_idx])
                                                 : fr_base[out_seq_n[FR_AW-1:0]];
        end else if ((exists && dv && drop) || hold_v_n) begin
            oldest_abs_n = base + written;                 // dropped or held: none of it needed
        end else begin
            oldest_abs_n = base + ((oldest_n < written) ? oldest_n : written);
        end
        occ_n = wr_abs_n - oldest_abs_n;
        if (occ_n[ABS_W-1]) occ_n = '0;                    // needed beats not yet arrived
    end

    always_ff @(posedge clk) begin
        if (s_hs) begin
            buf_data[wr_abs[BUF_AW-1:0]] <= s_axis_tdata;
            if (in_first) begin
                fr_base[in_idx] <= wr_abs;
                fr_dv[in_idx]   <= 1'b0;
            end
            if (desc_valid) begin
                fr_dv[in_idx]    <= 1'b1;
                fr_drop[in_idx]  <= desc_drop;
                fr_keep[in_idx]  <= desc_keep_len;
                fr_strip[in_idx] <= desc_strip_len;
                fr_lenv[in_idx]  <= desc_len_valid;
                fr_len[in_idx]   <= desc_out_len;
                fr_pen[in_idx]   <= desc_patch_en;
                fr_ppos[in_idx]  <= desc_patch_pos;
                fr_pval[in_idx]  <= desc_patch_val;
            end
            if (s_axis_tlast) begin
                fr_end[in_idx]      <= wr_abs;
                fr_last_len[in_idx] <= live_len;
                fr_bad[in_idx]      <= eof_bad || s_axis_tuser;
            end
        end
        if (capture_hold) begin
            hold_data <= o_data;
            hold_keep <= o_keep;
        end
        if (o_valid && o_ready) begin
            m_axis_tdata <= o_data;
            m_axis_tkeep <= o_keep;
            m_axis_tlast <= o_last;
            m_axis_tuser <= o_user;
        end

        wr_abs   <= wr_abs_n;
        in_first <= in_first_n;
        in_seq   <= in_seq_n;
        out_seq  <= out_seq_n;
        ob       <= ob_n;
        oldest   <= oldest_n;
        hold_v   <= hold_v_n;
        if (o_ready) m_axis_tvalid <= o_valid;
        // Registered ready: room for one more beat, and a record for a new frame.
        s_axis_tready <= (occ_n < ABS_W'(BUF_BEATS)) &&
                         (!in_first_n || (in_seq_n - out_seq_n) < (FR_AW+1)'(FRAMES));

        if (rst) begin
            wr_abs        <= '0;
            in_first      <= 1'b1;
            in_seq        <= '0;
            out_seq       <= '0;
            ob            <= '0;
            oldest        <= '0;
            hold_v        <= 1'b0;
            m_axis_tvalid <= 1'b0;
            s_axis_tready <= 1'b0;
        end
    end

endmodule

`default_nettype wire

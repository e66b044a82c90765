// SPDX-License-Identifier: Apache-2.0
//
// axis_monitor — AXI4-Stream protocol checker.
//
// *** SIMULATION ONLY. Not part of synthesis: rtl/sim/ is left out of wirespeed.paths
// *** .rtl_sources(), of scripts/synth/ and of the datapath lint; it is attached to the design
// *** by `bind` (rtl/sim/monitors.sv), never instantiated by RTL.
//
// Watches one stream (all ports are inputs) and checks, at every rising clock edge outside
// reset, the rules below. A violation prints `$error` with the monitor's NAME, its instance
// path, the cycle number and the rule, then calls `$fatal`, so a Verilator harness exits
// non-zero and a cocotb test fails.
//
//   AXIS-VALID   once tvalid is high while tready is low, tvalid stays high the next cycle
//                (a beat offered is not withdrawn before its handshake)
//   AXIS-STABLE  ... and tdata, tkeep, tlast and tuser keep their values the next cycle
//   AXIS-KEEP    (STRICT_KEEP = 1, on every tvalid cycle) tkeep is all ones on a beat
//                without tlast; with tlast it is contiguous from bit 0 with at least one
//                byte (0b0..01..1)
//   AXIS-X       (4-state simulators; Verilator is 2-state) no X/Z on tvalid, nor on
//                tready/tlast/tkeep/tuser while tvalid is high
//   AXIS-TLAST   (MAX_BEATS > 0) a frame has at most MAX_BEATS beats: a frame that never
//                sees tlast is flagged when its beat MAX_BEATS + 1 is accepted
//
// Bookkeeping, for test benches (readable through the simulator's hierarchy): `beats`
// (handshakes), `frames` (handshakes with tlast), `stall_cycles` (tvalid && !tready),
// `frame_beats` (beats of the frame in progress) and `in_frame`. +define+WS_AXIS_MONITOR_NO_COUNTS
// (sim/build.sh: the C++ harnesses read none of them) leaves `beats`, `stall_cycles` and
// `in_frame` at 0; the rules and messages are the same.

`default_nettype none

module axis_monitor #(
    // Width of tdata in bits (a multiple of 8).
    parameter int DATA_W = 64,
    // Width of tkeep in bits (one bit per byte of tdata).
    parameter int KEEP_W = DATA_W / 8,
    // Width of tuser in bits; side-band signals that must be stable with the beat (e.g. a
    // per-frame VNI) may be concatenated into it.
    parameter int USER_W = 1,
    // Name printed in every message (e.g. "gre_decap.m_axis").
    parameter string NAME = "axis",
    // 1: tkeep all ones on non-last beats, contiguous from bit 0 with >= 1 byte on the last.
    // 0: tkeep is not checked (an input port facing hostile traffic may carry holes).
    parameter bit STRICT_KEEP = 1'b1,
    // Largest legal frame in beats; 0 disables the bound.
    parameter int MAX_BEATS = 0
) (
    input  wire logic              clk,
    input  wire logic              rst,
    input  wire logic [DATA_W-1:0] tdata,
    input  wire logic [KEEP_W-1:0] tkeep,
    input  wire logic              tvalid,
    input  wire logic              tready,
    input  wire logic              tlast,
    input  wire logic [USER_W-1:0] tuser
);

    // ------------------------------------------------------------------------------------
    // Elaboration-time parameter checks
    // ------------------------------------------------------------------------------------
    if (DATA_W < 8 || DATA_W % 8 != 0) begin : g_err_data_w
        $error("axis_monitor %s: DATA_W (%0d) must be a positive multiple of 8", NAME, DATA_W);
    end
    if (KEEP_W * 8 != DATA_W) begin : g_err_keep_w
        $error("axis_monitor %s: KEEP_W (%0d) must be DATA_W/8", NAME, KEEP_W);
    end
    if (USER_W < 1) begin : g_err_user_w
        $error("axis_monitor %s: USER_W (%0d) must be at least 1", NAME, USER_W);
    end
    if (MAX_BEATS < 0) begin : g_err_max_beats
        $error("axis_monitor %s: MAX_BEATS (%0d) must be >= 0", NAME, MAX_BEATS);
    end

    // ------------------------------------------------------------------------------------
    // State of the previous cycle
    // ------------------------------------------------------------------------------------
    logic              prev_stall;      // tvalid && !tready at the previous edge
    logic [DATA_W-1:0] prev_tdata;
    logic [KEEP_W-1:0] prev_tkeep;
    logic              prev_tlast;
    logic [USER_W-1:0] prev_tuser;

    // Bookkeeping (64-bit: never wraps in any simulation). Read by test benches only, hence
    // the lint waiver.
    logic [63:0] cycle;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [63:0] beats;
    logic [63:0] frames;
    logic [63:0] stall_cycles;
    logic [31:0] frame_beats;
    logic        in_frame;
    /* verilator lint_on UNUSEDSIGNAL */

    // ------------------------------------------------------------------------------------
    // Rules, checked at the clock edge on the current cycle's signals
    // ------------------------------------------------------------------------------------
    // Simulation speed: every check sits inside the branch that can fire it, and the beat is
    // kept only while it is stalled (the only cycle after which it is compared), so a verilated
    // monitor costs a few tests per cycle instead of wide copies and compares (sim/README.md).
    // tkeep contiguous from bit 0 with at least one byte (tkeep + 1 a power of two, tkeep != 0)
    // on the last beat, all ones otherwise.
    function automatic logic keep_ok(input logic [KEEP_W-1:0] k, input logic last);
        keep_ok = last ? (k != '0) && ((k & (k + KEEP_W'(1))) == '0) : (k == '1);
    endfunction

    // Unknown values; constant 0 in a 2-state simulator.
    logic viol_x;
    always_comb begin
        viol_x = $isunknown(tvalid) ||
                 (tvalid === 1'b1 && $isunknown({tready, tlast, tkeep, tuser}));
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            prev_stall   <= 1'b0;
            cycle        <= '0;
            beats        <= '0;
            frames       <= '0;
            stall_cycles <= '0;
            frame_beats  <= '0;
            in_frame     <= 1'b0;
        end else begin
            cycle <= cycle + 64'd1;

            if (viol_x) begin
                $error("%s (%m): cycle %0d: AXIS-X: X/Z on tvalid, or on tready/tlast/tkeep/tuser of a valid beat",
                       NAME, cycle);
                $fatal(1, "%s: AXI4-Stream protocol violation (AXIS-X)", NAME);
            end
            if (prev_stall) begin
                if (!tvalid) begin
                    $error("%s (%m): cycle %0d: AXIS-VALID: tvalid withdrawn before the handshake (tvalid was 1 with tready 0 in the previous cycle)",
                           NAME, cycle);
                    $fatal(1, "%s: AXI4-Stream protocol violation (AXIS-VALID)", NAME);
                end else if (tdata != prev_tdata || tkeep != prev_tkeep ||
                             tlast != prev_tlast || tuser != prev_tuser) begin
                    $error("%s (%m): cycle %0d: AXIS-STABLE: tdata/tkeep/tlast/tuser changed while stalled (tkeep %h -> %h, tlast %0d -> %0d, tuser %h -> %h, tdata %0s)",
                           NAME, cycle, prev_tkeep, tkeep, prev_tlast, tlast, prev_tuser, tuser,
                           tdata == prev_tdata ? "same" : "changed");
                    $fatal(1, "%s: AXI4-Stream protocol violation (AXIS-STABLE)", NAME);
                end
            end
            if (tvalid) begin
                if (STRICT_KEEP && !keep_ok(tkeep, tlast)) begin
                    $error("%s (%m): cycle %0d: AXIS-KEEP: tkeep %h %s (tlast %0d)", NAME, cycle, tkeep,
                           tlast ? "on the last beat is not contiguous from bit 0 with >= 1 byte"
                                 : "on a beat without tlast is not all ones", tlast);
                    $fatal(1, "%s: AXI4-Stream protocol violation (AXIS-KEEP)", NAME);
                end
                if (tready) begin
                    if ((MAX_BEATS > 0) && !tlast && (frame_beats >= 32'(MAX_BEATS))) begin
                        $error("%s (%m): cycle %0d: AXIS-TLAST: frame %0d has %0d beats without tlast (MAX_BEATS %0d)",
                               NAME, cycle, frames, frame_beats + 32'd1, MAX_BEATS);
                        $fatal(1, "%s: AXI4-Stream protocol violation (AXIS-TLAST)", NAME);
                    end
`ifndef WS_AXIS_MONITOR_NO_COUNTS
                    beats <= beats + 64'd1;
`endif
                    if (tlast) begin
                        frames      <= frames + 64'd1;
                        frame_beats <= '0;
`ifndef WS_AXIS_MONITOR_NO_COUNTS
                        in_frame    <= 1'b0;
`endif
                    end else begin
                        frame_beats <= frame_beats + 32'd1;
`ifndef WS_AXIS_MONITOR_NO_COUNTS
                        in_frame    <= 1'b1;
`endif
                    end
                end else begin
`ifndef WS_AXIS_MONITOR_NO_COUNTS
                    stall_cycles <= stall_cycles + 64'd1;
`endif
                end
            end
            prev_stall <= tvalid && !tready;
        end
        // The beat of a stalled cycle, compared with the next one (the only use of it).
        if (tvalid && !tready) begin
            prev_tdata <= tdata;
            prev_tkeep <= tkeep;
            prev_tlast <= tlast;
            prev_tuser <= tuser;
        end
    end

endmodule

`default_nettype wire

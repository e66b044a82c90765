// SPDX-License-Identifier: Apache-2.0
//
// pipe_reg — one optional pipeline cut: a register when EN = 1, a wire when EN = 0.
//
// Parsers are written as a chain of combinational stages joined by pipe_reg instances, so a
// build chooses where the chain is cut (and how many cycles of latency it pays) with a
// parameter instead of a second copy of the logic. The lowest RST_BITS bits of the word are
// control state (valid strobes) and are cleared by reset; the rest is data and is not reset.
//
//        d ──►[ EN ? flip-flop : wire ]──► q

`default_nettype none

module pipe_reg #(
    // Width of the word carried across the cut.
    parameter int W = 1,
    // 1: a register (one cycle of latency); 0: a wire.
    parameter bit EN = 1'b1,
    // Number of low bits cleared by rst (0..W).
    parameter int RST_BITS = 0
) (
    input  wire logic         clk,
    input  wire logic         rst,
    input  wire logic [W-1:0] d,
    output      logic [W-1:0] q
);

    if (W < 1) begin : g_param_check_1
        $error("pipe_reg: W must be at least 1");
    end
    if (RST_BITS < 0 || RST_BITS > W) begin : g_param_check_2
        $error("pipe_reg: RST_BITS must be 0..W");
    end

    if (EN && RST_BITS > 0) begin : g_reg_rst
        always_ff @(posedge clk) begin
            q <= d;
            if (rst) q[RST_BITS-1:0] <= '0;
        end
    end else if (EN) begin : g_reg
        always_ff @(posedge clk) begin
            q <= d;
        end
        logic unused_rst;
        assign unused_rst = rst;
    end else begin : g_wire
        assign q = d;
        logic unused_clk;
        assign unused_clk = ^{clk, rst};
    end

endmodule

`default_nettype wire

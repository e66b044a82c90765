// SPDX-License-Identifier: Apache-2.0
//
// stream_pkg — small pure functions shared by the generic AXI4-Stream blocks.

`default_nettype none

package stream_pkg;

    // Bytes in a beat whose tkeep is contiguous from bit 0 (the wirespeed stream contract):
    // the index of the highest set bit plus one, 0 when no bit is set. Up to 64 tkeep bits;
    // narrower buses pass their tkeep zero-extended and synthesis drops the constant half.
    // A balanced tree of (any bit set, bytes up to the highest set bit) pairs: log2(64) = 6
    // levels of 2:1 selection instead of a 64-deep priority chain, which was the critical
    // path of the blocks that size a frame at its last beat (docs/performance.md). Leaf b
    // holds b + 1 when its bit is set and 0 when not, so the root is the answer as it stands
    // (0 when no bit is set: the selection then falls through to leaf 0): no adder after it.
    function automatic logic [6:0] keep_bytes(input logic [63:0] keep);
        logic       any [128];
        logic [6:0] num [128];
        // Node n has children 2n and 2n+1; leaves 64..127 are the tkeep bits.
        for (int b = 0; b < 64; b++) begin
            any[64 + b] = keep[b];
            num[64 + b] = keep[b] ? 7'(b + 1) : 7'd0;
        end
        for (int n = 63; n >= 1; n--) begin
            any[n] = any[2*n] || any[2*n + 1];
            num[n] = any[2*n + 1] ? num[2*n + 1] : num[2*n];
        end
        any[0] = 1'b0;
        num[0] = '0;
        return num[1];
    endfunction

endpackage

`default_nettype wire

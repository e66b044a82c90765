// SPDX-License-Identifier: Apache-2.0
//
// parse_pkg — small pure functions shared by the header parsers: one's-complement arithmetic,
// VLAN TPIDs, and the RFC 6040 decapsulation rule for ECN.

`default_nettype none

package parse_pkg;

    // Fold a sum of 16-bit words into a 16-bit one's-complement sum (end-around carry).
    function automatic logic [15:0] oc_fold(input logic [31:0] x);
        logic [31:0] y;
        y = {16'h0, x[15:0]} + {16'h0, x[31:16]};
        y = {16'h0, y[15:0]} + {16'h0, y[31:16]};
        oc_fold = y[15:0];
    endfunction

    // oc_fold(x) == 16'hFFFF (a header checksum that verifies) for a sum x of at most 32
    // words (x < 2^21), without the fold's two additions: with x = hi * 2^16 + lo, hi < 32,
    // lo + hi cannot carry into a second fold, so the fold is FFFF exactly when
    // lo == FFFF - hi = {11 ones, ~hi}. Comparisons only, no carry chain.
    function automatic logic oc_sum_is_ones(input logic [31:0] x);
        oc_sum_is_ones = x[31:21] == '0 && x[15:5] == 11'h7FF && x[4:0] == ~x[20:16];
    endfunction

    // Sum of up to 64 16-bit words as a balanced tree of adders (depth 6), not a chain:
    // a loop `sum = sum + w[i]` becomes 63 adders in series, the deepest path of a parser.
    // Unused (zero) words cost nothing after constant propagation.
    function automatic logic [31:0] word_sum(input logic [63:0][15:0] w);
        logic [31:0] t [64];
        for (int i = 0; i < 64; i++) t[i] = {16'h0, w[i]};
        for (int s = 1; s < 64; s = 2 * s)
            for (int i = 0; i + s < 64; i = i + 2 * s) t[i] = t[i] + t[i + s];
        word_sum = t[0];
    endfunction

    // 802.1Q and 802.1ad tag protocol identifiers.
    function automatic logic is_tpid(input logic [15:0] t);
        is_tpid = t == 16'h8100 || t == 16'h88A8;
    endfunction

    // RFC 6040 decapsulation: the inner ECN after combining with the outer one.
    // Codepoints: Not-ECT 00, ECT(1) 01, ECT(0) 10, CE 11.
    function automatic logic [1:0] ecn_combine(input logic [1:0] outer, input logic [1:0] inner);
        if (outer == 2'b11) ecn_combine = 2'b11;
        else if (outer == 2'b01 && inner == 2'b10) ecn_combine = 2'b01;
        else ecn_combine = inner;
    endfunction

    // RFC 6040: outer CE over an inner Not-ECT packet must be dropped.
    function automatic logic ecn_drop(input logic [1:0] outer, input logic [1:0] inner);
        ecn_drop = outer == 2'b11 && inner == 2'b00;
    endfunction

    // RFC 1624 eqn. 3: checksum after one 16-bit word changes from m to m_new.
    function automatic logic [15:0] csum_update(input logic [15:0] hc, input logic [15:0] m,
                                                input logic [15:0] m_new);
        csum_update = ~oc_fold({16'h0, ~hc} + {16'h0, ~m} + {16'h0, m_new});
    endfunction

    // One byte into a reflected CRC-32C (Castagnoli, polynomial 0x1EDC6F41, reflected 0x82F63B78).
    // Start from 32'hFFFFFFFF and invert the result for the standard (iSCSI) CRC-32C.
    function automatic logic [31:0] crc32c_byte(input logic [31:0] crc, input logic [7:0] data);
        logic [31:0] c;
        c = crc ^ {24'h0, data};
        for (int i = 0; i < 8; i++)
            c = (c >> 1) ^ (c[0] ? 32'h82F63B78 : 32'h0);
        crc32c_byte = c;
    endfunction

endpackage

`default_nettype wire

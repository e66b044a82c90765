// SPDX-License-Identifier: Apache-2.0
//
// l2_parse — the Ethernet header and up to two VLAN tags at the start of a header window, and
// the 60 bytes after them (an outer IP header with options), for the tunnel parsers.
//
//   0      6      12     14     16     18     20     22
//   | dst  | src  | TPID | TCI  | TPID | TCI  | type |      TPID = 0x8100 or 0x88A8
//
// `l2` is the offset of the EtherType's payload (14, 18 or 22) and `et` the EtherType. While the
// window does not yet hold the bytes that decide them, `wait_more` is set; a third tag (not
// parsed: the frame is treated as not a tunnel) sets `too_many_tags`.

`default_nettype none

module l2_parse
    import parse_pkg::*;
#(
    // Bytes of the header window (at least 82: 22 of L2 and 60 of IP header).
    parameter int HDR_BYTES = 128,
    // Width of byte counts.
    parameter int POS_W = 24
) (
    input  wire logic [7:0]       view [HDR_BYTES],
    input  wire logic [POS_W-1:0] have,            // bytes of the frame in the window so far

    output      logic [6:0]       l2,
    output      logic [15:0]      et,
    output      logic             wait_more,
    output      logic             too_many_tags,
    output      logic [7:0]       iph [60]
);

    if (HDR_BYTES < 82) begin : g_param_check_1
        $error("l2_parse: HDR_BYTES must be at least 82");
    end

    always_comb begin
        l2 = 7'd14; et = {view[12], view[13]}; wait_more = 1'b0; too_many_tags = 1'b0;
        if (have < 14) begin
            wait_more = 1'b1;
        end else if (is_tpid(et)) begin
            if (have < 18) begin
                wait_more = 1'b1;
            end else begin
                l2 = 7'd18; et = {view[16], view[17]};
                if (is_tpid(et)) begin
                    if (have < 22) begin
                        wait_more = 1'b1;
                    end else begin
                        l2 = 7'd22; et = {view[20], view[21]};
                        too_many_tags = is_tpid(et);
                    end
                end
            end
        end
        // L2 is one of three lengths: three fixed slices, not a 128-way byte mux per byte.
        for (int i = 0; i < 60; i++)
            iph[i] = (l2 == 7'd14) ? view[14 + i] : (l2 == 7'd18) ? view[18 + i] : view[22 + i];
    end

endmodule

`default_nettype wire

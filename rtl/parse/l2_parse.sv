// SPDX-License-Identifier: Apache-2.0
//
// l2_parse — the Ethernet header and up to two VLAN tags at the start of a header window, and
// the 60 bytes after them (an outer IP header with options), for the tunnel parsers.
//
//   0      6      12     14     16     18     20     22
//   | dst  | src  | TPID | TCI  | TPID | TCI  | type |      TPID = 0x8100 or 0x88A8
//
// `l2` is the offset of the EtherType's payload (14, 18 or 22) and `et` the EtherType. While the
// window does not yet hold the bytes that decide them, `wait_more` is set (and l2, et and iph
// mean nothing); a third tag (not parsed: the frame is treated as not a tunnel) sets
// `too_many_tags`.

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

    // L2 and the EtherType come from the TPID tests alone; `have` only says whether the bytes
    // they read are in yet (wait_more), so the byte counts stay off the path to l2 and iph.
    // While wait_more is set, l2 and et may be read from bytes not yet in the window.
    logic tag1, tag2, tag3;
    always_comb begin
        tag1 = is_tpid({view[12], view[13]});
        tag2 = is_tpid({view[16], view[17]});
        tag3 = is_tpid({view[20], view[21]});
        if (!tag1) begin
            l2 = 7'd14; et = {view[12], view[13]};
        end else if (!tag2) begin
            l2 = 7'd18; et = {view[16], view[17]};
        end else begin
            l2 = 7'd22; et = {view[20], view[21]};
        end
        wait_more = (have < 14) || (tag1 && have < 18) || (tag1 && tag2 && have < 22);
        too_many_tags = tag1 && tag2 && tag3 && have >= 22;
        // L2 is one of three lengths: three fixed slices, not a 128-way byte mux per byte.
        for (int i = 0; i < 60; i++)
            iph[i] = !tag1 ? view[14 + i] : !tag2 ? view[18 + i] : view[22 + i];
    end

endmodule

`default_nettype wire

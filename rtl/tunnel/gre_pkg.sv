// SPDX-License-Identifier: Apache-2.0
//
// gre_pkg — outcome codes of the GRE decapsulation block (docs/gre_decap.md, "Outcomes").
// The counter index of an outcome is its code.

`default_nettype none

package gre_pkg;

    typedef enum logic [3:0] {
        OUT_PASS             = 4'd0,   // not GRE: forwarded unchanged
        OUT_PUNT             = 4'd1,   // GRE with a protocol not decapsulated: forwarded unchanged
        OUT_DECAP_L3         = 4'd2,   // IPv4/IPv6 payload: outer L2 kept, IP+GRE removed
        OUT_DECAP_TEB        = 4'd3,   // Ethernet payload (0x6558): inner frame out
        OUT_DROP_TRUNCATED   = 4'd4,
        OUT_DROP_IP_HEADER   = 4'd5,
        OUT_DROP_IP_CHECKSUM = 4'd6,
        OUT_DROP_FRAGMENT    = 4'd7,
        OUT_DROP_GRE_HEADER  = 4'd8,
        OUT_DROP_GRE_CHECKSUM= 4'd9,
        OUT_DROP_NOT_ALLOWED = 4'd10,
        OUT_DROP_ECN         = 4'd11,
        OUT_DROP_RX_ERROR    = 4'd12,
        OUT_DROP_POLICY      = 4'd13
    } outcome_e;

endpackage

`default_nettype wire

// SPDX-License-Identifier: Apache-2.0
//
// monitors.sv — attaches an axis_monitor (rtl/sim/axis_monitor.sv) to every AXI4-Stream of
// the design, by module type, with SystemVerilog `bind`: no datapath file is edited and every
// instance of a bound module, at any depth and parameterisation, gets its monitors.
//
// *** SIMULATION ONLY. Not part of synthesis (scripts/synth/ and the datapath lint skip
// *** rtl/sim/). Compiled into every simulation build: sim/build.sh (ws_sim, ws_vtep) and
// *** tb/common/runner.py (cocotb). A bind to a module type absent from a build is ignored.
//
// tkeep rule: a port that faces the outside world on a top-level input (s_axis of gre_decap,
// vxlan_decap, vxlan_encap, vtep_top, and of the modules that sit directly behind those inputs:
// axis_keep_check, axis_edit, axis_frame_fifo) may carry tkeep holes from
// hostile traffic, so it is monitored with STRICT_KEEP = 0 (handshake, stability and tlast
// rules only); so is the tkeep-agnostic register slice axis_skid (see below). Every other
// stream, all outputs and internal streams, gets STRICT_KEEP = 1.
//
// Frame bound (AXIS-TLAST): MAX_BEATS = `WS_AXIS_MAX_FRAME_BYTES / bytes per beat; 1 MiB by
// default (the harnesses' own limit for an output frame), overridable with
// +define+WS_AXIS_MAX_FRAME_BYTES=N. +define+WS_AXIS_MONITORS_OFF leaves every monitor out
// (for a test that drives an illegal handshake on purpose).
//
// Instance names: mon_<port> inside the bound module (e.g. vtep_top.mon_m_host_axis,
// gre_decap.shell.edit.mon_m_axis); their beats/frames/stall_cycles counters are readable.

`ifndef WS_AXIS_MONITORS_OFF

`ifndef WS_AXIS_MAX_FRAME_BYTES
`define WS_AXIS_MAX_FRAME_BYTES 1048576
`endif

// ---- rtl/stream ------------------------------------------------------------------------

// Register slice: tkeep-agnostic (it carries whatever its user puts in tkeep: tb/axis_skid
// drives arbitrary tkeep), so only the handshake, stability and tlast rules apply by default.
// Its AXI4-Stream uses in the design are checked with STRICT_KEEP = 1 at the ports of the
// blocks around it (axis_keep_check.m_axis, gre_decap's). Its packed-beat core reg_slice has
// no monitor: avst_to_axis uses it on an Avalon-ST input, whose valid may fall before a
// transfer. +define+WS_AXIS_SKID_STRICT_KEEP=1 makes both sides strict (the monitor's own
// test, tb/axis_monitor).
`ifndef WS_AXIS_SKID_STRICT_KEEP
`define WS_AXIS_SKID_STRICT_KEEP 0
`endif
bind axis_skid axis_monitor #(
    .DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(USER_W),
    .NAME("axis_skid.s_axis"), .STRICT_KEEP(1'(`WS_AXIS_SKID_STRICT_KEEP)),
    .MAX_BEATS(`WS_AXIS_MAX_FRAME_BYTES / (KEEP_W))
) mon_s_axis (
    .clk(clk), .rst(rst),
    .tdata(s_axis_tdata), .tkeep(s_axis_tkeep), .tvalid(s_axis_tvalid), .tready(s_axis_tready),
    .tlast(s_axis_tlast), .tuser(s_axis_tuser)
);

bind axis_skid axis_monitor #(
    .DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(USER_W),
    .NAME("axis_skid.m_axis"), .STRICT_KEEP(1'(`WS_AXIS_SKID_STRICT_KEEP)),
    .MAX_BEATS(`WS_AXIS_MAX_FRAME_BYTES / (KEEP_W))
) mon_m_axis (
    .clk(clk), .rst(rst),
    .tdata(m_axis_tdata), .tkeep(m_axis_tkeep), .tvalid(m_axis_tvalid), .tready(m_axis_tready),
    .tlast(m_axis_tlast), .tuser(m_axis_tuser)
);

// tkeep guard: its input is a top-level input (holes allowed), its output has none. Its
// CREDIT build hands every beat on (m_axis_tready is a credit a cycle ahead): the monitor sees
// each valid beat as taken.
bind axis_keep_check axis_monitor #(
    .DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1),
    .NAME("axis_keep_check.s_axis"), .STRICT_KEEP(1'b0),
    .MAX_BEATS(`WS_AXIS_MAX_FRAME_BYTES / (KEEP_W))
) mon_s_axis (
    .clk(clk), .rst(rst),
    .tdata(s_axis_tdata), .tkeep(s_axis_tkeep), .tvalid(s_axis_tvalid), .tready(s_axis_tready),
    .tlast(s_axis_tlast), .tuser(s_axis_tuser)
);

bind axis_keep_check axis_monitor #(
    .DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1),
    .NAME("axis_keep_check.m_axis"), .STRICT_KEEP(1'b1),
    .MAX_BEATS(`WS_AXIS_MAX_FRAME_BYTES / (KEEP_W))
) mon_m_axis (
    .clk(clk), .rst(rst),
    .tdata(m_axis_tdata), .tkeep(m_axis_tkeep), .tvalid(m_axis_tvalid),
    .tready(m_axis_tready || CREDIT), .tlast(m_axis_tlast), .tuser(m_axis_tuser)
);

// Store-and-forward FIFO (vxlan_encap): input may be a top-level input.
bind axis_frame_fifo axis_monitor #(
    .DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1),
    .NAME("axis_frame_fifo.s_axis"), .STRICT_KEEP(1'b0),
    .MAX_BEATS(`WS_AXIS_MAX_FRAME_BYTES / (KEEP_W))
) mon_s_axis (
    .clk(clk), .rst(rst),
    .tdata(s_axis_tdata), .tkeep(s_axis_tkeep), .tvalid(s_axis_tvalid), .tready(s_axis_tready),
    .tlast(s_axis_tlast), .tuser(s_axis_tuser)
);

bind axis_frame_fifo axis_monitor #(
    .DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1),
    .NAME("axis_frame_fifo.m_axis"), .STRICT_KEEP(1'b1),
    .MAX_BEATS(`WS_AXIS_MAX_FRAME_BYTES / (KEEP_W))
) mon_m_axis (
    .clk(clk), .rst(rst),
    .tdata(m_axis_tdata), .tkeep(m_axis_tkeep), .tvalid(m_axis_tvalid), .tready(m_axis_tready),
    .tlast(m_axis_tlast), .tuser(m_axis_tuser)
);

// axis_edit (the pipelined edit engine): input as it comes from the keep check, output strict.
// With IN_SLACK every beat offered is taken (s_axis_tready is a credit a cycle ahead).
bind axis_edit axis_monitor #(
    .DATA_W(DATA_W), .KEEP_W(DATA_W / 8), .USER_W(1),
    .NAME("axis_edit.s_axis"), .STRICT_KEEP(1'b0),
    .MAX_BEATS(`WS_AXIS_MAX_FRAME_BYTES / (DATA_W / 8))
) mon_s_axis (
    .clk(clk), .rst(rst),
    .tdata(s_axis_tdata), .tkeep(s_axis_tkeep), .tvalid(s_axis_tvalid),
    .tready(s_axis_tready || IN_SLACK != 0), .tlast(s_axis_tlast), .tuser(s_axis_tuser)
);
bind axis_edit axis_monitor #(
    .DATA_W(DATA_W), .KEEP_W(DATA_W / 8), .USER_W(1),
    .NAME("axis_edit.m_axis"), .STRICT_KEEP(1'b1),
    .MAX_BEATS(`WS_AXIS_MAX_FRAME_BYTES / (DATA_W / 8))
) mon_m_axis (
    .clk(clk), .rst(rst),
    .tdata(m_axis_tdata), .tkeep(m_axis_tkeep), .tvalid(m_axis_tvalid), .tready(m_axis_tready),
    .tlast(m_axis_tlast), .tuser(m_axis_tuser)
);

// axis_frame_meter only observes vxlan_decap's/vxlan_encap's m_axis (monitored there).

// ---- rtl/tunnel: block ports --------------------------------------------------------------

bind gre_decap axis_monitor #(
    .DATA_W(DATA_W), .KEEP_W(DATA_W / 8), .USER_W(1),
    .NAME("gre_decap.s_axis"), .STRICT_KEEP(1'b0),
    .MAX_BEATS(`WS_AXIS_MAX_FRAME_BYTES / (DATA_W / 8))
) mon_s_axis (
    .clk(clk), .rst(rst),
    .tdata(s_axis_tdata), .tkeep(s_axis_tkeep), .tvalid(s_axis_tvalid), .tready(s_axis_tready),
    .tlast(s_axis_tlast), .tuser(s_axis_tuser)
);

bind gre_decap axis_monitor #(
    .DATA_W(DATA_W), .KEEP_W(DATA_W / 8), .USER_W(1),
    .NAME("gre_decap.m_axis"), .STRICT_KEEP(1'b1),
    .MAX_BEATS(`WS_AXIS_MAX_FRAME_BYTES / (DATA_W / 8))
) mon_m_axis (
    .clk(clk), .rst(rst),
    .tdata(m_axis_tdata), .tkeep(m_axis_tkeep), .tvalid(m_axis_tvalid), .tready(m_axis_tready),
    .tlast(m_axis_tlast), .tuser(m_axis_tuser)
);

bind vxlan_decap axis_monitor #(
    .DATA_W(DATA_W), .KEEP_W(DATA_W / 8), .USER_W(1),
    .NAME("vxlan_decap.s_axis"), .STRICT_KEEP(1'b0),
    .MAX_BEATS(`WS_AXIS_MAX_FRAME_BYTES / (DATA_W / 8))
) mon_s_axis (
    .clk(clk), .rst(rst),
    .tdata(s_axis_tdata), .tkeep(s_axis_tkeep), .tvalid(s_axis_tvalid), .tready(s_axis_tready),
    .tlast(s_axis_tlast), .tuser(s_axis_tuser)
);

// The VNI side band travels with the beat.
bind vxlan_decap axis_monitor #(
    .DATA_W(DATA_W), .KEEP_W(DATA_W / 8), .USER_W(26),
    .NAME("vxlan_decap.m_axis"), .STRICT_KEEP(1'b1),
    .MAX_BEATS(`WS_AXIS_MAX_FRAME_BYTES / (DATA_W / 8))
) mon_m_axis (
    .clk(clk), .rst(rst),
    .tdata(m_axis_tdata), .tkeep(m_axis_tkeep), .tvalid(m_axis_tvalid), .tready(m_axis_tready),
    .tlast(m_axis_tlast), .tuser({m_axis_tvni_valid, m_axis_tvni, m_axis_tuser})
);

bind vxlan_encap axis_monitor #(
    .DATA_W(DATA_W), .KEEP_W(DATA_W / 8), .USER_W(1),
    .NAME("vxlan_encap.s_axis"), .STRICT_KEEP(1'b0),
    .MAX_BEATS(`WS_AXIS_MAX_FRAME_BYTES / (DATA_W / 8))
) mon_s_axis (
    .clk(clk), .rst(rst),
    .tdata(s_axis_tdata), .tkeep(s_axis_tkeep), .tvalid(s_axis_tvalid), .tready(s_axis_tready),
    .tlast(s_axis_tlast), .tuser(s_axis_tuser)
);

bind vxlan_encap axis_monitor #(
    .DATA_W(DATA_W), .KEEP_W(DATA_W / 8), .USER_W(1),
    .NAME("vxlan_encap.m_axis"), .STRICT_KEEP(1'b1),
    .MAX_BEATS(`WS_AXIS_MAX_FRAME_BYTES / (DATA_W / 8))
) mon_m_axis (
    .clk(clk), .rst(rst),
    .tdata(m_axis_tdata), .tkeep(m_axis_tkeep), .tvalid(m_axis_tvalid), .tready(m_axis_tready),
    .tlast(m_axis_tlast), .tuser(m_axis_tuser)
);

bind vtep_top axis_monitor #(
    .DATA_W(DATA_W), .KEEP_W(DATA_W / 8), .USER_W(1),
    .NAME("vtep_top.s_net_axis"), .STRICT_KEEP(1'b0),
    .MAX_BEATS(`WS_AXIS_MAX_FRAME_BYTES / (DATA_W / 8))
) mon_s_net_axis (
    .clk(clk), .rst(rst),
    .tdata(s_net_axis_tdata), .tkeep(s_net_axis_tkeep), .tvalid(s_net_axis_tvalid), .tready(s_net_axis_tready),
    .tlast(s_net_axis_tlast), .tuser(s_net_axis_tuser)
);

bind vtep_top axis_monitor #(
    .DATA_W(DATA_W), .KEEP_W(DATA_W / 8), .USER_W(1),
    .NAME("vtep_top.m_net_axis"), .STRICT_KEEP(1'b1),
    .MAX_BEATS(`WS_AXIS_MAX_FRAME_BYTES / (DATA_W / 8))
) mon_m_net_axis (
    .clk(clk), .rst(rst),
    .tdata(m_net_axis_tdata), .tkeep(m_net_axis_tkeep), .tvalid(m_net_axis_tvalid), .tready(m_net_axis_tready),
    .tlast(m_net_axis_tlast), .tuser(m_net_axis_tuser)
);

bind vtep_top axis_monitor #(
    .DATA_W(DATA_W), .KEEP_W(DATA_W / 8), .USER_W(1),
    .NAME("vtep_top.s_host_axis"), .STRICT_KEEP(1'b0),
    .MAX_BEATS(`WS_AXIS_MAX_FRAME_BYTES / (DATA_W / 8))
) mon_s_host_axis (
    .clk(clk), .rst(rst),
    .tdata(s_host_axis_tdata), .tkeep(s_host_axis_tkeep), .tvalid(s_host_axis_tvalid), .tready(s_host_axis_tready),
    .tlast(s_host_axis_tlast), .tuser(s_host_axis_tuser)
);

bind vtep_top axis_monitor #(
    .DATA_W(DATA_W), .KEEP_W(DATA_W / 8), .USER_W(26),
    .NAME("vtep_top.m_host_axis"), .STRICT_KEEP(1'b1),
    .MAX_BEATS(`WS_AXIS_MAX_FRAME_BYTES / (DATA_W / 8))
) mon_m_host_axis (
    .clk(clk), .rst(rst),
    .tdata(m_host_axis_tdata), .tkeep(m_host_axis_tkeep), .tvalid(m_host_axis_tvalid), .tready(m_host_axis_tready),
    .tlast(m_host_axis_tlast), .tuser({m_host_axis_tvni_valid, m_host_axis_tvni, m_host_axis_tuser})
);

// ---- rtl/shell: the AXI4-Stream sides of the Avalon-ST adapters ------------------------------

bind avst_to_axis axis_monitor #(
    .DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1),
    .NAME("avst_to_axis.m_axis"), .STRICT_KEEP(1'b1),
    .MAX_BEATS(`WS_AXIS_MAX_FRAME_BYTES / (KEEP_W))
) mon_m_axis (
    .clk(clk), .rst(rst),
    .tdata(m_axis_tdata), .tkeep(m_axis_tkeep), .tvalid(m_axis_tvalid), .tready(m_axis_tready),
    .tlast(m_axis_tlast), .tuser(m_axis_tuser)
);

bind axis_to_avst axis_monitor #(
    .DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1),
    .NAME("axis_to_avst.s_axis"), .STRICT_KEEP(1'b1),
    .MAX_BEATS(`WS_AXIS_MAX_FRAME_BYTES / (KEEP_W))
) mon_s_axis (
    .clk(clk), .rst(rst),
    .tdata(s_axis_tdata), .tkeep(s_axis_tkeep), .tvalid(s_axis_tvalid), .tready(s_axis_tready),
    .tlast(s_axis_tlast), .tuser(s_axis_tuser)
);

`endif  // WS_AXIS_MONITORS_OFF

// SPDX-License-Identifier: Apache-2.0
//
// tb/pkt_gen: pkt_gen -> (every DROP_N-th frame dropped from index DROP_AT on; 0: none) ->
// DELAY register stages -> pkt_chk, with ts_ns a nanosecond-per-cycle counter. Simulation only.

`default_nettype none

module pkt_loop #(
    parameter int DATA_W = 512,
    parameter int DELAY = 3,       // register stages between the generator and the checker
    parameter int DROP_N = 0       // drop frames whose index mod DROP_N is DROP_N - 1
) (
    input  wire logic              clk,
    input  wire logic              rst,
    input  wire logic              en,
    input  wire logic              clear,        // the checker's counters
    input  wire logic [15:0]       cfg_len_min,
    input  wire logic [15:0]       cfg_len_max,
    input  wire logic [23:0]       cfg_rate,
    input  wire logic [15:0]       cfg_flows,
    input  wire logic [31:0]       cfg_count,
    output      logic [DATA_W-1:0] g_tdata,      // the generator's stream, for the bench
    output      logic [DATA_W/8-1:0] g_tkeep,
    output      logic              g_tvalid,
    output      logic              g_tlast,
    output      logic [31:0]       sent_frames,
    output      logic [63:0]       sent_bytes,
    output      logic [31:0]       frames,
    output      logic [63:0]       bytes,
    output      logic [31:0]       others,
    output      logic [31:0]       gaps,
    output      logic [31:0]       late,
    output      logic [63:0]       lat_min,
    output      logic [63:0]       lat_max,
    output      logic [63:0]       lat_sum
);
    localparam int KW = DATA_W / 8;
    logic [63:0] ts_q;
    always_ff @(posedge clk) ts_q <= rst ? '0 : ts_q + 1'b1;

    pkt_gen #(.DATA_W (DATA_W)) u_gen (
        .clk (clk), .rst (rst), .en (en), .cfg_len_min (cfg_len_min),
        .cfg_len_max (cfg_len_max), .cfg_rate (cfg_rate), .cfg_flows (cfg_flows),
        .cfg_count (cfg_count), .ts_ns (ts_q),
        .m_axis_tdata (g_tdata), .m_axis_tkeep (g_tkeep), .m_axis_tvalid (g_tvalid),
        .m_axis_tready (1'b1), .m_axis_tlast (g_tlast),
        .sent_frames (sent_frames), .sent_bytes (sent_bytes)
    );

    // drop every DROP_N-th frame whole
    logic [31:0] idx_q;
    logic        keep_v;
    always_ff @(posedge clk) begin
        if (rst || clear) idx_q <= '0;
        else if (g_tvalid && g_tlast) idx_q <= idx_q + 1'b1;
    end
    assign keep_v = DROP_N == 0 || (idx_q % DROP_N) != DROP_N - 1;

    logic [DELAY:0][DATA_W-1:0] d_data;
    logic [DELAY:0][KW-1:0]     d_keep;
    logic [DELAY:0]             d_v;
    logic [DELAY:0]             d_last;
    assign d_data[0] = g_tdata;
    assign d_keep[0] = g_tkeep;
    assign d_v[0]    = g_tvalid && keep_v;
    assign d_last[0] = g_tlast;
    for (genvar i = 0; i < DELAY; i++) begin : g_d
        always_ff @(posedge clk) begin
            d_v[i + 1]    <= rst ? 1'b0 : d_v[i];
            d_data[i + 1] <= d_data[i];
            d_keep[i + 1] <= d_keep[i];
            d_last[i + 1] <= d_last[i];
        end
    end

    logic chk_ready;
    pkt_chk #(.DATA_W (DATA_W)) u_chk (
        .clk (clk), .rst (rst), .clear (clear),
        .s_axis_tdata (d_data[DELAY]), .s_axis_tkeep (d_keep[DELAY]),
        .s_axis_tvalid (d_v[DELAY]), .s_axis_tready (chk_ready), .s_axis_tlast (d_last[DELAY]),
        .ts_ns (ts_q), .frames (frames), .bytes (bytes), .others (others), .gaps (gaps),
        .late (late), .lat_min (lat_min), .lat_max (lat_max), .lat_sum (lat_sum)
    );
    logic unused;
    assign unused = chk_ready;
endmodule

`default_nettype wire

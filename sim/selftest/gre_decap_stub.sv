// Stand-in `gre_decap` for the harness self-test only (never part of rtl/).
//
// It has the real block's ports but none of its parsing. Decision per frame, made on the first
// beat from byte 0 (the first destination-MAC byte):
//   byte0[0] = 1 (group address), or CONTROL bit 1 set  -> DROP_POLICY (13), nothing on m_axis
//   byte0 = 8'h02                                       -> DROP_GRE_CHECKSUM (9), frame is
//                                                          forwarded and aborted (tuser on last)
//   s_axis_tuser on the last beat                       -> DROP_RX_ERROR (12), aborted
//   anything else                                       -> PASS (0), forwarded unchanged
// Data path: one register stage; s_axis_tready = !out_valid || m_axis_tready (combinational on
// m_axis_tready, as AXI4-Stream allows). m_stat comes STAT_DELAY cycles after the last input beat,
// i.e. after the output frame has started. The AXI4-Lite slave answers each channel a cycle late.
// With `SELFTEST_BUG_COUNTERS` defined, PASS frames of odd length are not counted (so the
// harness's balance check must fail).
module gre_decap #(
    parameter int DATA_W = 64,
    parameter int ALLOW_ENTRIES = 64
) (
    input  logic                clk,
    input  logic                rst,
    input  logic [DATA_W-1:0]   s_axis_tdata,
    input  logic [DATA_W/8-1:0] s_axis_tkeep,
    input  logic                s_axis_tvalid,
    output logic                s_axis_tready,
    input  logic                s_axis_tlast,
    input  logic [0:0]          s_axis_tuser,
    output logic [DATA_W-1:0]   m_axis_tdata,
    output logic [DATA_W/8-1:0] m_axis_tkeep,
    output logic                m_axis_tvalid,
    input  logic                m_axis_tready,
    output logic                m_axis_tlast,
    output logic [0:0]          m_axis_tuser,
    input  logic [15:0]         s_axil_awaddr,
    input  logic [2:0]          s_axil_awprot,
    input  logic                s_axil_awvalid,
    output logic                s_axil_awready,
    input  logic [31:0]         s_axil_wdata,
    input  logic [3:0]          s_axil_wstrb,
    input  logic                s_axil_wvalid,
    output logic                s_axil_wready,
    output logic [1:0]          s_axil_bresp,
    output logic                s_axil_bvalid,
    input  logic                s_axil_bready,
    input  logic [15:0]         s_axil_araddr,
    input  logic [2:0]          s_axil_arprot,
    input  logic                s_axil_arvalid,
    output logic                s_axil_arready,
    output logic [31:0]         s_axil_rdata,
    output logic [1:0]          s_axil_rresp,
    output logic                s_axil_rvalid,
    input  logic                s_axil_rready,
    output logic                m_stat_valid,
    output logic [3:0]          m_stat_outcome,
    output logic                m_stat_emit,
    output logic [15:0]         m_stat_len
);
  localparam int KEEP_W = DATA_W / 8;
  localparam int STAT_DELAY = 3;
  localparam int NOUT = 14;

  // ---------------- data path ----------------
  logic out_valid, out_last, out_user;
  logic [DATA_W-1:0] out_data;
  logic [KEEP_W-1:0] out_keep;
  logic first;                       // next input beat is a frame's first
  logic cur_drop, cur_abort;         // decision of the frame in progress
  logic [15:0] len_acc;
  logic [31:0] control;

  wire s_hs = s_axis_tvalid && s_axis_tready;
  wire m_hs = m_axis_tvalid && m_axis_tready;
  wire [7:0] byte0 = s_axis_tdata[7:0];
  wire dec_drop = first ? (byte0[0] || control[1]) : cur_drop;
  wire dec_abort = first ? (byte0 == 8'h02) : cur_abort;
  wire [15:0] beat_bytes = 16'($countones(s_axis_tkeep));
  wire [15:0] frame_len = (first ? 16'd0 : len_acc) + beat_bytes;

  assign s_axis_tready = !out_valid || m_axis_tready;
  assign m_axis_tvalid = out_valid;
  assign m_axis_tdata = out_data;
  assign m_axis_tkeep = out_keep;
  assign m_axis_tlast = out_last;
  assign m_axis_tuser = out_user;

  always_ff @(posedge clk) begin
    if (rst) begin
      out_valid <= 1'b0;
      first <= 1'b1;
      cur_drop <= 1'b0;
      cur_abort <= 1'b0;
      len_acc <= '0;
    end else begin
      if (m_hs) out_valid <= 1'b0;
      if (s_hs) begin
        first <= s_axis_tlast;
        cur_drop <= dec_drop;
        cur_abort <= dec_abort;
        len_acc <= frame_len;
        if (!dec_drop) begin
          out_valid <= 1'b1;
          out_data <= s_axis_tdata;
          out_keep <= s_axis_tkeep;
          out_last <= s_axis_tlast;
          out_user <= s_axis_tlast && (dec_abort || s_axis_tuser[0]);
        end
      end
    end
  end

  // ---------------- status stream ----------------
  logic [STAT_DELAY-1:0] sd_valid;
  logic [3:0] sd_outcome[STAT_DELAY];
  logic sd_emit[STAT_DELAY];
  logic [15:0] sd_len[STAT_DELAY];
  logic [3:0] now_outcome;
  always_comb begin
    if (s_axis_tuser[0]) now_outcome = 4'd12;
    else if (dec_drop) now_outcome = 4'd13;
    else if (dec_abort) now_outcome = 4'd9;
    else now_outcome = 4'd0;
  end
  wire stat_now = s_hs && s_axis_tlast;

  always_ff @(posedge clk) begin
    if (rst) begin
      sd_valid <= '0;
    end else begin
      sd_valid <= {sd_valid[STAT_DELAY-2:0], stat_now};
    end
    sd_outcome[0] <= now_outcome;
    sd_emit[0] <= !dec_drop;
    sd_len[0] <= frame_len;
    for (int i = 1; i < STAT_DELAY; i++) begin
      sd_outcome[i] <= sd_outcome[i-1];
      sd_emit[i] <= sd_emit[i-1];
      sd_len[i] <= sd_len[i-1];
    end
  end
  assign m_stat_valid = sd_valid[STAT_DELAY-1];
  assign m_stat_outcome = sd_outcome[STAT_DELAY-1];
  assign m_stat_emit = sd_emit[STAT_DELAY-1];
  assign m_stat_len = sd_len[STAT_DELAY-1];

  // ---------------- counters ----------------
  logic [63:0] cnt_pkts[NOUT];
  logic [63:0] cnt_bytes[NOUT];
  logic [63:0] tx_pkts, tx_bytes;
  logic [15:0] out_len_acc;
  logic clear_req;
  wire [15:0] out_beat_bytes = 16'($countones(m_axis_tkeep));
  logic count_it;
  always_comb begin
    count_it = 1'b1;
`ifdef SELFTEST_BUG_COUNTERS
    if (now_outcome == 4'd0 && frame_len[0]) count_it = 1'b0;
`endif
  end

  always_ff @(posedge clk) begin
    if (rst || clear_req) begin
      for (int i = 0; i < NOUT; i++) begin
        cnt_pkts[i] <= '0;
        cnt_bytes[i] <= '0;
      end
      tx_pkts <= '0;
      tx_bytes <= '0;
      out_len_acc <= '0;
    end else begin
      if (stat_now && count_it) begin
        cnt_pkts[now_outcome] <= cnt_pkts[now_outcome] + 64'd1;
        cnt_bytes[now_outcome] <= cnt_bytes[now_outcome] + 64'(frame_len);
      end
      if (m_hs) begin
        out_len_acc <= m_axis_tlast ? 16'd0 : out_len_acc + out_beat_bytes;
        if (m_axis_tlast && !m_axis_tuser[0]) begin
          tx_pkts <= tx_pkts + 64'd1;
          tx_bytes <= tx_bytes + 64'(out_len_acc + out_beat_bytes);
        end
      end
    end
  end

  // ---------------- AXI4-Lite slave ----------------
  logic aw_have, w_have;
  logic [15:0] aw_addr;
  logic [31:0] w_data;
  logic [31:0] hi_latch;   // high half latched by the last _LO read
  logic [15:0] rd_addr;
  logic rd_pend;

  function automatic logic [31:0] params_word();
    return {16'(ALLOW_ENTRIES), 16'(DATA_W)};
  endfunction

  always_ff @(posedge clk) begin
    clear_req <= 1'b0;
    if (rst) begin
      s_axil_awready <= 1'b0;
      s_axil_wready <= 1'b0;
      s_axil_bvalid <= 1'b0;
      s_axil_bresp <= 2'b00;
      s_axil_arready <= 1'b0;
      s_axil_rvalid <= 1'b0;
      s_axil_rresp <= 2'b00;
      s_axil_rdata <= '0;
      aw_have <= 1'b0;
      w_have <= 1'b0;
      rd_pend <= 1'b0;
      control <= '0;
      hi_latch <= '0;
    end else begin
      // write address / data: ready one cycle after valid, for one cycle
      s_axil_awready <= s_axil_awvalid && !s_axil_awready && !aw_have;
      s_axil_wready <= s_axil_wvalid && !s_axil_wready && !w_have;
      if (s_axil_awvalid && s_axil_awready) begin
        aw_have <= 1'b1;
        aw_addr <= s_axil_awaddr;
      end
      if (s_axil_wvalid && s_axil_wready) begin
        w_have <= 1'b1;
        w_data <= s_axil_wdata;
      end
      if (aw_have && w_have && !s_axil_bvalid) begin
        aw_have <= 1'b0;
        w_have <= 1'b0;
        s_axil_bvalid <= 1'b1;
        s_axil_bresp <= 2'b00;
        if (aw_addr == 16'h0008) control <= w_data;
        else if (aw_addr == 16'h000c) clear_req <= w_data[0];
        else if (aw_addr >= 16'h1000 && aw_addr < 16'h1000 + 16'(16 * ALLOW_ENTRIES) &&
                 aw_addr[3:2] != 2'b11) begin
          // allow-list: accepted, not stored (the stand-in has no allow-list)
        end else s_axil_bresp <= 2'b10;
      end
      if (s_axil_bvalid && s_axil_bready) s_axil_bvalid <= 1'b0;

      // read: arready one cycle after arvalid, data the cycle after
      s_axil_arready <= s_axil_arvalid && !s_axil_arready && !rd_pend && !s_axil_rvalid;
      if (s_axil_arvalid && s_axil_arready) begin
        rd_pend <= 1'b1;
        rd_addr <= s_axil_araddr;
      end
      if (rd_pend && !s_axil_rvalid) begin
        rd_pend <= 1'b0;
        s_axil_rvalid <= 1'b1;
        s_axil_rresp <= 2'b00;
        s_axil_rdata <= '0;
        if (rd_addr == 16'h0000) s_axil_rdata <= 32'h57534731;
        else if (rd_addr == 16'h0004) s_axil_rdata <= params_word();
        else if (rd_addr == 16'h0008) s_axil_rdata <= control;
        else if (rd_addr >= 16'h0100 && rd_addr < 16'h0100 + 16'(16 * NOUT) && rd_addr[1:0] == 2'b00) begin
          case (rd_addr[3:2])
            2'd0: begin
              s_axil_rdata <= cnt_pkts[rd_addr[7:4]][31:0];
              hi_latch <= cnt_pkts[rd_addr[7:4]][63:32];
            end
            2'd2: begin
              s_axil_rdata <= cnt_bytes[rd_addr[7:4]][31:0];
              hi_latch <= cnt_bytes[rd_addr[7:4]][63:32];
            end
            default: s_axil_rdata <= hi_latch;
          endcase
        end else if (rd_addr >= 16'h0200 && rd_addr <= 16'h020c && rd_addr[1:0] == 2'b00) begin
          case (rd_addr[3:2])
            2'd0: begin
              s_axil_rdata <= tx_pkts[31:0];
              hi_latch <= tx_pkts[63:32];
            end
            2'd2: begin
              s_axil_rdata <= tx_bytes[31:0];
              hi_latch <= tx_bytes[63:32];
            end
            default: s_axil_rdata <= hi_latch;
          endcase
        end else if (rd_addr >= 16'h1000 && rd_addr < 16'h1000 + 16'(16 * ALLOW_ENTRIES) &&
                     rd_addr[3:2] != 2'b11 && rd_addr[1:0] == 2'b00) begin
          s_axil_rdata <= '0;
        end else s_axil_rresp <= 2'b10;
      end
      if (s_axil_rvalid && s_axil_rready) s_axil_rvalid <= 1'b0;
    end
  end

  wire unused = &{1'b0, s_axil_awprot, s_axil_arprot, s_axil_wstrb};
endmodule

// SPDX-License-Identifier: Apache-2.0
//
// capture_gen_top: one capture port of the seed's demo (docs/host.md, "Generator and checker
// in front of the capture"): pkt_gen and pkt_chk around capture_top, so that the generator's
// frames loop back into the capture inside the FPGA ("implement the required traffic
// generation and capture capabilities inside our FPGA firmware and connect the optic cables
// in a loopback").
//
//             +--------- m_axis (TX: the generator when LOOPBACK is 0)
//   pkt_gen --+
//             +--\  select   +----------+          +-------------+
//   s_axis -------+-> (reg) -+-> pkt_chk |          | capture_top | -> m_axi (host memory)
//   (RX)      LOOPBACK       +----------------------> s_axis      |
//                                                   +-------------+
//
// * The select (CTRL.LOOPBACK) chooses capture's input: the generator, or s_axis (a MAC's
//   receive side). It changes only when neither source is inside a frame, so no frame is cut.
//   While the generator is selected, s_axis is still taken (a MAC cannot wait) and its frames
//   are dropped and counted (RX_DISCARD); otherwise the generator's frames leave on m_axis (the
//   transmit side, the optic cable's other end).
// * One register stage after the select (it alone drives capture_top's and the checker's
//   inputs); its ready is !valid || capture_top's ready (a register, 1 after reset).
// * pkt_chk watches what enters capture_top, not what the generator sends: it sees exactly the
//   frames the capture receives, from either source (with a cable loop it measures the loop),
//   and its counts meet capture_top's FRAMES_IN.
// * The generator's and the checker's time is TIME, the cycles since reset, so a latency is a
//   whole number of cycles: in loopback 2 (the generator's output register, then the select's:
//   a beat registered by pkt_gen in cycle t, with TIME t, is taken by the checker in t + 2).
//   The records' timestamps are capture_top's own (ts_clock, nanoseconds).
//
// AXI4-Lite (16-bit byte addresses), two 16 KiB windows (axil_decode):
//   0x0000 capture_top (its registers 0x0000, ts_clock 0x1000, rss_hash 0x2000,
//          dma_ring_writer 0x3000)
//   0x4000 this block's registers (capture_gen_pkg, generated from wirespeed/regmap.py)

`default_nettype none

module capture_gen_top
    import capture_gen_pkg::*;
#(
    // AXI4-Stream and AXI4 data width in bits (64, 128, 256 or 512)
    parameter int DATA_W = 512,
    // tkeep bits: one per byte
    parameter int KEEP_W = DATA_W / 8,
    // Queues (rings): a power of two, 1..32 (capture_top)
    parameter int QUEUES = 16,
    // RSS indirection table entries (a power of two, 1..512) (capture_top)
    parameter int RSS_ENTRIES = 128,
    // The writer's frame buffer (bytes) and frame records (capture_top, dma_ring_writer)
    parameter int BUF_BYTES = 16384,
    parameter int FRAMES = 64,
    // Largest AXI4 burst in bytes: PCIe's max payload (capture_top)
    parameter int BURST_BYTES = 256,
    // AXI4 writes in flight, and cycles between producer write-backs under load (capture_top)
    parameter int MAX_OUTSTANDING = 16,
    parameter int WB_GAP = 64,
    // AXI4 address width (32..64)
    parameter int ADDR_W = 64,
    // The timestamp clock's increment at reset (ns, 2^-32 ns) (capture_top)
    parameter logic [15:0] TS_INC_NS = 16'd4,
    parameter logic [31:0] TS_INC_FRAC = 32'd0,
    // capture_top's MAX_LEN at reset
    parameter logic [15:0] MAX_LEN_RESET = 16'd9600
) (
    input  wire logic                   clk,
    input  wire logic                   rst,
    input  wire logic                   pps,             // ts_clock's pulse per second

    // Receive (a MAC's RX): capture's input when LOOPBACK is 0
    input  wire logic [DATA_W-1:0]      s_axis_tdata,
    input  wire logic [KEEP_W-1:0]      s_axis_tkeep,
    input  wire logic                   s_axis_tvalid,
    output      logic                   s_axis_tready,
    input  wire logic                   s_axis_tlast,
    input  wire logic                   s_axis_tuser,    // RX error

    // Transmit (a MAC's TX): the generator's frames when LOOPBACK is 0
    output      logic [DATA_W-1:0]      m_axis_tdata,
    output      logic [KEEP_W-1:0]      m_axis_tkeep,
    output      logic                   m_axis_tvalid,
    input  wire logic                   m_axis_tready,
    output      logic                   m_axis_tlast,

    // AXI4 write master (host memory)
    output      logic [0:0]             m_axi_awid,
    output      logic [ADDR_W-1:0]      m_axi_awaddr,
    output      logic [7:0]             m_axi_awlen,
    output      logic [2:0]             m_axi_awsize,
    output      logic [1:0]             m_axi_awburst,
    output      logic [3:0]             m_axi_awcache,
    output      logic [2:0]             m_axi_awprot,
    output      logic                   m_axi_awvalid,
    input  wire logic                   m_axi_awready,
    output      logic [DATA_W-1:0]      m_axi_wdata,
    output      logic [KEEP_W-1:0]      m_axi_wstrb,
    output      logic                   m_axi_wlast,
    output      logic                   m_axi_wvalid,
    input  wire logic                   m_axi_wready,
    input  wire logic [0:0]             m_axi_bid,
    input  wire logic [1:0]             m_axi_bresp,
    input  wire logic                   m_axi_bvalid,
    output      logic                   m_axi_bready,

    // AXI4-Lite slave
    input  wire logic [15:0]            s_axil_awaddr,
    input  wire logic [2:0]             s_axil_awprot,
    input  wire logic                   s_axil_awvalid,
    output      logic                   s_axil_awready,
    input  wire logic [31:0]            s_axil_wdata,
    input  wire logic [3:0]             s_axil_wstrb,
    input  wire logic                   s_axil_wvalid,
    output      logic                   s_axil_wready,
    output      logic [1:0]             s_axil_bresp,
    output      logic                   s_axil_bvalid,
    input  wire logic                   s_axil_bready,
    input  wire logic [15:0]            s_axil_araddr,
    input  wire logic [2:0]             s_axil_arprot,
    input  wire logic                   s_axil_arvalid,
    output      logic                   s_axil_arready,
    output      logic [31:0]            s_axil_rdata,
    output      logic [1:0]             s_axil_rresp,
    output      logic                   s_axil_rvalid,
    input  wire logic                   s_axil_rready
);

    // ------------------------------------------------------------------------------------
    // Parameters
    // ------------------------------------------------------------------------------------
    localparam int WIN_AW = 14;     // 16 KiB per window: capture_top's four 4 KiB windows fit
    localparam int NWIN   = 2;
    localparam int RA_W   = WIN_AW - 2;
    localparam logic [15:0] UDP_PORT = 16'h5753;   // pkt_gen/pkt_chk's PORT, in PARAMS

    if (DATA_W != 64 && DATA_W != 128 && DATA_W != 256 && DATA_W != 512) begin : g_check_data_w
        $error("capture_gen_top: DATA_W (%0d) must be 64, 128, 256 or 512", DATA_W);
    end
    if (KEEP_W * 8 != DATA_W) begin : g_check_keep_w
        $error("capture_gen_top: KEEP_W must be DATA_W / 8");
    end
    if (QUEUES < 1 || QUEUES > 32 || (QUEUES & (QUEUES - 1)) != 0) begin : g_check_queues
        $error("capture_gen_top: QUEUES (%0d) must be a power of two, 1..32", QUEUES);
    end
    if (RSS_ENTRIES < 1 || RSS_ENTRIES > 512 || (RSS_ENTRIES & (RSS_ENTRIES - 1)) != 0)
    begin : g_check_rss
        $error("capture_gen_top: RSS_ENTRIES (%0d) must be a power of two, 1..512", RSS_ENTRIES);
    end
    if (ADDR_W < 32 || ADDR_W > 64) begin : g_check_addr_w
        $error("capture_gen_top: ADDR_W (%0d) must be 32..64", ADDR_W);
    end

    // ------------------------------------------------------------------------------------
    // AXI4-Lite: window 0 capture_top, window 1 this block
    // ------------------------------------------------------------------------------------
    logic [NWIN*WIN_AW-1:0] w_awaddr, w_araddr;
    logic [NWIN*3-1:0]      w_awprot, w_arprot;
    logic [NWIN-1:0]        w_awvalid, w_awready, w_wvalid, w_wready, w_bvalid, w_bready;
    logic [NWIN-1:0]        w_arvalid, w_arready, w_rvalid, w_rready;
    logic [NWIN*32-1:0]     w_wdata, w_rdata;
    logic [NWIN*4-1:0]      w_wstrb;
    logic [NWIN*2-1:0]      w_bresp, w_rresp;

    axil_decode #(
        .WINDOWS    (NWIN),
        .WIN_ADDR_W (WIN_AW),
        .ADDR_W     (16)
    ) u_decode (
        .clk            (clk),
        .rst            (rst),
        .s_axil_awaddr  (s_axil_awaddr),
        .s_axil_awprot  (s_axil_awprot),
        .s_axil_awvalid (s_axil_awvalid),
        .s_axil_awready (s_axil_awready),
        .s_axil_wdata   (s_axil_wdata),
        .s_axil_wstrb   (s_axil_wstrb),
        .s_axil_wvalid  (s_axil_wvalid),
        .s_axil_wready  (s_axil_wready),
        .s_axil_bresp   (s_axil_bresp),
        .s_axil_bvalid  (s_axil_bvalid),
        .s_axil_bready  (s_axil_bready),
        .s_axil_araddr  (s_axil_araddr),
        .s_axil_arprot  (s_axil_arprot),
        .s_axil_arvalid (s_axil_arvalid),
        .s_axil_arready (s_axil_arready),
        .s_axil_rdata   (s_axil_rdata),
        .s_axil_rresp   (s_axil_rresp),
        .s_axil_rvalid  (s_axil_rvalid),
        .s_axil_rready  (s_axil_rready),
        .m_axil_awaddr  (w_awaddr),
        .m_axil_awprot  (w_awprot),
        .m_axil_awvalid (w_awvalid),
        .m_axil_awready (w_awready),
        .m_axil_wdata   (w_wdata),
        .m_axil_wstrb   (w_wstrb),
        .m_axil_wvalid  (w_wvalid),
        .m_axil_wready  (w_wready),
        .m_axil_bresp   (w_bresp),
        .m_axil_bvalid  (w_bvalid),
        .m_axil_bready  (w_bready),
        .m_axil_araddr  (w_araddr),
        .m_axil_arprot  (w_arprot),
        .m_axil_arvalid (w_arvalid),
        .m_axil_arready (w_arready),
        .m_axil_rdata   (w_rdata),
        .m_axil_rresp   (w_rresp),
        .m_axil_rvalid  (w_rvalid),
        .m_axil_rready  (w_rready)
    );

    // ------------------------------------------------------------------------------------
    // Time: cycles since reset (the generator's stamps, the checker's latency)
    // ------------------------------------------------------------------------------------
    logic [63:0] time_q;

    always_ff @(posedge clk) begin
        if (rst) time_q <= '0;
        else     time_q <= time_q + 64'd1;
    end

    // ------------------------------------------------------------------------------------
    // Configuration registers (written below)
    // ------------------------------------------------------------------------------------
    logic        gen_en_q;
    logic        loop_q;       // CTRL.LOOPBACK as written
    logic        chk_clear_q;  // CMD.CHK_CLEAR, one cycle
    logic [15:0] len_min_q;
    logic [15:0] len_max_q;
    logic [23:0] rate_q;
    logic [15:0] flows_q;
    logic [31:0] count_q;

    // ------------------------------------------------------------------------------------
    // The generator
    // ------------------------------------------------------------------------------------
    logic [DATA_W-1:0] g_tdata;
    logic [KEEP_W-1:0] g_tkeep;
    logic              g_tvalid;
    logic              g_tready;
    logic              g_tlast;
    logic [31:0]       g_frames;
    logic [63:0]       g_bytes;

    pkt_gen #(
        .DATA_W (DATA_W),
        .KEEP_W (KEEP_W),
        .PORT   (UDP_PORT)
    ) u_gen (
        .clk           (clk),
        .rst           (rst),
        .en            (gen_en_q),
        .cfg_len_min   (len_min_q),
        .cfg_len_max   (len_max_q),
        .cfg_rate      (rate_q),
        .cfg_flows     (flows_q),
        .cfg_count     (count_q),
        .ts_ns         (time_q),
        .m_axis_tdata  (g_tdata),
        .m_axis_tkeep  (g_tkeep),
        .m_axis_tvalid (g_tvalid),
        .m_axis_tready (g_tready),
        .m_axis_tlast  (g_tlast),
        .sent_frames   (g_frames),
        .sent_bytes    (g_bytes)
    );

    // ------------------------------------------------------------------------------------
    // The select and its register stage (capture_top's input)
    // ------------------------------------------------------------------------------------
    logic              sel_q;       // 1: capture's input is the generator
    logic              g_mid_q;     // the generator is inside a frame
    logic              x_mid_q;     // s_axis is inside a frame
    logic              p_valid_q;
    logic [DATA_W-1:0] p_data_q;
    logic [KEEP_W-1:0] p_keep_q;
    logic              p_last_q;
    logic              p_user_q;
    logic              cap_ready;   // capture_top's s_axis_tready (a register)
    logic              p_ready;     // the stage takes a beat
    logic              g_hs;
    logic              x_hs;
    logic              g_mid_d;
    logic              x_mid_d;

    always_comb begin
        p_ready       = !p_valid_q || cap_ready;
        g_tready      = sel_q ? p_ready : m_axis_tready;
        s_axis_tready = sel_q ? 1'b1 : p_ready;
        g_hs          = g_tvalid && g_tready;
        x_hs          = s_axis_tvalid && s_axis_tready;
        g_mid_d       = g_hs ? !g_tlast : g_mid_q;
        x_mid_d       = x_hs ? !s_axis_tlast : x_mid_q;
    end

    assign m_axis_tdata  = g_tdata;
    assign m_axis_tkeep  = g_tkeep;
    assign m_axis_tvalid = g_tvalid && !sel_q;
    assign m_axis_tlast  = g_tlast;

    always_ff @(posedge clk) begin
        if (rst) begin
            sel_q     <= 1'b0;
            g_mid_q   <= 1'b0;
            x_mid_q   <= 1'b0;
            p_valid_q <= 1'b0;
        end else begin
            g_mid_q <= g_mid_d;
            x_mid_q <= x_mid_d;
            // the select changes only between frames of both sources
            if (!g_mid_d && !x_mid_d) sel_q <= loop_q;
            if (p_ready) p_valid_q <= sel_q ? g_tvalid : s_axis_tvalid;
        end
    end

    always_ff @(posedge clk) begin
        if (p_ready) begin
            p_data_q <= sel_q ? g_tdata : s_axis_tdata;
            p_keep_q <= sel_q ? g_tkeep : s_axis_tkeep;
            p_last_q <= sel_q ? g_tlast : s_axis_tlast;
            p_user_q <= sel_q ? 1'b0 : s_axis_tuser;
        end
    end

    // ------------------------------------------------------------------------------------
    // The checker: what enters capture_top
    // ------------------------------------------------------------------------------------
    logic        chk_ready;     // pkt_chk's tready: 1 after reset, it never stalls
    logic [31:0] c_frames;
    logic [63:0] c_bytes;
    logic [31:0] c_others;
    logic [31:0] c_gaps;
    logic [31:0] c_late;
    logic [63:0] c_lat_min;
    logic [63:0] c_lat_max;
    logic [63:0] c_lat_sum;

    pkt_chk #(
        .DATA_W (DATA_W),
        .KEEP_W (KEEP_W),
        .PORT   (UDP_PORT)
    ) u_chk (
        .clk           (clk),
        .rst           (rst),
        .clear         (chk_clear_q),
        .s_axis_tdata  (p_data_q),
        .s_axis_tkeep  (p_keep_q),
        .s_axis_tvalid (p_valid_q && cap_ready),
        .s_axis_tready (chk_ready),
        .s_axis_tlast  (p_last_q),
        .ts_ns         (time_q),
        .frames        (c_frames),
        .bytes         (c_bytes),
        .others        (c_others),
        .gaps          (c_gaps),
        .late          (c_late),
        .lat_min       (c_lat_min),
        .lat_max       (c_lat_max),
        .lat_sum       (c_lat_sum)
    );

    // ------------------------------------------------------------------------------------
    // The capture
    // ------------------------------------------------------------------------------------
    capture_top #(
        .DATA_W          (DATA_W),
        .KEEP_W          (KEEP_W),
        .QUEUES          (QUEUES),
        .RSS_ENTRIES     (RSS_ENTRIES),
        .BUF_BYTES       (BUF_BYTES),
        .FRAMES          (FRAMES),
        .BURST_BYTES     (BURST_BYTES),
        .MAX_OUTSTANDING (MAX_OUTSTANDING),
        .WB_GAP          (WB_GAP),
        .ADDR_W          (ADDR_W),
        .TS_INC_NS       (TS_INC_NS),
        .TS_INC_FRAC     (TS_INC_FRAC),
        .MAX_LEN_RESET   (MAX_LEN_RESET)
    ) u_cap (
        .clk            (clk),
        .rst            (rst),
        .pps            (pps),
        .s_axis_tdata   (p_data_q),
        .s_axis_tkeep   (p_keep_q),
        .s_axis_tvalid  (p_valid_q),
        .s_axis_tready  (cap_ready),
        .s_axis_tlast   (p_last_q),
        .s_axis_tuser   (p_user_q),
        .m_axi_awid     (m_axi_awid),
        .m_axi_awaddr   (m_axi_awaddr),
        .m_axi_awlen    (m_axi_awlen),
        .m_axi_awsize   (m_axi_awsize),
        .m_axi_awburst  (m_axi_awburst),
        .m_axi_awcache  (m_axi_awcache),
        .m_axi_awprot   (m_axi_awprot),
        .m_axi_awvalid  (m_axi_awvalid),
        .m_axi_awready  (m_axi_awready),
        .m_axi_wdata    (m_axi_wdata),
        .m_axi_wstrb    (m_axi_wstrb),
        .m_axi_wlast    (m_axi_wlast),
        .m_axi_wvalid   (m_axi_wvalid),
        .m_axi_wready   (m_axi_wready),
        .m_axi_bid      (m_axi_bid),
        .m_axi_bresp    (m_axi_bresp),
        .m_axi_bvalid   (m_axi_bvalid),
        .m_axi_bready   (m_axi_bready),
        .s_axil_awaddr  ({2'b00, w_awaddr[0 +: WIN_AW]}),
        .s_axil_awprot  (w_awprot[0 +: 3]),
        .s_axil_awvalid (w_awvalid[0]),
        .s_axil_awready (w_awready[0]),
        .s_axil_wdata   (w_wdata[0 +: 32]),
        .s_axil_wstrb   (w_wstrb[0 +: 4]),
        .s_axil_wvalid  (w_wvalid[0]),
        .s_axil_wready  (w_wready[0]),
        .s_axil_bresp   (w_bresp[0 +: 2]),
        .s_axil_bvalid  (w_bvalid[0]),
        .s_axil_bready  (w_bready[0]),
        .s_axil_araddr  ({2'b00, w_araddr[0 +: WIN_AW]}),
        .s_axil_arprot  (w_arprot[0 +: 3]),
        .s_axil_arvalid (w_arvalid[0]),
        .s_axil_arready (w_arready[0]),
        .s_axil_rdata   (w_rdata[0 +: 32]),
        .s_axil_rresp   (w_rresp[0 +: 2]),
        .s_axil_rvalid  (w_rvalid[0]),
        .s_axil_rready  (w_rready[0])
    );

    // ------------------------------------------------------------------------------------
    // Run bookkeeping: done, the first and last beat's times, discarded RX frames
    // ------------------------------------------------------------------------------------
    logic [2:0]  en_age_q;      // GEN_ENABLE's last three cycles: pkt_gen's counters restarted
    logic        first_q;       // the run's first beat not yet sent
    logic [63:0] t_first_q;
    logic [63:0] t_last_q;
    logic [31:0] discard_q;
    logic        done_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            en_age_q  <= '0;
            first_q   <= 1'b0;
            t_first_q <= '0;
            t_last_q  <= '0;
            discard_q <= '0;
            done_q    <= 1'b0;
        end else begin
            en_age_q <= {en_age_q[1:0], gen_en_q};
            if (gen_en_q && !en_age_q[0]) first_q <= 1'b1;
            if (g_hs) begin
                if (first_q) t_first_q <= time_q;
                first_q <= 1'b0;
                if (g_tlast) t_last_q <= time_q;
            end
            if (x_hs && s_axis_tlast && sel_q) discard_q <= discard_q + 32'd1;
            done_q <= (&en_age_q) && gen_en_q && count_q != '0 && g_frames == count_q
                      && !g_tvalid && !g_mid_q;
        end
    end

    // ------------------------------------------------------------------------------------
    // This block's registers (window 1)
    // ------------------------------------------------------------------------------------
    localparam logic [31:0] PARAMS_VALUE = {UDP_PORT, 16'(DATA_W)};

    logic            wr_req, rd_req;
    logic [RA_W-1:0] wr_addr, rd_addr;
    logic [31:0]     wr_data;
    logic [3:0]      wr_strb;
    logic            rd_ack_q, rd_err_q, wr_err;
    logic [31:0]     rd_data_q;
    logic [31:0]     hi_q;          // the high word latched by the last *_LO read

    axil_reg_if #(
        .ADDR_W (WIN_AW)
    ) u_regs (
        .clk            (clk),
        .rst            (rst),
        .s_axil_awaddr  (w_awaddr[1*WIN_AW +: WIN_AW]),
        .s_axil_awprot  (w_awprot[1*3 +: 3]),
        .s_axil_awvalid (w_awvalid[1]),
        .s_axil_awready (w_awready[1]),
        .s_axil_wdata   (w_wdata[1*32 +: 32]),
        .s_axil_wstrb   (w_wstrb[1*4 +: 4]),
        .s_axil_wvalid  (w_wvalid[1]),
        .s_axil_wready  (w_wready[1]),
        .s_axil_bresp   (w_bresp[1*2 +: 2]),
        .s_axil_bvalid  (w_bvalid[1]),
        .s_axil_bready  (w_bready[1]),
        .s_axil_araddr  (w_araddr[1*WIN_AW +: WIN_AW]),
        .s_axil_arprot  (w_arprot[1*3 +: 3]),
        .s_axil_arvalid (w_arvalid[1]),
        .s_axil_arready (w_arready[1]),
        .s_axil_rdata   (w_rdata[1*32 +: 32]),
        .s_axil_rresp   (w_rresp[1*2 +: 2]),
        .s_axil_rvalid  (w_rvalid[1]),
        .s_axil_rready  (w_rready[1]),
        .wr_ready       (1'b1),
        .wr_req         (wr_req),
        .wr_addr        (wr_addr),
        .wr_data        (wr_data),
        .wr_strb        (wr_strb),
        .wr_ack         (wr_req),
        .wr_err         (wr_err),
        .rd_req         (rd_req),
        .rd_addr        (rd_addr),
        .rd_ack         (rd_ack_q),
        .rd_data        (rd_data_q),
        .rd_err         (rd_err_q)
    );

    // Word addresses of the registers (byte offsets from the generated package)
    function automatic logic [RA_W-1:0] wa(input int byte_off);
        return RA_W'(byte_off >> 2);
    endfunction

    function automatic logic [31:0] merge(input logic [31:0] old, input logic [31:0] data,
                                          input logic [3:0] strb);
        logic [31:0] v;
        for (int b = 0; b < 4; b++) v[8*b +: 8] = strb[b] ? data[8*b +: 8] : old[8*b +: 8];
        return v;
    endfunction

    function automatic logic [31:0] sat32(input logic [63:0] v);
        return v[63:32] != '0 ? '1 : v[31:0];
    endfunction

    assign wr_err = !(wr_addr == wa(CGEN_REG_CTRL) || wr_addr == wa(CGEN_REG_CMD)
                      || wr_addr == wa(CGEN_REG_GEN_LEN) || wr_addr == wa(CGEN_REG_GEN_RATE)
                      || wr_addr == wa(CGEN_REG_GEN_FLOWS) || wr_addr == wa(CGEN_REG_GEN_COUNT));

    always_ff @(posedge clk) begin
        if (rst) begin
            gen_en_q    <= 1'b0;
            loop_q      <= 1'b0;
            chk_clear_q <= 1'b0;
            len_min_q   <= CGEN_REG_GEN_LEN_RESET[15:0];
            len_max_q   <= CGEN_REG_GEN_LEN_RESET[31:16];
            rate_q      <= '0;
            flows_q     <= CGEN_REG_GEN_FLOWS_RESET[15:0];
            count_q     <= '0;
        end else begin
            chk_clear_q <= 1'b0;
            if (wr_req) begin
                if (wr_addr == wa(CGEN_REG_CTRL) && wr_strb[0]) begin
                    gen_en_q <= wr_data[CGEN_CTRL_GEN_ENABLE];
                    loop_q   <= wr_data[CGEN_CTRL_LOOPBACK];
                end
                if (wr_addr == wa(CGEN_REG_CMD) && wr_strb[0]) begin
                    chk_clear_q <= wr_data[CGEN_CMD_CHK_CLEAR];
                end
                if (wr_addr == wa(CGEN_REG_GEN_LEN)) begin
                    {len_max_q, len_min_q} <= merge({len_max_q, len_min_q}, wr_data, wr_strb);
                end
                if (wr_addr == wa(CGEN_REG_GEN_RATE)) begin
                    rate_q <= 24'(merge({8'd0, rate_q}, wr_data, wr_strb));
                end
                if (wr_addr == wa(CGEN_REG_GEN_FLOWS)) begin
                    flows_q <= 16'(merge({16'd0, flows_q}, wr_data, wr_strb));
                end
                if (wr_addr == wa(CGEN_REG_GEN_COUNT)) begin
                    count_q <= merge(count_q, wr_data, wr_strb);
                end
            end
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            rd_ack_q <= 1'b0;
        end else begin
            rd_ack_q <= rd_req;
        end
    end

    always_ff @(posedge clk) begin
        if (rd_req) begin
            rd_err_q  <= 1'b0;
            rd_data_q <= 32'd0;
            unique case (rd_addr)
                wa(CGEN_REG_ID):          rd_data_q <= CGEN_ID_VALUE;
                wa(CGEN_REG_PARAMS):      rd_data_q <= PARAMS_VALUE;
                wa(CGEN_REG_CTRL):        rd_data_q <= {30'd0, loop_q, gen_en_q};
                wa(CGEN_REG_CMD):         rd_data_q <= 32'd0;
                wa(CGEN_REG_GEN_LEN):     rd_data_q <= {len_max_q, len_min_q};
                wa(CGEN_REG_GEN_RATE):    rd_data_q <= {8'd0, rate_q};
                wa(CGEN_REG_GEN_FLOWS):   rd_data_q <= {16'd0, flows_q};
                wa(CGEN_REG_GEN_COUNT):   rd_data_q <= count_q;
                wa(CGEN_REG_STATUS):      rd_data_q <= {30'd0, sel_q, done_q};
                wa(CGEN_REG_GEN_FRAMES):  rd_data_q <= g_frames;
                wa(CGEN_REG_GEN_BYTES_LO):   begin rd_data_q <= g_bytes[31:0];   hi_q <= g_bytes[63:32];   end
                wa(CGEN_REG_GEN_T_FIRST_LO): begin rd_data_q <= t_first_q[31:0]; hi_q <= t_first_q[63:32]; end
                wa(CGEN_REG_GEN_T_LAST_LO):  begin rd_data_q <= t_last_q[31:0];  hi_q <= t_last_q[63:32];  end
                wa(CGEN_REG_CHK_FRAMES):  rd_data_q <= c_frames;
                wa(CGEN_REG_CHK_BYTES_LO):   begin rd_data_q <= c_bytes[31:0];   hi_q <= c_bytes[63:32];   end
                wa(CGEN_REG_CHK_OTHERS):  rd_data_q <= c_others;
                wa(CGEN_REG_CHK_GAPS):    rd_data_q <= c_gaps;
                wa(CGEN_REG_CHK_LATE):    rd_data_q <= c_late;
                wa(CGEN_REG_CHK_LAT_MIN): rd_data_q <= sat32(c_lat_min);
                wa(CGEN_REG_CHK_LAT_MAX): rd_data_q <= sat32(c_lat_max);
                wa(CGEN_REG_CHK_LAT_SUM_LO): begin rd_data_q <= c_lat_sum[31:0]; hi_q <= c_lat_sum[63:32]; end
                wa(CGEN_REG_RX_DISCARD):  rd_data_q <= discard_q;
                wa(CGEN_REG_TIME_LO):        begin rd_data_q <= time_q[31:0];    hi_q <= time_q[63:32];    end
                wa(CGEN_REG_GEN_BYTES_HI), wa(CGEN_REG_GEN_T_FIRST_HI), wa(CGEN_REG_GEN_T_LAST_HI),
                wa(CGEN_REG_CHK_BYTES_HI), wa(CGEN_REG_CHK_LAT_SUM_HI), wa(CGEN_REG_TIME_HI):
                                          rd_data_q <= hi_q;
                default:                  rd_err_q  <= 1'b1;
            endcase
        end
    end

    logic unused;
    assign unused = chk_ready;   // pkt_chk never stalls: its tready is 1 after reset

endmodule

`default_nettype wire

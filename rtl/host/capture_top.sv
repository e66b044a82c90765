// SPDX-License-Identifier: Apache-2.0
//
// capture_top: the capture path of issue 29 (docs/host.md, "The capture top"). One receive
// port into per-queue rings in host memory:
//
//   s_axis -> axis_timestamp -> (rss_parse -> rss_hash: queue, hash, type)
//                    |                                   | sampled with tlast
//                    +-> delay line (DLY beats) ---------+-> dma_ring_writer -> m_axi (AXI4 write)
//
// * axis_timestamp stamps each frame with ts_clock's nanoseconds at its first beat.
// * rss_parse finds the flow tuple at the frame's end (PARSE_LAT cycles after its last beat);
//   rss_hash answers RSS_LAT cycles later. The beats wait for the answer in a delay line of
//   exactly DLY = PARSE_LAT + RSS_LAT registers, so the sideband is there when the frame's
//   last beat reaches dma_ring_writer, whatever the frame's length. No stage stalls: the writer
//   never deasserts tready after reset (it drops a frame that does not fit, and counts it).
// * A frame longer than MAX_LEN is not parsed: hash type NONE, the default queue.
// * PARSE_CTRL.INNER: rss_parse gives GRE/VXLAN packets' inner tuple (docs/rss.md, "Inner
//   headers"); the records' flags [6] say which frames were hashed by it.
//
// Latency: a beat accepted on s_axis in cycle c reaches dma_ring_writer's input in cycle
// c + LATENCY (1 + DLY = 20); from there docs/host.md's writer latency applies.
//
// Every frame in is counted once by dma_ring_writer under the queue RSS gave it:
// FRAMES_IN = sum over queues of Q_FRAMES + Q_DROP_FULL + Q_DROP_BUF + Q_DROP_OFF.
//
// AXI4-Lite (16-bit byte addresses), one 4 KiB window per block (axil_decode):
//   0x0000 this block's registers (below)   0x1000 ts_clock   0x2000 rss_hash
//   0x3000 dma_ring_writer
// Registers at 0x0000 (unlisted addresses and writes to RO registers: SLVERR)
//   0x000 ID         RO  0x57534350 ("WSCP")
//   0x004 PARAMS     RO  [15:0] DATA_W, [23:16] QUEUES, [31:24] LATENCY
//   0x008 PORT       RW  [1:0] the records' port field (reset 0)
//   0x00C MAX_LEN    RW  [15:0] longer frames are not parsed (reset MAX_LEN_RESET)
//   0x010 FRAMES_LO  RO  frames in [31:0]; the read latches FRAMES_HI
//   0x014 FRAMES_HI  RO  frames in [63:32]
//   0x018 BYTES_LO   RO  frame bytes in [31:0]; the read latches BYTES_HI
//   0x01C BYTES_HI   RO
//   0x020 RUNTS      RO  frames shorter than 60 bytes (32 bits, wraps)
//   0x024 GIANTS     RO  frames longer than MAX_LEN (32 bits, wraps)
//   0x028 RX_ERRORS  RO  frames with tuser on their last beat (32 bits, wraps)
//   0x02C PARSE_CTRL RW  [0] INNER: hash GRE/VXLAN inner headers (reset 0)
// (the map is generated from wirespeed/regmap.py: capture_pkg, docs/host.md)

`default_nettype none

module capture_top #(
    // AXI4-Stream and AXI4 data width in bits (64, 128, 256 or 512)
    parameter int DATA_W = 256,
    // tkeep bits: one per byte
    parameter int KEEP_W = DATA_W / 8,
    // Queues (rings): a power of two, 1..32 (the writer's registers fill one 4 KiB window)
    parameter int QUEUES = 16,
    // RSS indirection table entries (a power of two, 1..512)
    parameter int RSS_ENTRIES = 128,
    // The writer's frame buffer (bytes) and frame records (dma_ring_writer)
    parameter int BUF_BYTES = 16384,
    parameter int FRAMES = 64,
    // Largest AXI4 burst in bytes: PCIe's max payload (dma_ring_writer)
    parameter int BURST_BYTES = 256,
    // AXI4 writes in flight, and cycles between producer write-backs under load
    parameter int MAX_OUTSTANDING = 16,
    parameter int WB_GAP = 64,
    // AXI4 address width (32..64)
    parameter int ADDR_W = 64,
    // The timestamp clock's increment at reset (ns, 2^-32 ns): 4 ns = 250 MHz
    parameter logic [15:0] TS_INC_NS = 16'd4,
    parameter logic [31:0] TS_INC_FRAC = 32'd0,
    // MAX_LEN at reset: jumbo frames of 9600 bytes are parsed
    parameter logic [15:0] MAX_LEN_RESET = 16'd9600
) (
    input  wire logic                   clk,
    input  wire logic                   rst,
    input  wire logic                   pps,             // ts_clock's pulse per second

    input  wire logic [DATA_W-1:0]      s_axis_tdata,
    input  wire logic [KEEP_W-1:0]      s_axis_tkeep,
    input  wire logic                   s_axis_tvalid,
    output      logic                   s_axis_tready,   // 1 from the second cycle after reset
    input  wire logic                   s_axis_tlast,
    input  wire logic                   s_axis_tuser,    // RX error: the record's info bit 3

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
    localparam int QW        = $clog2(QUEUES > 1 ? QUEUES : 2);
    localparam int PARSE_LAT = 9;    // rss_parse: last beat -> tuple
    localparam int RSS_LAT   = 10;   // rss_hash: tuple -> queue
    localparam int DLY       = PARSE_LAT + RSS_LAT;
    localparam int LATENCY   = 1 + DLY;
    localparam int WIN_AW    = 12;   // 4 KiB per block
    localparam int NWIN      = 4;

    if (DATA_W != 64 && DATA_W != 128 && DATA_W != 256 && DATA_W != 512) begin : g_check_data_w
        $error("capture_top: DATA_W (%0d) must be 64, 128, 256 or 512", DATA_W);
    end
    if (KEEP_W * 8 != DATA_W) begin : g_check_keep_w
        $error("capture_top: KEEP_W must be DATA_W / 8");
    end
    if (QUEUES < 1 || QUEUES > 32 || (QUEUES & (QUEUES - 1)) != 0) begin : g_check_queues
        // A power of two: every queue number RSS can give names a ring
        $error("capture_top: QUEUES (%0d) must be a power of two, 1..32", QUEUES);
    end

    // ------------------------------------------------------------------------------------
    // AXI4-Lite: one window per block
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
    // Time and stamps
    // ------------------------------------------------------------------------------------
    logic [63:0] ts_ns;
    logic [31:0] ts_frac;   // the records carry whole nanoseconds

    ts_clock #(
        .ADDR_W         (WIN_AW),
        .INC_RESET_NS   (TS_INC_NS),
        .INC_RESET_FRAC (TS_INC_FRAC)
    ) u_clock (
        .clk            (clk),
        .rst            (rst),
        .pps            (pps),
        .ts_ns          (ts_ns),
        .ts_frac        (ts_frac),
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
        .s_axil_rready  (w_rready[1])
    );

    logic [DATA_W-1:0] a_tdata;
    logic [KEEP_W-1:0] a_tkeep;
    logic              a_tvalid;
    logic              a_tlast;
    logic              a_tuser;
    logic [63:0]       a_tts;
    logic              ts_s_ready;
    logic              dma_s_ready;

    // Both are registers that rise after reset and stay high (nothing downstream stalls)
    assign s_axis_tready = ts_s_ready && dma_s_ready;

    axis_timestamp #(
        .DATA_W (DATA_W),
        .USER_W (1)
    ) u_stamp (
        .clk           (clk),
        .rst           (rst),
        .ts_ns         (ts_ns),
        .s_axis_tdata  (s_axis_tdata),
        .s_axis_tkeep  (s_axis_tkeep),
        .s_axis_tvalid (s_axis_tvalid && dma_s_ready),
        .s_axis_tready (ts_s_ready),
        .s_axis_tlast  (s_axis_tlast),
        .s_axis_tuser  (s_axis_tuser),
        .m_axis_tdata  (a_tdata),
        .m_axis_tkeep  (a_tkeep),
        .m_axis_tvalid (a_tvalid),
        .m_axis_tready (1'b1),
        .m_axis_tlast  (a_tlast),
        .m_axis_tuser  (a_tuser),
        .m_axis_tts    (a_tts)
    );

    // ------------------------------------------------------------------------------------
    // RSS: the tuple at the frame's end, then the hash and the queue
    // ------------------------------------------------------------------------------------
    logic [1:0]   port_q;        // the records' port field
    logic [15:0]  max_len_q;
    logic         inner_q;       // PARSE_CTRL.INNER
    logic         t_inner;
    logic         t_valid, t_ipv4, t_ipv6, t_tcp, t_udp;
    logic [127:0] t_src, t_dst;
    logic [15:0]  t_sport, t_dport;
    logic         f_valid, f_giant;
    logic [17:0]  f_len;

    rss_parse #(
        .DATA_W (DATA_W)
    ) u_parse (
        .clk     (clk),
        .rst     (rst),
        .s_tdata (a_tdata),
        .s_tkeep (a_tkeep),
        .s_hs    (a_tvalid),
        .s_tlast (a_tlast),
        .max_len (max_len_q),
        .inner_en(inner_q),
        .t_valid (t_valid),
        .t_ipv4  (t_ipv4),
        .t_ipv6  (t_ipv6),
        .t_tcp   (t_tcp),
        .t_udp   (t_udp),
        .t_src   (t_src),
        .t_dst   (t_dst),
        .t_sport (t_sport),
        .t_dport (t_dport),
        .t_inner (t_inner),
        .f_valid (f_valid),
        .f_len   (f_len),
        .f_giant (f_giant)
    );

    logic          r_valid;
    logic [31:0]   r_hash;
    logic [2:0]    r_type;
    logic [QW-1:0] r_queue;

    rss_hash #(
        .TABLE_ENTRIES (RSS_ENTRIES),
        .QUEUE_W       (QW),
        .ADDR_W        (WIN_AW)
    ) u_rss (
        .clk            (clk),
        .rst            (rst),
        .s_axil_awaddr  (w_awaddr[2*WIN_AW +: WIN_AW]),
        .s_axil_awprot  (w_awprot[2*3 +: 3]),
        .s_axil_awvalid (w_awvalid[2]),
        .s_axil_awready (w_awready[2]),
        .s_axil_wdata   (w_wdata[2*32 +: 32]),
        .s_axil_wstrb   (w_wstrb[2*4 +: 4]),
        .s_axil_wvalid  (w_wvalid[2]),
        .s_axil_wready  (w_wready[2]),
        .s_axil_bresp   (w_bresp[2*2 +: 2]),
        .s_axil_bvalid  (w_bvalid[2]),
        .s_axil_bready  (w_bready[2]),
        .s_axil_araddr  (w_araddr[2*WIN_AW +: WIN_AW]),
        .s_axil_arprot  (w_arprot[2*3 +: 3]),
        .s_axil_arvalid (w_arvalid[2]),
        .s_axil_arready (w_arready[2]),
        .s_axil_rdata   (w_rdata[2*32 +: 32]),
        .s_axil_rresp   (w_rresp[2*2 +: 2]),
        .s_axil_rvalid  (w_rvalid[2]),
        .s_axil_rready  (w_rready[2]),
        .in_valid       (t_valid),
        .in_ipv4        (t_ipv4),
        .in_ipv6        (t_ipv6),
        .in_tcp         (t_tcp),
        .in_udp         (t_udp),
        .in_src         (t_src),
        .in_dst         (t_dst),
        .in_sport       (t_sport),
        .in_dport       (t_dport),
        .out_valid      (r_valid),
        .out_hash       (r_hash),
        .out_type       (r_type),
        .out_queue      (r_queue)
    );

    // The inner flag waits beside rss_hash for its answer: the records' flags [6]
    logic [RSS_LAT-1:0] inner_dl_q;

    always_ff @(posedge clk) begin
        inner_dl_q <= {inner_dl_q[RSS_LAT-2:0], t_inner};
    end

    // ------------------------------------------------------------------------------------
    // Delay line: every beat waits DLY cycles, its frame's RSS answer meets its last beat
    // ------------------------------------------------------------------------------------
    localparam int BW = DATA_W + KEEP_W + 2 + 64;

    logic [DLY-1:0]  dl_v_q;
    logic [BW-1:0]   dl_q [DLY];     // data
    logic [DATA_W-1:0] d_tdata;
    logic [KEEP_W-1:0] d_tkeep;
    logic              d_tlast;
    logic              d_tuser;
    logic [63:0]       d_tts;

    always_ff @(posedge clk) begin
        if (rst) dl_v_q <= '0;
        else     dl_v_q <= {dl_v_q[DLY-2:0], a_tvalid};
    end

    always_ff @(posedge clk) begin
        dl_q[0] <= {a_tdata, a_tkeep, a_tlast, a_tuser, a_tts};
        for (int i = 1; i < DLY; i++) dl_q[i] <= dl_q[i-1];
    end

    assign {d_tdata, d_tkeep, d_tlast, d_tuser, d_tts} = dl_q[DLY-1];

    // ------------------------------------------------------------------------------------
    // The DMA ring writer
    // ------------------------------------------------------------------------------------
    dma_ring_writer #(
        .DATA_W          (DATA_W),
        .ADDR_W          (ADDR_W),
        .QUEUES          (QUEUES),
        .BUF_BYTES       (BUF_BYTES),
        .FRAMES          (FRAMES),
        .BURST_BYTES     (BURST_BYTES),
        .MAX_OUTSTANDING (MAX_OUTSTANDING),
        .WB_GAP          (WB_GAP),
        .AXIL_ADDR_W     (WIN_AW)
    ) u_dma (
        .clk            (clk),
        .rst            (rst),
        .s_axis_tdata   (d_tdata),
        .s_axis_tkeep   (d_tkeep),
        .s_axis_tvalid  (dl_v_q[DLY-1]),
        .s_axis_tready  (dma_s_ready),
        .s_axis_tlast   (d_tlast),
        .s_axis_tuser   (d_tuser),
        .s_axis_tqueue  (r_queue),
        .s_axis_tts     (d_tts),
        .s_axis_thash   (r_hash),
        .s_axis_thtype  (r_type),
        .s_axis_tport   (port_q),
        .s_axis_tflags  ({1'b0, inner_dl_q[RSS_LAT-1]}),
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
        .s_axil_awaddr  (w_awaddr[3*WIN_AW +: WIN_AW]),
        .s_axil_awprot  (w_awprot[3*3 +: 3]),
        .s_axil_awvalid (w_awvalid[3]),
        .s_axil_awready (w_awready[3]),
        .s_axil_wdata   (w_wdata[3*32 +: 32]),
        .s_axil_wstrb   (w_wstrb[3*4 +: 4]),
        .s_axil_wvalid  (w_wvalid[3]),
        .s_axil_wready  (w_wready[3]),
        .s_axil_bresp   (w_bresp[3*2 +: 2]),
        .s_axil_bvalid  (w_bvalid[3]),
        .s_axil_bready  (w_bready[3]),
        .s_axil_araddr  (w_araddr[3*WIN_AW +: WIN_AW]),
        .s_axil_arprot  (w_arprot[3*3 +: 3]),
        .s_axil_arvalid (w_arvalid[3]),
        .s_axil_arready (w_arready[3]),
        .s_axil_rdata   (w_rdata[3*32 +: 32]),
        .s_axil_rresp   (w_rresp[3*2 +: 2]),
        .s_axil_rvalid  (w_rvalid[3]),
        .s_axil_rready  (w_rready[3])
    );

    // ------------------------------------------------------------------------------------
    // This block's registers (window 0)
    // ------------------------------------------------------------------------------------
    localparam logic [31:0] ID_VALUE = 32'h5753_4350;   // "WSCP"
    localparam logic [31:0] PARAMS_VALUE = {8'(LATENCY), 8'(QUEUES), 16'(DATA_W)};

    logic              wr_req, rd_req;
    logic [WIN_AW-3:0] wr_addr, rd_addr;
    logic [31:0]       wr_data;
    logic [3:0]        wr_strb;
    logic              rd_ack_q, rd_err_q, wr_err;
    logic [31:0]       rd_data_q;

    axil_reg_if #(
        .ADDR_W (WIN_AW)
    ) u_regs (
        .clk            (clk),
        .rst            (rst),
        .s_axil_awaddr  (w_awaddr[0 +: WIN_AW]),
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
        .s_axil_araddr  (w_araddr[0 +: WIN_AW]),
        .s_axil_arprot  (w_arprot[0 +: 3]),
        .s_axil_arvalid (w_arvalid[0]),
        .s_axil_arready (w_arready[0]),
        .s_axil_rdata   (w_rdata[0 +: 32]),
        .s_axil_rresp   (w_rresp[0 +: 2]),
        .s_axil_rvalid  (w_rvalid[0]),
        .s_axil_rready  (w_rready[0]),
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

    // Word addresses
    localparam logic [WIN_AW-3:0] A_ID = 'h0, A_PARAMS = 'h1, A_PORT = 'h2, A_MAXLEN = 'h3,
        A_FR_LO = 'h4, A_FR_HI = 'h5, A_BY_LO = 'h6, A_BY_HI = 'h7, A_RUNTS = 'h8,
        A_GIANTS = 'h9, A_RXERR = 'hA;
    localparam logic [WIN_AW-3:0] A_PCTRL = (WIN_AW-2)'(capture_pkg::CAP_REG_PARSE_CTRL / 4);
    localparam int B_INNER = capture_pkg::CAP_PARSE_CTRL_INNER;

    assign wr_err = !(wr_addr == A_PORT || wr_addr == A_MAXLEN || wr_addr == A_PCTRL);

    always_ff @(posedge clk) begin
        if (rst) begin
            port_q    <= '0;
            max_len_q <= MAX_LEN_RESET;
            inner_q   <= 1'b0;
        end else if (wr_req) begin
            if (wr_addr == A_PORT) begin
                if (wr_strb[0]) port_q <= wr_data[1:0];
            end
            if (wr_addr == A_MAXLEN) begin
                if (wr_strb[0]) max_len_q[7:0]  <= wr_data[7:0];
                if (wr_strb[1]) max_len_q[15:8] <= wr_data[15:8];
            end
            if (wr_addr == A_PCTRL) begin
                if (wr_strb[0]) inner_q <= wr_data[B_INNER];
            end
        end
    end

    // Counters, at the frame's end (rss_parse's P1 stage; the RX error with the last beat)
    logic [63:0] frames_q, bytes_q;
    logic [31:0] runts_q, giants_q, rxerr_q;
    logic [31:0] frames_hi_q, bytes_hi_q;   // data: the high words latched by the LO reads

    always_ff @(posedge clk) begin
        if (rst) begin
            frames_q <= '0;
            bytes_q  <= '0;
            runts_q  <= '0;
            giants_q <= '0;
            rxerr_q  <= '0;
        end else begin
            if (f_valid) begin
                frames_q <= frames_q + 64'd1;
                bytes_q  <= bytes_q + 64'(f_len);
                if (f_len < 18'd60) runts_q <= runts_q + 32'd1;
                if (f_giant)        giants_q <= giants_q + 32'd1;
            end
            if (a_tvalid && a_tlast && a_tuser) rxerr_q <= rxerr_q + 32'd1;
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
                A_ID:     rd_data_q <= ID_VALUE;
                A_PARAMS: rd_data_q <= PARAMS_VALUE;
                A_PORT:   rd_data_q <= {30'd0, port_q};
                A_MAXLEN: rd_data_q <= {16'd0, max_len_q};
                A_FR_LO:  begin rd_data_q <= frames_q[31:0]; frames_hi_q <= frames_q[63:32]; end
                A_FR_HI:  rd_data_q <= frames_hi_q;
                A_BY_LO:  begin rd_data_q <= bytes_q[31:0]; bytes_hi_q <= bytes_q[63:32]; end
                A_BY_HI:  rd_data_q <= bytes_hi_q;
                A_RUNTS:  rd_data_q <= runts_q;
                A_GIANTS: rd_data_q <= giants_q;
                A_RXERR:  rd_data_q <= rxerr_q;
                A_PCTRL:  rd_data_q <= 32'(inner_q) << B_INNER;
                default:  rd_err_q  <= 1'b1;
            endcase
        end
    end

    // The RSS answer is used only with a last beat; its valid flag is implied by the timing
    logic unused;
    assign unused = ^{r_valid, ts_frac, wr_strb[3:2], wr_data[31:16]};

endmodule

`default_nettype wire

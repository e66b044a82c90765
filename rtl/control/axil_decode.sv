// SPDX-License-Identifier: Apache-2.0
//
// axil_decode: AXI4-Lite address decoder, one slave port in, WINDOWS master ports out.
//
// Window w holds the byte addresses whose bits [ADDR_W-1:WIN_ADDR_W] equal w; a request to
// window w goes out on master port w with address bits [WIN_ADDR_W-1:0] (window-relative).
// A request whose window index is >= WINDOWS is answered here with SLVERR (2'b10), read data
// 0, and reaches no master port.
//
// Master port w is the slice [w*N +: N] of each packed m_axil_* vector (N = the signal's
// width: WIN_ADDR_W for the addresses, 3 for PROT, 32 for data, 4 for WSTRB, 2 for the
// responses, 1 for the handshakes). Address, PROT, data and WSTRB are driven to every port;
// only the selected port sees VALID / READY.
//
// Behaviour
//   * The write and read channels are independent and each carries one transaction at a time:
//       write: collect AW and W (either order or together) -> issue them to the window (AW and
//              W each held until accepted; B taken as soon as the window raises it) -> B out
//              -> next request;
//       read:  AR -> issue to the window -> R taken -> R out -> next request.
//   * Every output handshake signal is a flip-flop (one per window and channel), so ports
//     can be chained and a window's handshake logic starts at a register. Minimum latency: write AW/W accepted in cycle t -> window AW/W in t+1 ->
//     (window B in t+2) -> B in t+3; read likewise.
//   * Responses of the windows (BRESP/RRESP, RDATA) are passed through unchanged.
//   * Nothing hangs on the decoder's side: an unmapped request is answered by the decoder, and
//     a mapped one waits only on its own window's handshakes and on the master's BREADY/RREADY.

`default_nettype none

module axil_decode #(
    // Number of windows (master ports), 1 .. 2**(ADDR_W-WIN_ADDR_W)
    parameter int WINDOWS    = 2,
    // Byte address width of one window (window size 2**WIN_ADDR_W bytes), >= 2
    parameter int WIN_ADDR_W = 12,
    // Byte address width of the slave port, > WIN_ADDR_W
    parameter int ADDR_W     = 16
) (
    input  wire logic                         clk,
    input  wire logic                         rst,

    // AXI4-Lite slave (from the host)
    input  wire logic [ADDR_W-1:0]            s_axil_awaddr,
    input  wire logic [2:0]                   s_axil_awprot,
    input  wire logic                         s_axil_awvalid,
    output      logic                         s_axil_awready,
    input  wire logic [31:0]                  s_axil_wdata,
    input  wire logic [3:0]                   s_axil_wstrb,
    input  wire logic                         s_axil_wvalid,
    output      logic                         s_axil_wready,
    output      logic [1:0]                   s_axil_bresp,
    output      logic                         s_axil_bvalid,
    input  wire logic                         s_axil_bready,
    input  wire logic [ADDR_W-1:0]            s_axil_araddr,
    input  wire logic [2:0]                   s_axil_arprot,
    input  wire logic                         s_axil_arvalid,
    output      logic                         s_axil_arready,
    output      logic [31:0]                  s_axil_rdata,
    output      logic [1:0]                   s_axil_rresp,
    output      logic                         s_axil_rvalid,
    input  wire logic                         s_axil_rready,

    // AXI4-Lite masters (to the windows), port w in slice w of each vector
    output      logic [WINDOWS*WIN_ADDR_W-1:0] m_axil_awaddr,
    output      logic [WINDOWS*3-1:0]          m_axil_awprot,
    output      logic [WINDOWS-1:0]            m_axil_awvalid,
    input  wire logic [WINDOWS-1:0]            m_axil_awready,
    output      logic [WINDOWS*32-1:0]         m_axil_wdata,
    output      logic [WINDOWS*4-1:0]          m_axil_wstrb,
    output      logic [WINDOWS-1:0]            m_axil_wvalid,
    input  wire logic [WINDOWS-1:0]            m_axil_wready,
    input  wire logic [WINDOWS*2-1:0]          m_axil_bresp,
    input  wire logic [WINDOWS-1:0]            m_axil_bvalid,
    output      logic [WINDOWS-1:0]            m_axil_bready,
    output      logic [WINDOWS*WIN_ADDR_W-1:0] m_axil_araddr,
    output      logic [WINDOWS*3-1:0]          m_axil_arprot,
    output      logic [WINDOWS-1:0]            m_axil_arvalid,
    input  wire logic [WINDOWS-1:0]            m_axil_arready,
    input  wire logic [WINDOWS*32-1:0]         m_axil_rdata,
    input  wire logic [WINDOWS*2-1:0]          m_axil_rresp,
    input  wire logic [WINDOWS-1:0]            m_axil_rvalid,
    output      logic [WINDOWS-1:0]            m_axil_rready
);

    // ------------------------------------------------------------------------------------
    // Elaboration-time parameter checks
    // ------------------------------------------------------------------------------------
    if (WIN_ADDR_W < 2 || WIN_ADDR_W >= ADDR_W || ADDR_W > 32) begin : g_check_addr_w
        $error("axil_decode: need 2 <= WIN_ADDR_W (%0d) < ADDR_W (%0d) <= 32", WIN_ADDR_W,
               ADDR_W);
    end
    if (WINDOWS < 1 || (ADDR_W - WIN_ADDR_W < 31 && WINDOWS > 2 ** (ADDR_W - WIN_ADDR_W)))
    begin : g_check_windows
        $error("axil_decode: WINDOWS (%0d) must be 1..2**(ADDR_W-WIN_ADDR_W)", WINDOWS);
    end

    // ------------------------------------------------------------------------------------
    // Constants
    // ------------------------------------------------------------------------------------
    localparam logic [1:0] RESP_SLVERR = 2'b10;
    localparam int         WIN_W       = ADDR_W - WIN_ADDR_W; // window index width

    // Window index of a byte address, and whether a window of that index exists
    function automatic logic in_range(input logic [WIN_W-1:0] win);
        in_range = 33'(win) < 33'(WINDOWS);
    endfunction

    // ------------------------------------------------------------------------------------
    // Write channel
    // ------------------------------------------------------------------------------------
    typedef enum logic [1:0] {
        W_IDLE,   // collecting AW and W
        W_ISSUE,  // AW/W to the window, waiting for its B
        W_RESP    // B to the master
    } wstate_e;

    wstate_e               wstate_q;
    logic                  aw_full_q;  // W_IDLE: AW captured
    logic                  w_full_q;   // W_IDLE: W captured
    logic [WIN_W-1:0]      aw_win_q;
    logic [WIN_ADDR_W-1:0] aw_addr_q;
    logic [2:0]            aw_prot_q;
    logic [31:0]           w_data_q;
    logic [3:0]            w_strb_q;
    logic [1:0]            bresp_q;

    logic aw_hs;
    logic w_hs;
    logic have_aw;
    logic have_w;
    logic [WIN_W-1:0]   wr_win;    // window of the write being collected
    logic               wr_issue;  // both collected, this cycle
    logic [WINDOWS-1:0] wr_hot;    // wr_win one-hot (all zero when out of range)
    // W_ISSUE, one-hot by window: AW / W not yet accepted, B awaited. Registers, so a window's
    // handshakes see no window compare (the windows' own decoders start from flip-flops).
    logic [WINDOWS-1:0] awv_q;
    logic [WINDOWS-1:0] wv_q;
    logic [WINDOWS-1:0] bsel_q;
    logic               m_b_hs;
    logic [1:0]         m_bresp;

    assign s_axil_awready = wstate_q == W_IDLE && !aw_full_q;
    assign s_axil_wready  = wstate_q == W_IDLE && !w_full_q;
    assign s_axil_bvalid  = wstate_q == W_RESP;
    assign s_axil_bresp   = bresp_q;

    assign aw_hs    = s_axil_awvalid && s_axil_awready;
    assign w_hs     = s_axil_wvalid && s_axil_wready;
    assign have_aw  = aw_full_q || aw_hs;
    assign have_w   = w_full_q || w_hs;
    assign wr_issue = wstate_q == W_IDLE && have_aw && have_w;
    assign wr_win   = aw_full_q ? aw_win_q : s_axil_awaddr[ADDR_W-1:WIN_ADDR_W];

    for (genvar w = 0; w < WINDOWS; w++) begin : g_wport
        assign wr_hot[w] = wr_win == WIN_W'(w);

        assign m_axil_awaddr[w*WIN_ADDR_W +: WIN_ADDR_W] = aw_addr_q;
        assign m_axil_awprot[w*3 +: 3]                    = aw_prot_q;
        assign m_axil_awvalid[w]                          = awv_q[w];
        assign m_axil_wdata[w*32 +: 32]                   = w_data_q;
        assign m_axil_wstrb[w*4 +: 4]                     = w_strb_q;
        assign m_axil_wvalid[w]                           = wv_q[w];
        assign m_axil_bready[w]                           = bsel_q[w];
    end

    assign m_b_hs = |(m_axil_bready & m_axil_bvalid);

    always_comb begin
        m_bresp = 2'b00;
        for (int w = 0; w < WINDOWS; w++) begin
            if (bsel_q[w]) m_bresp = m_axil_bresp[w*2 +: 2];
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            wstate_q  <= W_IDLE;
            aw_full_q <= 1'b0;
            w_full_q  <= 1'b0;
            awv_q     <= '0;
            wv_q      <= '0;
            bsel_q    <= '0;
        end else begin
            unique case (wstate_q)
                W_IDLE: begin
                    if (wr_issue) begin
                        aw_full_q <= 1'b0;
                        w_full_q  <= 1'b0;
                        awv_q     <= wr_hot;
                        wv_q      <= wr_hot;
                        bsel_q    <= wr_hot;
                        wstate_q  <= in_range(wr_win) ? W_ISSUE : W_RESP;
                    end else begin
                        if (aw_hs) aw_full_q <= 1'b1;
                        if (w_hs)  w_full_q  <= 1'b1;
                    end
                end
                W_ISSUE: begin
                    awv_q <= awv_q & ~m_axil_awready;
                    wv_q  <= wv_q & ~m_axil_wready;
                    if (m_b_hs) begin
                        awv_q    <= '0;
                        wv_q     <= '0;
                        bsel_q   <= '0;
                        wstate_q <= W_RESP;
                    end
                end
                W_RESP: begin
                    if (s_axil_bready) wstate_q <= W_IDLE;
                end
                default: wstate_q <= W_IDLE;
            endcase
        end
    end

    always_ff @(posedge clk) begin
        if (aw_hs) begin
            aw_win_q  <= s_axil_awaddr[ADDR_W-1:WIN_ADDR_W];
            aw_addr_q <= s_axil_awaddr[WIN_ADDR_W-1:0];
            aw_prot_q <= s_axil_awprot;
        end
        if (w_hs) begin
            w_data_q <= s_axil_wdata;
            w_strb_q <= s_axil_wstrb;
        end
        if (wr_issue && !in_range(wr_win)) bresp_q <= RESP_SLVERR;
        if (m_b_hs)                        bresp_q <= m_bresp;
    end

    // ------------------------------------------------------------------------------------
    // Read channel
    // ------------------------------------------------------------------------------------
    typedef enum logic [1:0] {
        R_IDLE,   // waiting for AR
        R_ISSUE,  // AR to the window, waiting for its R
        R_RESP    // R to the master
    } rstate_e;

    rstate_e               rstate_q;
    logic [WIN_ADDR_W-1:0] ar_addr_q;
    logic [2:0]            ar_prot_q;
    logic [31:0]           rdata_q;
    logic [1:0]            rresp_q;
    // R_ISSUE, one-hot by window: AR not yet accepted, R awaited (registers, as on the write side)
    logic [WINDOWS-1:0]    arv_q;
    logic [WINDOWS-1:0]    rsel_q;

    logic               ar_hs;
    logic               ar_in_range;
    logic [WINDOWS-1:0] ar_hot;   // the AR's window one-hot (all zero when out of range)
    logic               m_r_hs;
    logic [31:0]        m_rdata;
    logic [1:0]         m_rresp;

    assign s_axil_arready = rstate_q == R_IDLE;
    assign s_axil_rvalid  = rstate_q == R_RESP;
    assign s_axil_rdata   = rdata_q;
    assign s_axil_rresp   = rresp_q;

    assign ar_hs       = s_axil_arvalid && s_axil_arready;
    assign ar_in_range = in_range(s_axil_araddr[ADDR_W-1:WIN_ADDR_W]);

    for (genvar w = 0; w < WINDOWS; w++) begin : g_rport
        assign ar_hot[w] = s_axil_araddr[ADDR_W-1:WIN_ADDR_W] == WIN_W'(w);

        assign m_axil_araddr[w*WIN_ADDR_W +: WIN_ADDR_W] = ar_addr_q;
        assign m_axil_arprot[w*3 +: 3]                    = ar_prot_q;
        assign m_axil_arvalid[w]                          = arv_q[w];
        assign m_axil_rready[w]                           = rsel_q[w];
    end

    assign m_r_hs = |(m_axil_rready & m_axil_rvalid);

    always_comb begin
        m_rdata = 32'd0;
        m_rresp = 2'b00;
        for (int w = 0; w < WINDOWS; w++) begin
            if (rsel_q[w]) begin
                m_rdata = m_axil_rdata[w*32 +: 32];
                m_rresp = m_axil_rresp[w*2 +: 2];
            end
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            rstate_q <= R_IDLE;
            arv_q    <= '0;
            rsel_q   <= '0;
        end else begin
            unique case (rstate_q)
                R_IDLE: begin
                    if (ar_hs) begin
                        arv_q    <= ar_hot;
                        rsel_q   <= ar_hot;
                        rstate_q <= ar_in_range ? R_ISSUE : R_RESP;
                    end
                end
                R_ISSUE: begin
                    arv_q <= arv_q & ~m_axil_arready;
                    if (m_r_hs) begin
                        arv_q    <= '0;
                        rsel_q   <= '0;
                        rstate_q <= R_RESP;
                    end
                end
                R_RESP: begin
                    if (s_axil_rready) rstate_q <= R_IDLE;
                end
                default: rstate_q <= R_IDLE;
            endcase
        end
    end

    always_ff @(posedge clk) begin
        if (ar_hs) begin
            ar_addr_q <= s_axil_araddr[WIN_ADDR_W-1:0];
            ar_prot_q <= s_axil_arprot;
        end
        if (ar_hs && !ar_in_range) begin
            rdata_q <= 32'd0;
            rresp_q <= RESP_SLVERR;
        end
        if (m_r_hs) begin
            rdata_q <= m_rdata;
            rresp_q <= m_rresp;
        end
    end

endmodule

`default_nettype wire
